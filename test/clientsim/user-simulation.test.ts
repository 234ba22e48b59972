import type { A2uiMessageProcessor } from '@a2ui/web_core/v0_8';
import { describe, expect, it } from 'vitest';
import { createClientSim, EPOCH_CLOCK, replay } from '../../src/clientsim/index.ts';
import { br, button, codes, column, dm, list, S, su, text, type Comp } from './fixtures.ts';
import { runWc, taggedJson } from './wc-oracle.ts';

// a2ui-v0.8.md §8.27 and §5.2: typing then clicking gives the exact userAction an Angular
// host posts; every value is cross-checked with WC's own setData / getData / resolvePath.

type Node = { id: string; type: string; dataContextPath: string; properties: Record<string, unknown> };

function wcNode(proc: A2uiMessageProcessor, id: string): Node {
  let found: Node | undefined;
  const walk = (v: unknown): void => {
    if (found !== undefined || typeof v !== 'object' || v === null) return;
    if (Array.isArray(v)) return v.forEach(walk);
    const n = v as Node;
    if ('id' in n && 'properties' in n && 'dataContextPath' in n) {
      if (n.id === id) found = n;
      walk(n.properties);
    } else Object.values(v).forEach(walk);
  };
  walk(proc.getSurfaces().get(S)?.componentTree);
  return found!;
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (x instanceof Map ? Object.fromEntries(x) : x)) ?? 'null');

/** What a renderer does on input: setData on the node's bound path. */
function wcInput(proc: A2uiMessageProcessor, id: string, prop: string, value: unknown): void {
  const node = wcNode(proc, id);
  proc.setData(node as never, (node.properties[prop] as { path: string }).path, value as never, S);
}

/** Angular's resolver (§5.2), JSON-round-tripped with Maps converted (the default of ClientSim). */
function wcClick(proc: A2uiMessageProcessor, id: string, timestamp: string): unknown {
  const node = wcNode(proc, id);
  const action = node.properties['action'] as { name: string; context?: Array<{ key: string; value: Record<string, unknown> }> };
  const context: Record<string, unknown> = {};
  for (const { key, value } of action.context ?? []) {
    if (value['literalBoolean'] !== undefined) context[key] = value['literalBoolean'];
    else if (value['literalNumber'] !== undefined) context[key] = value['literalNumber'];
    else if (value['literalString'] !== undefined) context[key] = value['literalString'];
    else if (value['path']) context[key] = proc.getData(node as never, proc.resolvePath(value['path'] as string, node.dataContextPath), S);
  }
  return plain({ userAction: { name: action.name, surfaceId: S, sourceComponentId: node.id, timestamp, context } });
}

const bound = (type: string, id: string, prop: string, path: string, extra: Record<string, unknown> = {}): Comp =>
  ({ id, component: { [type]: { [prop]: { path }, ...extra } } });

const FORM = [
  su(
    column('root', 'name', 'agree', 'level', 'when', 'tags', 'save'),
    bound('TextField', 'name', 'text', '/draft/name', { label: { literalString: 'Name' } }),
    bound('CheckBox', 'agree', 'value', '/draft/agree', { label: { literalString: 'Agree' } }),
    bound('Slider', 'level', 'value', '/draft/level', { minValue: 0, maxValue: 10 }),
    bound('DateTimeInput', 'when', 'value', '/draft/when'),
    bound('MultipleChoice', 'tags', 'selections', '/draft/tags', { options: [{ label: { literalString: 'A' }, value: 'a' }] }),
    button('save', 'save.label', 'save_form', [
      { key: 'name', value: { path: '/draft/name' } },
      { key: 'agree', value: { path: '/draft/agree' } },
      { key: 'level', value: { path: '/draft/level' } },
      { key: 'when', value: { path: 'draft.when' } },
      { key: 'tags', value: { path: '/draft/tags' } },
      { key: 'draft', value: { path: '/draft' } },
      { key: 'missingLeaf', value: { path: '/draft/nope' } },
      { key: 'missingParent', value: { path: '/no/such' } },
      { key: 'off', value: { literalBoolean: false } },
      { key: 'zero', value: { literalNumber: 0 } },
      { key: 'empty', value: { literalString: '' } },
    ]),
    text('save.label', 'Save'),
  ),
  dm([{ key: 'draft', valueMap: [{ key: 'name', valueString: '' }, { key: 'agree', valueBoolean: false }, { key: 'level', valueNumber: 5 }] }]),
  br('root'),
];

