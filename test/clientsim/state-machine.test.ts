import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMessage, CLIENTSIM_CODES, createClientSim, hashSurface, initialState } from '../../src/clientsim/index.ts';
import { wellFormedStreamArb } from './arbitraries.ts';
import { runBoth, expectSameState } from './compare.ts';
import { br, button, card, codes, column, del, dm, errorCodes, list, S, su, text } from './fixtures.ts';

describe('must-pass behaviours', () => {
  it('beginRendering gate: nothing renders before beginRendering', () => {
    const sim = createClientSim();
    sim.applyAll([su(column('r', 'b'), button('b', 'l', 'go'), text('l', 'Go')), dm([{ key: 'k', valueString: 'v' }])]);
    expect(sim.surface(S)?.rendering).toBe(false);
    expect(sim.click(S, 'b')).toMatchObject({ ok: false, violation: { code: 'CLIENTSIM_NOT_RENDERED' } });
    expect(sim.apply(br('r'))).toEqual([]);
    expect(sim.surface(S)?.rendering).toBe(true);
    expect(sim.click(S, 'b')).toMatchObject({ ok: true });
  });

  it('missing root → clear violation, reported as soon as beginRendering names it and again at end of stream', () => {
    const sim = createClientSim();
    expect(sim.applyAll([su(text('a', 'x')), br('root')])).toEqual([{
      code: 'CLIENTSIM_ROOT_MISSING', severity: 'warning', messageIndex: 1, surfaceId: S, pointer: '/beginRendering/root',
      detail: "root 'root' is not defined yet",
    }]);
    expect(sim.endOfStream()).toEqual([expect.objectContaining({ code: 'CLIENTSIM_ROOT_MISSING', messageIndex: 1, detail: expect.stringContaining("'root'") })]);
    expect(sim.input(S, 'a', 'x')).toEqual([expect.objectContaining({ code: 'CLIENTSIM_NOT_RENDERED', detail: expect.stringContaining("root 'root'") })]);
    sim.apply(su(column('root', 'a'), text('a', 'x')));
    expect(sim.endOfStream()).toEqual([]);
  });

  it('cycle detection: structural, through a literal equal to an ancestor id, and through a self-recursive template', () => {
    const structural = createClientSim().applyAll([su(card('r', 'a'), card('a', 'b'), card('b', 'r'))]);
    expect(structural).toEqual([expect.objectContaining({ code: 'CLIENTSIM_CYCLE', detail: 'component cycle r -> a -> b -> r' })]);
    const literal = createClientSim().applyAll([su(column('r', 'a'), text('a', 'r')), br('r')]);
    expect(errorCodes(literal)).toEqual(['CLIENTSIM_CYCLE']);
    const stream = [su({ id: 'r', component: { List: { children: { template: { componentId: 'r', dataBinding: '/items' } } } } }), br('r'), dm([{ key: 'items', valueMap: [{ key: 'a', valueString: 'x' }] }])];
    const { sim, violations, wc } = runBoth(stream);
    expect(violations).toEqual([expect.objectContaining({ code: 'CLIENTSIM_CYCLE', messageIndex: 2, detail: expect.stringContaining("'r:a'") })]);
    expect(wc.threw).toEqual([2]);
    expect(sim.surface(S)?.dataModel).toEqual({});
  });

  it('double deleteSurface is fine (and so is deleting a surface that never existed)', () => {
    const { sim, violations, wc } = runBoth([su(text('a', 'x')), br('a'), del(), del(), del('never')]);
    expect(violations).toEqual([]);
    expect(sim.surfaces().size).toBe(0);
    expect(wc.threw).toEqual([]);
    expectSameState(sim, wc);
  });

  it('path+literal BoundValue is flagged and the message is not applied (component and action context)', () => {
    const { sim, violations, wc } = runBoth([
      su({ id: 'a', component: { Text: { text: { path: '/t', literalString: 'init' } } } }),
      su(button('b', 'l', 'go', [{ key: 'k', value: { path: '/x', literalNumber: 1 } }]), text('l', 'Go')),
    ]);
    expect(violations).toEqual([
      expect.objectContaining({ code: 'CLIENTSIM_BOUND_VALUE_PATH_AND_LITERAL', severity: 'error', messageIndex: 0, pointer: '/surfaceUpdate/components/0/component/Text/text' }),
      expect.objectContaining({ code: 'CLIENTSIM_BOUND_VALUE_PATH_AND_LITERAL', messageIndex: 1, pointer: '/surfaceUpdate/components/0/component/Button/action/context/0/value' }),
    ]);
    expect(wc.threw).toEqual([0, 1]);
    expect(sim.surfaces().size).toBe(0);
  });

  it('stuck buffering detection: surfaces with updates but no beginRendering at end of stream', () => {
    const sim = createClientSim();
    sim.applyAll([
      su(text('a', 'x')), br('a'),
      { surfaceUpdate: { surfaceId: 'b', components: [text('a', 'x')] } },
      { dataModelUpdate: { surfaceId: 'c', contents: [] } },
    ]);
    expect(sim.stuckBuffering()).toEqual(['b', 'c']);
    expect(sim.endOfStream().map((v) => [v.code, v.surfaceId, v.messageIndex])).toEqual([
      ['CLIENTSIM_STUCK_BUFFERING', 'b', 2], ['CLIENTSIM_STUCK_BUFFERING', 'c', 3],
    ]);
    sim.apply(del('c'));
    expect(sim.stuckBuffering()).toEqual(['b']);
  });
});

