import { describe, expect, it } from 'vitest';
import { buildTree, createClientSim } from '../../src/clientsim/index.ts';
import { expectSameState, runBoth } from './compare.ts';
import { br, card, codes, column, del, dm, errorCodes, list, S, su, text, boundText } from './fixtures.ts';
import { taggedJson, treeNodes } from './wc-oracle.ts';

// a2ui-v0.8.md §8, one test per edge case (27 is in user-simulation.test.ts). Unless a test
// says otherwise ClientSim must end in exactly WC's state; deliberate divergences are in
// divergences.test.ts.

const nodeIds = (sim: ReturnType<typeof createClientSim>): string[] => {
  const tree = buildTree(sim.state().surfaces.get(S)!);
  return tree.ok ? tree.nodes.map((n) => n.id) : ['<cycle>'];
};

describe('a2ui-v0.8 §8 edge cases', () => {
  it('1 render gate: beginRendering alone renders nothing until the root arrives', () => {
    const first = runBoth([br('r')]);
    expect(first.sim.surface(S)?.rendering).toBe(true);
    expect(buildTree(first.sim.state().surfaces.get(S)!)).toMatchObject({ ok: true, root: null });
    expect(first.wc.visible.has(S)).toBe(true);
    const { sim, wc, violations } = runBoth([br('r'), su(column('r', 'a'), text('a', 'hi'))]);
    expect(nodeIds(sim)).toEqual(['r', 'a']);
    expect(errorCodes(violations)).toEqual([]);
    expectSameState(sim, wc);
  });

  it('2 root never defined: visible, empty tree, flagged at beginRendering and at end of stream', () => {
    const { sim, wc, violations } = runBoth([su(text('a', 'x')), br('r')]);
    expect(violations).toEqual([expect.objectContaining({ code: 'CLIENTSIM_ROOT_MISSING', messageIndex: 1, surfaceId: S, severity: 'warning' })]);
    expect(sim.endOfStream()).toEqual([expect.objectContaining({ code: 'CLIENTSIM_ROOT_MISSING', messageIndex: 1 })]);
    expect(wc.threw).toEqual([]);
    expectSameState(sim, wc);
  });

  it('3 buffered, never begun: surface exists but is stuck buffering', () => {
    const { sim, wc } = runBoth([su(text('a', 'x')), dm([{ key: 'k', valueString: 'v' }])]);
    expect(sim.stuckBuffering()).toEqual([S]);
    expect(sim.endOfStream()).toEqual([expect.objectContaining({ code: 'CLIENTSIM_STUCK_BUFFERING', messageIndex: 1, surfaceId: S })]);
    expect(wc.visible.has(S)).toBe(false);
    expectSameState(sim, wc);
  });

  it('4 two message keys (and none) are rejected and not applied', () => {
    const { sim, wc, violations } = runBoth([{ deleteSurface: { surfaceId: S }, beginRendering: { surfaceId: S, root: 'r' } }, {}]);
    expect(codes(violations)).toEqual(['CLIENTSIM_MESSAGE_KEY_COUNT', 'CLIENTSIM_MESSAGE_KEY_COUNT']);
    expect(wc.threw).toEqual([0, 1]);
    expect(sim.surfaces().size).toBe(0);
    expectSameState(sim, wc);
  });

  it('5 cross-message reference is rejected (closure is per surfaceUpdate)', () => {
    const { sim, wc, violations } = runBoth([su(text('a', 'x')), su(card('r', 'a'))]);
    expect(violations).toEqual([expect.objectContaining({ code: 'CLIENTSIM_DANGLING_REFERENCE', messageIndex: 1, pointer: '/surfaceUpdate/components/0/component/Card/child' })]);
    expect(wc.threw).toEqual([1]);
    expectSameState(sim, wc);
  });

  it('6 duplicate id in one message is rejected; a later message replaces wholesale, type may change', () => {
    const dup = runBoth([su(text('a', 'x'), text('a', 'y'))]);
    expect(codes(dup.violations)).toEqual(['CLIENTSIM_DUPLICATE_ID']);
    expect(dup.wc.threw).toEqual([0]);
    expectSameState(dup.sim, dup.wc);
    const { sim, wc, violations } = runBoth([su(text('a', 'x')), su({ id: 'a', component: { Divider: {} } })]);
    expect(violations).toEqual([]);
    expect(sim.surface(S)?.components['a']).toEqual({ id: 'a', component: { Divider: {} } });
    expectSameState(sim, wc);
  });

  it('7 two type keys use the first (WC order), no type key gives an untyped node; both warned', () => {
    const { sim, wc, violations } = runBoth([
      su(column('r', 'two', 'none'), { id: 'two', component: { Divider: {}, Text: { text: { literalString: 't' } } } }, { id: 'none', component: {} }),
      br('r'),
    ]);
    expect(codes(violations)).toEqual(['CLIENTSIM_COMPONENT_TYPE_COUNT', 'CLIENTSIM_COMPONENT_TYPE_COUNT']);
    const tree = buildTree(sim.state().surfaces.get(S)!);
    expect(tree.ok && tree.nodes.map((n) => n.type)).toEqual(['Column', 'Text', undefined]);
    expectSameState(sim, wc);
  });

  it('8 unknown type is kept as a custom node, with a warning', () => {
    const { sim, wc, violations } = runBoth([su(column('r', 'f'), { id: 'f', component: { Foo: { bar: 1 } } }), br('r')]);
    expect(codes(violations)).toEqual(['CLIENTSIM_UNKNOWN_COMPONENT_TYPE']);
    expect(sim.surface(S)?.components['f']?.component).toEqual({ Foo: { bar: 1 } });
    expectSameState(sim, wc);
  });

  it('9 unknown property is stripped, with a warning', () => {
    const { sim, wc, violations } = runBoth([su({ id: 'a', component: { Text: { text: { literalString: 'x' }, color: 'red' } } })]);
    expect(violations).toEqual([expect.objectContaining({ code: 'CLIENTSIM_UNKNOWN_PROPERTY', pointer: '/surfaceUpdate/components/0/component/Text/color' })]);
    expect(sim.surface(S)?.components['a']?.component).toEqual({ Text: { text: { literalString: 'x' } } });
    expectSameState(sim, wc);
  });

  it('10 a literal equal to an id becomes that node (warned); equal to an ancestor is a cycle', () => {
    const { sim, wc, violations } = runBoth([su(column('r', 'a'), text('a', 'b'), text('b', 'B')), br('r')]);
    expect(codes(violations)).toEqual(['CLIENTSIM_STRING_SHADOWED_BY_ID']);
    expect(nodeIds(sim)).toEqual(['r', 'a', 'b']);
    expectSameState(sim, wc);
    const cyc = createClientSim();
    const found = cyc.applyAll([su(column('r', 'a'), text('a', 'r')), br('r')]);
    expect(errorCodes(found)).toEqual(['CLIENTSIM_CYCLE']);
  });

  it('11 a cycle is reported on the message that completes it', () => {
    const sim = createClientSim();
    sim.applyAll([su(card('r', 'a'), text('a', 'x')), br('r')]);
    const found = sim.apply(su(card('r', 'a'), card('a', 'r')));
    expect(found).toEqual([expect.objectContaining({ code: 'CLIENTSIM_CYCLE', severity: 'error', messageIndex: 2, detail: expect.stringContaining('r -> a -> r') })]);
  });

  it.each([[undefined], ['/'], [''], ['.']])('12 root data replace with path %j; contents [] empties the model', (path) => {
    const stream = [dm([{ key: 'old', valueString: 'x' }]), dm([{ key: 'n', valueNumber: 1 }], path), dm([], path)];
    const { sim, wc } = runBoth(stream.slice(0, 2));
    expect(sim.surface(S)?.dataModel).toEqual({ n: 1 });
    expectSameState(sim, wc);
    const emptied = runBoth(stream);
    expect(emptied.sim.surface(S)?.dataModel).toEqual({});
    expectSameState(emptied.sim, emptied.wc);
  });

  it('13 a path update replaces the value at the path (no merge), siblings survive', () => {
    const { sim, wc } = runBoth([
      dm([{ key: 'u', valueMap: [{ key: 'a', valueNumber: 1 }, { key: 'b', valueNumber: 2 }] }, { key: 'w', valueBoolean: true }]),
      dm([{ key: 'a', valueNumber: 9 }], '/u'),
    ]);
    expect(sim.surface(S)?.dataModel).toEqual({ u: { a: 9 }, w: true });
    expectSameState(sim, wc);
  });

  it("14 a lone '.' entry sets the leaf; among several entries it is warned and ignored", () => {
    const base = dm([{ key: 'u', valueMap: [{ key: 'a', valueNumber: 1 }, { key: 'b', valueNumber: 2 }] }]);
    const leaf = runBoth([base, dm([{ key: '.', valueNumber: 9 }], '/u/a')]);
    expect(leaf.violations).toEqual([]);
    expect(leaf.sim.surface(S)?.dataModel).toEqual({ u: { a: 9, b: 2 } });
    expectSameState(leaf.sim, leaf.wc);
    const mixed = runBoth([base, dm([{ key: 'x', valueNumber: 1 }, { key: '.', valueNumber: 9 }], '/u')]);
    expect(codes(mixed.violations)).toEqual(['CLIENTSIM_DATA_KEY_AMBIGUOUS', 'CLIENTSIM_DATA_WRITE_IGNORED']);
    expect(mixed.sim.surface(S)?.dataModel).toEqual({ u: { x: 1 } });
    expectSameState(mixed.sim, mixed.wc);
  });

  it('15 dotted keys and paths are split into segments', () => {
    const { sim, wc, violations } = runBoth([dm([{ key: 'a.b', valueString: 'x' }]), dm([{ key: 'n', valueString: 'y' }], 'user.profile'), dm([{ key: 'q', valueNumber: 1 }], 'list[0]')]);
    expect(codes(violations)).toEqual(['CLIENTSIM_DATA_KEY_AMBIGUOUS']);
    expect(sim.surface(S)?.dataModel).toEqual({ a: { b: 'x' }, user: { profile: { n: 'y' } }, list: { 0: { q: 1 } } });
    expectSameState(sim, wc);
  });

  it('16 JSON-looking strings are parsed ([] becomes an empty map); broken ones stay strings', () => {
    const { sim, wc, violations } = runBoth([dm([
      { key: 'arr', valueString: '["a","b"]' }, { key: 'empty', valueString: '[]' },
      { key: 'obj', valueString: '{"x":1}' }, { key: 'bad', valueString: '[oops]' }, { key: 'nul', valueString: 'null' },
    ])]);
    expect(codes(violations)).toEqual(['CLIENTSIM_JSON_STRING_PARSED', 'CLIENTSIM_JSON_STRING_PARSED', 'CLIENTSIM_JSON_STRING_PARSED', 'CLIENTSIM_JSON_STRING_UNPARSED']);
    const data = sim.surface(S)!.data;
    expect(data.get('arr')).toEqual(['a', 'b']);
    expect(data.get('empty')).toBeInstanceOf(Map);
    expect(data.get('obj')).not.toBeInstanceOf(Map);
    expect(data.get('bad')).toBe('[oops]');
    expect(data.get('nul')).toBe('null');
    expectSameState(sim, wc);
  });

  it('17 a write through a parsed JSON object is ignored (warned); through a parsed array it lands', () => {
    const { sim, wc, violations } = runBoth([
      dm([{ key: 'obj', valueString: '{"x":1}' }, { key: 'arr', valueString: '[1,2]' }]),
      dm([{ key: 'a', valueNumber: 5 }], '/obj/x'), dm([{ key: '.', valueNumber: 7 }], '/arr/0'),
    ]);
    expect(violations.filter((v) => v.code === 'CLIENTSIM_DATA_WRITE_IGNORED')).toEqual([expect.objectContaining({ messageIndex: 1 })]);
    expect(sim.surface(S)?.dataModel).toEqual({ obj: { x: 1 }, arr: [7, 2] });
    expectSameState(sim, wc);
  });

  it('18 a primitive in the way is replaced by a map (warned)', () => {
    const { sim, wc, violations } = runBoth([dm([{ key: 'a', valueString: 'x' }]), dm([{ key: 'c', valueNumber: 1 }], '/a/b')]);
    expect(codes(violations)).toEqual(['CLIENTSIM_DATA_PRIMITIVE_REPLACED']);
    expect(sim.surface(S)?.dataModel).toEqual({ a: { b: { c: 1 } } });
    expectSameState(sim, wc);
  });

  const deep = (n: number): Record<string, unknown> => (n === 1 ? { key: 'k', valueNumber: 1 } : { key: 'k', valueMap: [deep(n - 1)] });
  it.each([
    ['no value', { key: 'a' }, 'CLIENTSIM_DATA_ENTRY_INVALID'],
    ['two values', { key: 'a', valueString: 'x', valueNumber: 1 }, 'CLIENTSIM_DATA_ENTRY_INVALID'],
    ['valueString null', { key: 'a', valueString: null }, 'CLIENTSIM_DATA_ENTRY_INVALID'],
    ['valueArray', { key: 'a', valueArray: ['x'] }, 'CLIENTSIM_UNKNOWN_FIELD'],
    ['depth 6 valueMap', deep(6), 'CLIENTSIM_DATA_ENTRY_INVALID'],
  ])('19 invalid data entry (%s) is rejected and not applied', (_name, entry, code) => {
    const { sim, wc, violations } = runBoth([dm([{ key: 'keep', valueBoolean: true }]), dm([entry])]);
    expect(errorCodes(violations)).toContain(code);
    expect(wc.threw).toEqual([1]);
    expect(sim.surface(S)?.dataModel).toEqual({ keep: true });
    expectSameState(sim, wc);
  });

  it('19b depth 5 is applied (WC limit) but warned as deeper than the JSON schema allows', () => {
    const { sim, wc, violations } = runBoth([dm([deep(5)])]);
    expect(codes(violations)).toEqual(['CLIENTSIM_VALUE_MAP_TOO_DEEP']);
    expectSameState(sim, wc);
  });

  it('20 deleteSurface of an unknown id is a no-op; delete then reuse starts empty', () => {
    const { sim, wc, violations } = runBoth([del('nope'), su(text('a', 'x')), dm([{ key: 'k', valueNumber: 1 }]), br('a'), del(), dm([{ key: 'n', valueNumber: 2 }])]);
    expect(violations).toEqual([]);
    expect(sim.surface(S)).toMatchObject({ rendering: false, root: null, components: {}, dataModel: { n: 2 } });
    expectSameState(sim, wc);
  });

  it('21 a second beginRendering without styles resets them and switches root', () => {
    const { sim, wc } = runBoth([su(text('a', 'x'), text('b', 'y')), br('a', { styles: { font: 'Roboto', primaryColor: '#00BFFF' } }), br('b')]);
    expect(sim.surface(S)).toMatchObject({ root: 'b', styles: {} });
    expectSameState(sim, wc);
  });

  it('22 templates: missing data → no children; map → key order (integer-like keys too); arrays → indexes, nested arrays → i:j', () => {
    const items = [{ key: 'items', valueMap: [{ key: 'k2', valueString: 'b' }, { key: '10', valueString: 'c' }, { key: '2', valueString: 'd' }] }];
    const stream = [su(list('r', 'row', '/items'), boundText('row', '.')), br('r')];
    const missing = runBoth(stream);
    expect(nodeIds(missing.sim)).toEqual(['r']);
    const mapped = runBoth([...stream, dm(items)]);
    expect(nodeIds(mapped.sim)).toEqual(['r', 'row:k2', 'row:10', 'row:2']);
    expectSameState(mapped.sim, mapped.wc);
    const nested = runBoth([su(list('r', 'inner', '/grid'), list('inner', 'cell', '.'), boundText('cell', '.')), br('r'), dm([{ key: 'grid', valueString: '[[1,2],[3]]' }])]);
    expect(nodeIds(nested.sim)).toEqual(['r', 'inner:0', 'cell:0:0', 'cell:0:1', 'inner:1', 'cell:1:0']);
    expectSameState(nested.sim, nested.wc);
  });

  it('23 template paths are rewritten relative to the item (including the /text prefix bug)', () => {
    const { sim, wc } = runBoth([
      su(list('r', 'row', '/items'), { id: 'row', component: { Text: { text: { path: '/title' }, usageHint: 'body' } } }, text('x', 'unused')),
      dm([{ key: 'items', valueMap: [{ key: 'a', valueMap: [{ key: 'title', valueString: 'T' }] }] }]),
      br('r'),
    ]);
    const tree = buildTree(sim.state().surfaces.get(S)!);
    expect(tree.ok && tree.nodes[1]?.properties).toEqual({ text: { path: 'title' }, usageHint: 'body' });
    expect(treeNodes(tree.ok ? tree.root : null)).toEqual(treeNodes(wc.surfaces.get(S)!.componentTree));
  });

  it('24 template data arriving later makes the children appear', () => {
    const sim = createClientSim();
    sim.applyAll([su(list('r', 'row', '/items'), boundText('row', 'name')), br('r')]);
    expect(nodeIds(sim)).toEqual(['r']);
    sim.apply(dm([{ key: 'items', valueMap: [{ key: 'a', valueMap: [{ key: 'name', valueString: 'A' }] }] }]));
    expect(nodeIds(sim)).toEqual(['r', 'row:a']);
  });

  it.each([
    ['logoUrl', { logoUrl: 'https://x' }, 'CLIENTSIM_UNKNOWN_FIELD'],
    ['primaryColor red', { primaryColor: 'red' }, 'CLIENTSIM_FIELD_INVALID'],
  ])('25 styles with %s are rejected', (_name, styles, code) => {
    const { sim, wc, violations } = runBoth([su(text('a', 'x')), br('a', { styles })]);
    expect(errorCodes(violations)).toEqual([code]);
    expect(sim.surface(S)?.rendering).toBe(false);
    expectSameState(sim, wc);
  });

  it('26 an invalid middle message is skipped; messages around it apply (per-message, like WC fed one by one)', () => {
    const stream = [dm([{ key: 'a', valueNumber: 1 }]), dm([{ key: 'b' }]), dm([{ key: 'c', valueNumber: 3 }], '/c')];
    const { sim, wc, violations } = runBoth(stream);
    expect(violations).toEqual([expect.objectContaining({ code: 'CLIENTSIM_DATA_ENTRY_INVALID', messageIndex: 1 })]);
    expect(sim.surface(S)?.dataModel).toEqual({ a: 1, c: { c: 3 } });
    expectSameState(sim, wc);
    expect(taggedJson(sim.surface(S)!.data)).toBe(taggedJson(wc.surfaces.get(S)!.dataModel));
  });
});
