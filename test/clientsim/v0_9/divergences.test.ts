import { describe, expect, it } from 'vitest';
import { createClientSimV09 } from '../../../src/clientsim/index.ts';
import { BASIC_CATALOG_ID, capturingErrors, feed, newOracle, officialClick } from '../../support/a2ui-v0_9-oracle.ts';
import { runBothV09 } from './compare.ts';

/**
 * Every deliberate difference between ClientSim v0.9 and @a2ui/web_core 0.11's v0.9 processor,
 * each shown against the processor itself (src/clientsim/v0_9/index.ts lists them).
 */
const S = 's';
const create = { version: 'v0.9', createSurface: { surfaceId: S, catalogId: BASIC_CATALOG_ID } };

describe('documented divergences of ClientSim v0.9 from the official processor', () => {
  it('1. a message the envelope schema refuses is not applied; the bare processor applies it', () => {
    for (const message of [{ ...create, note: 1 }, { ...create, version: 'v0.8' }]) {
      const sim = createClientSimV09();
      expect(sim.apply(message).map((v) => v.code)).toEqual(['CLIENTSIM_ENVELOPE_INVALID']);
      expect(sim.state().surfaces.size).toBe(0);
      const bare = newOracle();
      bare.processor.processMessages([message as never]);
      expect(bare.processor.model.getSurface(S)).toBeDefined();
    }
  });

  it('2. a new component without a type rejects the whole message; the processor applies the components before it, then throws', () => {
    const stream = [create, { version: 'v0.9', updateComponents: { surfaceId: S, components: [
      { id: 'root', component: 'Text', text: 'x' }, { id: 'b', component: '', text: 'y' },
    ] } }];
    const { sim, violations, oracle, refused } = runBothV09(stream);
    expect(violations.map((v) => v.code)).toEqual(['CLIENTSIM_COMPONENT_INVALID']);
    expect(sim.state().surfaces.get(S)!.components.size).toBe(0);
    expect(refused).toEqual([1]);
    expect(oracle.processor.model.getSurface(S)!.componentsModel.get('root')).toBeDefined();
  });

  it('3. values are copied in; the processor keeps the message\'s objects and a later change to them reaches its model', () => {
    const value = { list: ['a'] };
    const update = { version: 'v0.9', updateDataModel: { surfaceId: S, value } };
    const sim = createClientSimV09();
    sim.applyAll([create, update]);
    const oracle = newOracle();
    oracle.processor.processMessages([create as never, update as never]);
    value.list.push('b');
    expect(sim.state().surfaces.get(S)!.dataModel).toEqual({ list: ['a'] });
    expect(oracle.processor.model.getSurface(S)!.dataModel.get('/list')).toEqual(['a', 'b']);
  });

  it('4. a click whose action calls a client function is reported, not evaluated; the official renderer sends the result', () => {
    const stream = [create, { version: 'v0.9', updateComponents: { surfaceId: S, components: [
      { id: 'root', component: 'Button', child: 'l', action: { event: { name: 'go', context: { ok: { call: 'required', args: { value: 'x' } } } } } },
      { id: 'l', component: 'Text', text: 'Go' },
    ] } }];
    const sim = createClientSimV09();
    sim.applyAll(stream);
    expect(sim.click(S, 'root')).toMatchObject({ ok: false, violation: { code: 'CLIENTSIM_ACTION_NOT_SENT' } });
    const oracle = newOracle();
    feed(oracle, stream);
    const clicked = capturingErrors(() => officialClick(oracle, S, 'root'));
    expect(clicked.value).toMatchObject({ ok: true, action: { name: 'go', context: { ok: true } } });
  });
});