describe('validation and state machine', () => {
  it.each([
    ['not an object', 'x', 'CLIENTSIM_NOT_AN_OBJECT'],
    ['array', [], 'CLIENTSIM_NOT_AN_OBJECT'],
    ['unknown top-level key', { surfaceUpdate: { surfaceId: S, components: [text('a', 'x')] }, extra: 1 }, 'CLIENTSIM_UNKNOWN_FIELD'],
    ['missing surfaceId', { deleteSurface: {} }, 'CLIENTSIM_FIELD_INVALID'],
    ['empty components', { surfaceUpdate: { surfaceId: S, components: [] } }, 'CLIENTSIM_FIELD_INVALID'],
    ['empty BoundValue', su({ id: 'a', component: { Text: { text: {} } } }), 'CLIENTSIM_BOUND_VALUE_INVALID'],
    ['wrong literal kind', su({ id: 'a', component: { Text: { text: { literalNumber: 1 } } } }), 'CLIENTSIM_UNKNOWN_FIELD'],
    ['both explicitList and template', su({ id: 'r', component: { Column: { children: { explicitList: [], template: { componentId: 'r', dataBinding: '/x' } } } } }), 'CLIENTSIM_FIELD_INVALID'],
    ['Button without action', su({ id: 'b', component: { Button: { child: 'l' } } }, text('l', 'x')), 'CLIENTSIM_FIELD_INVALID'],
    ['bad enum', su({ id: 'a', component: { Text: { text: { literalString: 'x' }, usageHint: 'h9' } } }), 'CLIENTSIM_FIELD_INVALID'],
    ['extra key on the component wrapper', su({ id: 'a', component: { Divider: {} }, accessibility: {} } as never), 'CLIENTSIM_UNKNOWN_FIELD'],
    ['contents missing', { dataModelUpdate: { surfaceId: S } }, 'CLIENTSIM_FIELD_INVALID'],
  ])('rejects %s, like WC', (_name, message, code) => {
    const { sim, violations, wc } = runBoth([message]);
    expect(errorCodes(violations)).toContain(code);
    expect(wc.threw).toEqual([0]);
    expect(sim.surfaces().size).toBe(0);
  });

  it.each([
    ['lowercase Checkbox (WC-only type)', su({ id: 'a', component: { Checkbox: { label: { literalString: 'x' }, value: { literalBoolean: true } } } }), 'CLIENTSIM_UNKNOWN_COMPONENT_TYPE'],
    ["':' in an id", su(text('a:1', 'x')), 'CLIENTSIM_ID_AMBIGUOUS'],
    ['non-standard catalogId', br('a', { catalogId: 'https://example.com/cat.json' }), 'CLIENTSIM_CATALOG_UNKNOWN'],
    ['a new id equal to an older string', su({ id: 'new', component: { Divider: {} } }), 'CLIENTSIM_STRING_SHADOWED_BY_ID'],
  ])('warns about %s but applies it, like WC', (_name, message, code) => {
    const { sim, violations, wc } = runBoth([su(text('a', 'new')), message]);
    expect(codes(violations)).toContain(code);
    expect(errorCodes(violations)).toEqual([]);
    expect(wc.threw).toEqual([]);
    expectSameState(sim, wc);
  });

  it('accepts the two standard catalog ids without a warning', () => {
    for (const catalogId of ['https://a2ui.org/specification/v0_8/standard_catalog_definition.json', 'https://a2ui.org/specification/v0_8/catalogs/minimal/minimal_catalog.json']) {
      expect(createClientSim().applyAll([su(text('a', 'x')), br('a', { catalogId })])).toEqual([]);
    }
  });

  it('applyMessage is pure: earlier states are never modified', () => {
    fc.assert(fc.property(wellFormedStreamArb(), (stream) => {
      let state = initialState();
      const seen: Array<[typeof state, Map<string, string>]> = [];
      for (const message of stream) {
        seen.push([state, new Map([...state.surfaces].map(([id, s]) => [id, hashSurface(s)]))]);
        state = applyMessage(state, message).state;
      }
      for (const [old, hashes] of seen) {
        expect(new Map([...old.surfaces].map(([id, s]) => [id, hashSurface(s)]))).toEqual(hashes);
      }
    }), { numRuns: 100 });
  });

  it('mutating a message after apply does not reach the state', () => {
    const sim = createClientSim();
    const message = dm([{ key: 'a', valueMap: [{ key: 'b', valueString: 'x' }] }]);
    const components = [column('r', 'a'), text('a', 'x')];
    sim.applyAll([message, su(...components)]);
    const before = sim.hash(S);
    ((message['dataModelUpdate'] as { contents: Array<{ valueMap: unknown[] }> }).contents[0]!.valueMap).push({ key: 'c', valueString: 'y' });
    (components[0]!.component['Column'] as { children: { explicitList: string[] } }).children.explicitList.push('zzz');
    expect(sim.hash(S)).toBe(before);
  });

  it('never throws, whatever it is fed, and every violation has a registered code and severity (500 runs)', () => {
    const junk = fc.oneof(fc.anything(), fc.record({ surfaceUpdate: fc.anything() }), fc.record({ dataModelUpdate: fc.record({ surfaceId: fc.constant(S), path: fc.string(), contents: fc.anything() }) }));
    fc.assert(fc.property(fc.array(junk, { maxLength: 6 }), (stream) => {
      const sim = createClientSim();
      let index = 0;
      for (const message of stream) {
        for (const v of sim.apply(message)) {
          expect(Object.hasOwn(CLIENTSIM_CODES, v.code)).toBe(true);
          expect(v.severity).toBe(CLIENTSIM_CODES[v.code].severity);
          expect(v.messageIndex).toBe(index);
        }
        index += 1;
      }
      expect(sim.state().messageCount).toBe(stream.length);
    }), { numRuns: 500 });
  });

  it('untrusted names such as __proto__ stay plain keys (no prototype pollution)', () => {
    const stream = JSON.parse('[{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"__proto__","valueMap":[{"key":"polluted","valueBoolean":true}]},{"key":"j","valueString":"{\\"__proto__\\":{\\"polluted\\":1}}"}]}},'
      + '{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"__proto__","component":{"Foo":{"__proto__":{"polluted":true}}}}]}}]') as unknown[];
    const { sim, wc } = runBoth(stream);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(sim.surface(S)!.data.get('__proto__')).toBeInstanceOf(Map);
    expect(Object.keys(sim.surface(S)!.components)).toEqual(['__proto__']);
    expectSameState(sim, wc);
  });
});

describe('templates and lists', () => {
  it('explicit children may repeat an id (rendered twice), like WC', () => {
    const { sim, wc, violations } = runBoth([su(column('r', 'a', 'a'), text('a', 'x')), br('r')]);
    expect(violations).toEqual([]);
    expectSameState(sim, wc);
  });

  it('a template under a template keeps WC ids and contexts', () => {
    const { sim, wc } = runBoth([
      su(list('r', 'grp', '/groups'), list('grp', 'tag', 'tags'), { id: 'tag', component: { Text: { text: { path: 'label' } } } }),
      dm([{ key: 'groups', valueMap: [{ key: 'g1', valueMap: [{ key: 'tags', valueMap: [{ key: 'x', valueMap: [{ key: 'label', valueString: 'X' }] }] }] }] }]),
      br('r'),
    ]);
    expect(sim.click(S, 'tag:x')).toMatchObject({ ok: false, violation: { code: 'CLIENTSIM_NOT_INTERACTIVE' } });
    expectSameState(sim, wc);
  });
});
