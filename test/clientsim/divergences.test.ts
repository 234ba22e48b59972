import { A2uiMessageProcessor } from '@a2ui/web_core/v0_8';
import { describe, expect, it } from 'vitest';
import { createClientSim, replay } from '../../src/clientsim/index.ts';
import { runBoth } from './compare.ts';
import { br, button, card, codes, column, dm, errorCodes, S, su, text } from './fixtures.ts';
import { runWc, silenceWc, taggedJson } from './wc-oracle.ts';

// Every deliberate difference from @a2ui/web_core 0.11, each shown against WC itself.
// The rule behind most of them: a message WC would throw on is not applied at all.

describe('documented divergences from WC', () => {
  it('rendering flag: beginRendering with root "" renders in ClientSim (root reported missing); WC hides the surface', () => {
    const { sim, wc, violations } = runBoth([su(text('a', 'x')), br('')]);
    expect(sim.surface(S)?.rendering).toBe(true);
    expect(codes(violations)).toEqual(['CLIENTSIM_ROOT_MISSING']);
    expect(wc.visible.has(S)).toBe(false);
  });

  it('a message completing a rendered cycle is rejected and the last good state kept; WC applies it and then throws on every later message', () => {
    const stream = [su(card('r', 'a'), text('a', 'x')), br('r'), su(card('r', 'a'), card('a', 'r')), dm([{ key: 'k', valueNumber: 1 }])];
    const { sim, wc, violations } = runBoth(stream);
    expect(errorCodes(violations)).toEqual(['CLIENTSIM_CYCLE']);
    expect(sim.surface(S)?.components['a']).toEqual(text('a', 'x'));
    expect(sim.surface(S)?.dataModel).toEqual({ k: 1 });
    expect(wc.threw).toEqual([2, 3]);
    expect(wc.surfaces.get(S)!.components.get('a')).toEqual(card('a', 'r'));
  });

  it('a structural cycle is rejected even before beginRendering; WC accepts it until a root reaches it', () => {
    const { sim, wc, violations } = runBoth([su(card('x', 'y'), card('y', 'x'))]);
    expect(errorCodes(violations)).toEqual(['CLIENTSIM_CYCLE']);
    expect(sim.surfaces().size).toBe(0);
    expect(wc.threw).toEqual([]);
    expect(wc.surfaces.get(S)!.components.size).toBe(2);
  });

  it('an empty-string child reference is dangling; WC skips it in its closure check', () => {
    const { violations, wc } = runBoth([su(card('r', ''))]);
    expect(errorCodes(violations)).toEqual(['CLIENTSIM_DANGLING_REFERENCE']);
    expect(wc.threw).toEqual([]);
  });

  it('CheckBox is validated and stripped; WC (whose zod key is "Checkbox") stores it unvalidated', () => {
    const extra = { id: 'c', component: { CheckBox: { label: { literalString: 'ok' }, value: { path: '/ok' }, tint: 'red' } } };
    const stripped = runBoth([su(extra)]);
    expect(codes(stripped.violations)).toEqual(['CLIENTSIM_UNKNOWN_PROPERTY']);
    expect(stripped.sim.surface(S)?.components['c']?.component).toEqual({ CheckBox: { label: { literalString: 'ok' }, value: { path: '/ok' } } });
    expect(stripped.wc.surfaces.get(S)!.components.get('c')).toEqual(extra);
    const missing = runBoth([su({ id: 'c', component: { CheckBox: { label: { literalString: 'ok' } } } })]);
    expect(errorCodes(missing.violations)).toEqual(['CLIENTSIM_FIELD_INVALID']);
    expect(missing.wc.threw).toEqual([]);
  });

  it('a non-string key inside a JSON-string adjacency list rejects the message without creating the surface; WC throws a TypeError after creating it', () => {
    const { sim, wc, violations } = runBoth([dm([{ key: 'a', valueString: '[{"key":1,"valueString":"x"}]' }])]);
    expect(errorCodes(violations)).toEqual(['CLIENTSIM_DATA_ENTRY_INVALID']);
    expect(sim.surfaces().size).toBe(0);
    expect(wc.threw).toEqual([0]);
    expect(wc.surfaces.has(S)).toBe(true);
  });

  it('parsed JSON objects are read by own property only; WC would return inherited members such as constructor', () => {
    const stream = [
      su(button('b', 'l', 'go', [{ key: 'c', value: { path: '/obj/constructor' } }, { key: 'x', value: { path: '/obj/x' } }]), text('l', 'Go')),
      dm([{ key: 'obj', valueString: '{"x":1}' }]),
      br('b'),
    ];
    const sim = replay(stream).sim;
    expect(sim.click(S, 'b')).toMatchObject({ ok: true, message: { userAction: { context: { x: 1 } } } });
    const { proc } = runWc(stream);
    expect(proc.getData({ id: 'b', dataContextPath: '/' } as never, '/obj/constructor', S)).toBe(Object);
  });

  it('setValue on an unknown surface is a violation; WC setData silently creates the surface', () => {
    const sim = createClientSim();
    expect(codes(sim.setValue('ghost', '/a', 1))).toEqual(['CLIENTSIM_SURFACE_NOT_FOUND']);
    expect(sim.surfaces().size).toBe(0);
    const proc = new A2uiMessageProcessor();
    proc.setData({ id: 'x', dataContextPath: '/' } as never, '/a', 1, 'ghost');
    expect((proc as unknown as { surfaces: Map<string, unknown> }).surfaces.has('ghost')).toBe(true);
  });

  it('catalogId is kept (outside the hash); WC drops it', () => {
    const catalogId = 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json';
    const { sim, wc } = runBoth([su(text('a', 'x')), br('a', { catalogId })]);
    expect(sim.surface(S)?.catalogId).toBe(catalogId);
    expect(Object.hasOwn(wc.surfaces.get(S)!, 'catalogId')).toBe(false);
    expect(sim.hash(S)).toBe(replay([su(text('a', 'x')), br('a')]).hashes.get(S));
  });

  it('applyAll goes on after a rejected message (like an SSE client, one event at a time); WC processMessages(batch) stops at the first throw', () => {
    const stream = [dm([{ key: 'a', valueNumber: 1 }]), dm([{ key: 'b' }]), dm([{ key: 'c', valueNumber: 3 }], '/c')];
    const sim = createClientSim();
    sim.applyAll(stream);
    const proc = new A2uiMessageProcessor();
    silenceWc(() => expect(() => proc.processMessages(stream as never)).toThrow());
    expect(sim.surface(S)?.dataModel).toEqual({ a: 1, c: { c: 3 } });
    expect(taggedJson((proc as unknown as { surfaces: Map<string, { dataModel: unknown }> }).surfaces.get(S)!.dataModel)).toBe(taggedJson(new Map([['a', 1]])));
  });

  it('a Map in a click context is sent with its entries by default; mapsInContext "empty" gives WC + JSON.stringify\'s {}', () => {
    const stream = [su(column('r', 'b'), button('b', 'l', 'go', [{ key: 'draft', value: { path: '/draft' } }]), text('l', 'Go')), dm([{ key: 'draft', valueMap: [{ key: 'n', valueString: 'A' }] }]), br('r')];
    expect(replay(stream).sim.click(S, 'b')).toMatchObject({ ok: true, message: { userAction: { context: { draft: { n: 'A' } } } } });
    expect(replay(stream, { mapsInContext: 'empty' }).sim.click(S, 'b')).toMatchObject({ ok: true, message: { userAction: { context: { draft: {} } } } });
    const { proc } = runWc(stream);
    expect(JSON.stringify({ draft: proc.getData({ id: 'b', dataContextPath: '/' } as never, '/draft', S) })).toBe('{"draft":{}}');
  });
});
