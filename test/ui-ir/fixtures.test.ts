import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConversationIr } from '../../src/ui-ir/index.ts';

const dir = new URL('../fixtures/ir/', import.meta.url);
const load = (kind: string, file: string): unknown => JSON.parse(readFileSync(new URL(`${kind}/${file}`, dir), 'utf8'));
const files = (kind: string): string[] => readdirSync(new URL(`${kind}/`, dir)).filter((f) => f.endsWith('.json')).sort();

describe('IR v1 fixtures', () => {
  it('has fixtures of both kinds', () => {
    expect(files('valid').length).toBeGreaterThanOrEqual(4);
    expect(files('invalid').length).toBeGreaterThanOrEqual(15);
  });

  it.each(files('valid'))('accepts valid/%s', (file) => {
    const result = ConversationIr.safeParse(load('valid', file));
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(files('invalid'))('rejects invalid/%s', (file) => {
    expect(ConversationIr.safeParse(load('invalid', file)).success).toBe(false);
  });

  // zod 4.6 records drop an own "__proto__" key instead of rejecting it; DataMapSchema checks
  // the raw input first so such a key makes the IR invalid rather than silently changed.
  it('rejects a JSON "__proto__" data key at any depth', () => {
    const base = readFileSync(new URL('valid/character-card-committed.json', dir), 'utf8');
    for (const text of [
      base.replace('"draft": {', '"draft": {"__proto__": "x",'),
      base.replace('"draft": {', '"draft": {"deep": {"__proto__": {"polluted": true}},'),
    ]) {
      const ir = JSON.parse(text) as { surfaces: Array<{ data: { draft: object } }> };
      expect(ConversationIr.safeParse(ir).success).toBe(false);
    }
  });
});
