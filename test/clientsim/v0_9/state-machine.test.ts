import { describe, expect, it } from 'vitest';
import { createClientSimV09, type ViolationV09 } from '../../../src/clientsim/index.ts';
import { BASIC_CATALOG_ID } from '../../support/a2ui-v0_9-oracle.ts';
import { runBothV09 } from './compare.ts';

const S = 's';
const v = (body: Record<string, unknown>): Record<string, unknown> => ({ version: 'v0.9', ...body });
const create = v({ createSurface: { surfaceId: S, catalogId: BASIC_CATALOG_ID } });
const components = (...list: Record<string, unknown>[]): Record<string, unknown> => v({ updateComponents: { surfaceId: S, components: list } });
const data = (path: string | undefined, value?: unknown): Record<string, unknown> =>
  v({ updateDataModel: { surfaceId: S, ...(path === undefined ? {} : { path }), ...(value === undefined ? {} : { value }) } });
const codes = (vs: readonly ViolationV09[]): string[] => vs.map((x) => x.code);

describe('ClientSim v0.9 state machine (each case also run on the official processor)', () => {
  it.each([
    ['an update before createSurface', [components({ id: 'root', component: 'Text', text: 'x' })], ['CLIENTSIM_SURFACE_NOT_FOUND']],
    ['a second createSurface', [create, create], ['CLIENTSIM_SURFACE_EXISTS']],
    ['an unknown catalogue', [v({ createSurface: { surfaceId: S, catalogId: 'urn:x' } })], ['CLIENTSIM_CATALOG_UNKNOWN']],
    ['a component without id', [create, components({ component: 'Text', text: 'x' })], ['CLIENTSIM_ID_MISSING']],
    ['properties the catalogue refuses', [create, components({ id: 'root', component: 'Text', text: 'x', tint: 'red' })], ['CLIENTSIM_COMPONENT_INVALID']],
    ['a write through a primitive', [create, data('/a', 1), data('/a/b', 2)], ['CLIENTSIM_DATA_WRITE_REFUSED']],
    ['a non-index on an array', [create, data('/a', [1]), data('/a/x', 2)], ['CLIENTSIM_DATA_WRITE_REFUSED']],
    ['a prototype name in a path', [create, data('/constructor/x', 2)], ['CLIENTSIM_DATA_WRITE_REFUSED']],
    ['a message that is not an object', [create, 'x'], ['CLIENTSIM_NOT_AN_OBJECT']],
  ])('%s is refused, by both', (_name, stream, expected) => {
    const { violations, refused } = runBothV09(stream);
    expect(codes(violations)).toEqual(expected);
    expect(refused).toEqual([stream.length - 1]);
  });

  it('applies like the processor, with notes: unknown types, a type change, a repeated id', () => {
    const { sim, violations, refused } = runBothV09([
      create,
      components({ id: 'root', component: 'Fancy', x: 1 }),
      components({ id: 'root', component: 'Text', text: 'a' }, { id: 'root', component: 'Text', text: 'b' }),
    ]);
    expect(refused).toEqual([]);
    expect(codes(violations)).toEqual(['CLIENTSIM_UNKNOWN_COMPONENT_TYPE', 'CLIENTSIM_TYPE_CHANGED', 'CLIENTSIM_DUPLICATE_ID']);
    expect(sim.state().surfaces.get(S)!.components.get('root')).toEqual({ id: 'root', type: 'Text', properties: { text: 'b' } });
  });

  it('end of stream: no root renders nothing; refs never defined and cycles leave placeholders', () => {
    const noRoot = createClientSimV09();
    noRoot.applyAll([create, components({ id: 'a', component: 'Text', text: 'x' })]);
    expect(codes(noRoot.endOfStream())).toEqual(['CLIENTSIM_ROOT_MISSING']);
    const broken = createClientSimV09();
    broken.applyAll([create, components({ id: 'root', component: 'Column', children: ['ghost', 'loop'] }, { id: 'loop', component: 'Card', child: 'root' })]);
    expect(codes(broken.endOfStream())).toEqual(['CLIENTSIM_DANGLING_REFERENCE', 'CLIENTSIM_CYCLE']);
    expect(broken.surface(S)!.tree.nodes.map((n) => `${n.id}:${n.state}`)).toEqual(['root:resolved', 'ghost:pending', 'loop:resolved', 'root:cyclic']);
  });

  it('deleteSurface removes, and the id can be created again', () => {
    const sim = createClientSimV09();
    expect(sim.applyAll([create, v({ deleteSurface: { surfaceId: S } }), v({ deleteSurface: { surfaceId: 'other' } }), create])).toEqual([]);
    expect([...sim.state().surfaces.keys()]).toEqual([S]);
  });

  it('a user: inputs take what their renderer writes; clicks need a rendered Button', () => {
    const sim = createClientSimV09();
    sim.applyAll([create, components(
      { id: 'root', component: 'Column', children: ['t', 'c', 'x', 'b'] },
      { id: 't', component: 'TextField', label: 'T', value: { path: '/t' } },
      { id: 'c', component: 'CheckBox', label: 'C', value: true },
      { id: 'x', component: 'Text', text: 'x' },
      { id: 'b', component: 'Button', child: 'x' },
    )]);
    expect(codes(sim.input(S, 't', 3))).toEqual(['CLIENTSIM_INPUT_TYPE']);
    expect(sim.input(S, 't', 'ok')).toEqual([]);
    expect(sim.state().surfaces.get(S)!.dataModel).toEqual({ t: 'ok' });
    expect(codes(sim.input(S, 'c', true))).toEqual(['CLIENTSIM_INPUT_NOT_BOUND']);
    expect(codes(sim.input(S, 'x', 'a'))).toEqual(['CLIENTSIM_NOT_INTERACTIVE']);
    expect(codes(sim.input(S, 'nope', 'a'))).toEqual(['CLIENTSIM_NOT_RENDERED']);
    expect(sim.click(S, 'b')).toMatchObject({ ok: false, violation: { code: 'CLIENTSIM_NOT_INTERACTIVE' } });
    expect(codes(sim.setValue('ghost', '/a', 1))).toEqual(['CLIENTSIM_SURFACE_NOT_FOUND']);
  });
});
