import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  canonicaliseDataPath, escapeToken, formatPointer, getAt, isSafeDataKey, parsePointer, pointer, unescapeToken,
} from '../../src/ui-ir/index.ts';
import { deepFreeze } from '../support/arbitraries-directives.ts';

describe('RFC 6901 escaping', () => {
  it('escapes ~ before /', () => {
    expect(escapeToken('a/b')).toBe('a~1b');
    expect(escapeToken('a~b')).toBe('a~0b');
    expect(escapeToken('~1')).toBe('~01');
    expect(unescapeToken('~01')).toBe('~1');
    expect(unescapeToken('a~1b~0c')).toBe('a/b~c');
  });

  it('formats and parses token lists', () => {
    expect(formatPointer(['draft', 'a/b', 'c~d'])).toBe('/draft/a~1b/c~0d');
    expect(parsePointer('/draft/a~1b/c~0d')).toEqual({ ok: true, tokens: ['draft', 'a/b', 'c~d'] });
    expect(parsePointer('')).toEqual({ ok: true, tokens: [] });
    expect(parsePointer('/')).toEqual({ ok: true, tokens: [''] });
  });

  it('refuses what the jsonpointer package lets through', () => {
    expect(parsePointer('/a~2b').ok).toBe(false);
    expect(parsePointer('/a~').ok).toBe(false);
    expect(parsePointer('a/b').ok).toBe(false);
  });

  fcTest.prop([fc.string({ unit: 'grapheme' })])('escape/unescape round-trips any string', (s) => {
    expect(unescapeToken(escapeToken(s))).toBe(s);
    expect(escapeToken(s).includes('/')).toBe(false);
  });

  fcTest.prop([fc.array(fc.string({ unit: 'binary' }), { maxLength: 6 })])('format/parse round-trips any token list', (tokens) => {
    expect(parsePointer(formatPointer(tokens))).toEqual({ ok: true, tokens });
  });
});

describe('data paths', () => {
  it('keeps canonical pointers and flags segment paths', () => {
    expect(canonicaliseDataPath('/draft/name')).toMatchObject({ ok: true, pointer: '/draft/name', canonicalised: false });
    expect(canonicaliseDataPath('name')).toMatchObject({ ok: true, pointer: '/draft/name', canonicalised: true });
    expect(canonicaliseDataPath('draft/name')).toMatchObject({ ok: true, pointer: '/draft/name', canonicalised: true });
    expect(canonicaliseDataPath('ui.status')).toMatchObject({ ok: true, pointer: '/ui/status', canonicalised: true });
    expect(canonicaliseDataPath('committed/name')).toMatchObject({ ok: true, pointer: '/committed/name' });
  });

  it('refuses unsafe keys and unknown namespaces', () => {
    for (const bad of ['/draft/__proto__', '/draft/a.b', '/other/x', '/draft/a~1b', 'constructor', '', '/draft/' + 'x'.repeat(65)]) {
      expect(canonicaliseDataPath(bad).ok, bad).toBe(false);
    }
    expect(isSafeDataKey('prototype')).toBe(false);
    expect(isSafeDataKey('display_name')).toBe(true);
  });
});

describe('reads and writes', () => {
  const root = deepFreeze({ draft: { name: 'Aria', nested: { a: 1 } }, list: ['x'] });

  it('reads own properties only', () => {
    expect(getAt(root, ['draft', 'name'])).toBe('Aria');
    expect(getAt(root, ['draft', 'toString'])).toBeUndefined();
    expect(getAt(root, ['draft', '__proto__'])).toBeUndefined();
    expect(getAt(root, ['list', '0'])).toBe('x');
    expect(getAt(root, ['list', 'length'])).toBe(1); // own property of arrays: callers validate keys first
  });

  it('guards getByPointer against prototype keys and bad escapes', () => {
    expect(pointer.getByPointer(root, '/draft/name')).toBe('Aria');
    expect(pointer.getByPointer(root, '/__proto__')).toBeUndefined();
    expect(pointer.getByPointer(root, '/draft/constructor')).toBeUndefined();
    expect(pointer.getByPointer(root, '/draft/toString')).toBeUndefined();
    expect(pointer.getByPointer(root, '/draft/n~2ame')).toBeUndefined();
    expect(pointer.getByPointer(root, '')).toBe(root);
  });

  it('writes with structural sharing and never mutates (inputs are frozen)', () => {
    const next = pointer.setAt(root, ['draft', 'name'], 'Bo');
    expect(next).toEqual({ draft: { name: 'Bo', nested: { a: 1 } }, list: ['x'] });
    expect(next.list).toBe(root.list);
    expect(root.draft.name).toBe('Aria');
    const removed = pointer.removeAt(root, ['draft', 'nested', 'a']);
    expect(removed).toEqual({ draft: { name: 'Aria', nested: {} }, list: ['x'] });
    expect(pointer.removeAt(root, ['draft', 'missing'])).toBe(root);
  });

  it('writes a key named __proto__ as data, not as a prototype', () => {
    const next = pointer.setAt({}, ['__proto__'], { polluted: true });
    expect(Object.hasOwn(next, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