describe('acting like a user', () => {
  it('typing into every input type, then clicking, yields the exact userAction (false/0/"" kept, injected clock)', () => {
    const sim = createClientSim({ clock: () => new Date('2025-11-22T10:00:00.000Z') });
    expect(sim.applyAll(FORM)).toEqual([]);
    expect([
      ...sim.input(S, 'name', 'Ada'), ...sim.input(S, 'agree', true), ...sim.input(S, 'level', 7),
      ...sim.input(S, 'when', '2025-11-22T10:00'), ...sim.input(S, 'tags', ['a']),
    ]).toEqual([]);
    const result = sim.click(S, 'save');
    const expected = {
      userAction: {
        name: 'save_form', surfaceId: S, sourceComponentId: 'save', timestamp: '2025-11-22T10:00:00.000Z',
        context: {
          name: 'Ada', agree: true, level: '7', when: '2025-11-22T10:00', tags: ['a'],
          draft: { name: 'Ada', agree: true, level: '7', when: '2025-11-22T10:00', tags: ['a'] },
          missingParent: null, off: false, zero: 0, empty: '',
        },
      },
    };
    expect(result).toEqual({ ok: true, message: expected });
    expect(JSON.stringify(result.ok && result.message)).toBe(JSON.stringify(expected));

    const { proc } = runWc(FORM);
    wcInput(proc, 'name', 'text', 'Ada');
    wcInput(proc, 'agree', 'value', true);
    wcInput(proc, 'level', 'value', '7');
    wcInput(proc, 'when', 'value', '2025-11-22T10:00');
    wcInput(proc, 'tags', 'selections', ['a']);
    expect(result.ok && result.message).toEqual(wcClick(proc, 'save', '2025-11-22T10:00:00.000Z'));
    expect(taggedJson(sim.surface(S)!.data)).toBe(taggedJson(proc.getSurfaces().get(S)!.dataModel));
  });

  it('default clock is the epoch, so runs are deterministic', () => {
    const sim = replay(FORM).sim;
    expect(sim.click(S, 'save')).toMatchObject({ ok: true, message: { userAction: { timestamp: '1970-01-01T00:00:00.000Z' } } });
    expect(sim.click(S, 'save', () => new Date(1000))).toMatchObject({ ok: true, message: { userAction: { timestamp: '1970-01-01T00:00:01.000Z' } } });
    expect(EPOCH_CLOCK().getTime()).toBe(0);
  });

  it('an empty MultipleChoice selection is stored as an empty map, as WC does', () => {
    const sim = replay(FORM).sim;
    sim.input(S, 'tags', []);
    expect(sim.surface(S)!.data.get('draft')).toBeInstanceOf(Map);
    expect((sim.surface(S)!.data.get('draft') as Map<string, unknown>).get('tags')).toBeInstanceOf(Map);
    const { proc } = runWc(FORM);
    wcInput(proc, 'tags', 'selections', []);
    expect(sim.click(S, 'save')).toMatchObject({ ok: true, message: wcClick(proc, 'save', '1970-01-01T00:00:00.000Z') });
  });

  it('a Button inside a template: instance id, item-relative paths, "." and the stripped /item prefix', () => {
    const stream = [
      su(list('r', 'row', '/items'),
        button('btn', 'lbl', 'pick', [{ key: 'n', value: { path: 'name' } }, { key: 'abs', value: { path: '/name' } }, { key: 'it', value: { path: '/item/name' } }, { key: 'self', value: { path: '.' } }, { key: 'gone', value: { path: '/item' } }]),
        { id: 'row', component: { Card: { child: 'btn' } } },
        { id: 'lbl', component: { Text: { text: { path: 'name' } } } }),
      dm([{ key: 'items', valueMap: [{ key: 'k1', valueMap: [{ key: 'name', valueString: 'One' }] }, { key: 'k2', valueMap: [{ key: 'name', valueString: 'Two' }] }] }]),
      br('r'),
    ];
    const sim = replay(stream).sim;
    const result = sim.click(S, 'btn:k2');
    expect(result).toEqual({ ok: true, message: { userAction: { name: 'pick', surfaceId: S, sourceComponentId: 'btn:k2', timestamp: '1970-01-01T00:00:00.000Z', context: { n: 'Two', abs: 'Two', it: 'Two', self: { name: 'Two' } } } } });
    const { proc } = runWc(stream);
    expect(result.ok && result.message).toEqual(wcClick(proc, 'btn:k2', '1970-01-01T00:00:00.000Z'));
  });

  it('input inside a template writes to the item', () => {
    const stream = [
      su(list('r', 'f', '/items'), { id: 'f', component: { TextField: { label: { literalString: 'x' }, text: { path: 'name' } } } }),
      dm([{ key: 'items', valueMap: [{ key: 'a', valueMap: [{ key: 'name', valueString: '' }] }] }]),
      br('r'),
    ];
    const sim = replay(stream).sim;
    expect(sim.input(S, 'f:a', 'typed')).toEqual([]);
    expect(sim.surface(S)?.dataModel).toEqual({ items: { a: { name: 'typed' } } });
  });

  it('setValue writes any JSON value at a path with WC setData semantics', () => {
    const sim = replay(FORM).sim;
    expect(sim.setValue(S, 'draft.name', 'Bo')).toEqual([]);
    expect(sim.setValue(S, '/draft/extra', { nested: [1, 2] })).toEqual([]);
    expect(sim.surface(S)?.dataModel).toMatchObject({ draft: { name: 'Bo', extra: { nested: [1, 2] } } });
    expect(codes(sim.setValue(S, '/x', () => 1))).toEqual(['CLIENTSIM_INPUT_TYPE']);
  });

  it.each([
    ['unknown surface', 'nope', 'name', 'x', 'CLIENTSIM_SURFACE_NOT_FOUND'],
    ['unknown component', S, 'ghost', 'x', 'CLIENTSIM_COMPONENT_NOT_FOUND'],
    ['not an input', S, 'save.label', 'x', 'CLIENTSIM_NOT_INTERACTIVE'],
    ['TextField given a number', S, 'name', 3, 'CLIENTSIM_INPUT_TYPE'],
    ['CheckBox given a string', S, 'agree', 'yes', 'CLIENTSIM_INPUT_TYPE'],
    ['MultipleChoice given a string', S, 'tags', 'a', 'CLIENTSIM_INPUT_TYPE'],
  ])('input rejects %s', (_name, surfaceId, componentId, value, code) => {
    const sim = replay(FORM).sim;
    const before = sim.hash(S);
    expect(codes(sim.input(surfaceId, componentId, value))).toEqual([code]);
    expect(sim.hash(S)).toBe(before);
  });

  it('an input bound to a literal is not written (renderers only write bound paths)', () => {
    const sim = replay([su({ id: 'f', component: { TextField: { label: { literalString: 'x' }, text: { literalString: 'fixed' } } } }), br('f')]).sim;
    expect(codes(sim.input(S, 'f', 'typed'))).toEqual(['CLIENTSIM_INPUT_NOT_BOUND']);
  });

  it('clicking something that is not a Button is refused', () => {
    const sim = replay(FORM).sim;
    expect(sim.click(S, 'name')).toMatchObject({ ok: false, violation: { code: 'CLIENTSIM_NOT_INTERACTIVE', surfaceId: S, messageIndex: 3 } });
  });
});
