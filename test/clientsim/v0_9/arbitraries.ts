import fc from 'fast-check';
import { BASIC_CATALOG_ID } from '../../support/a2ui-v0_9-oracle.ts';

/**
 * Raw v0.9 streams for differential tests: mostly well-formed, often wrong in the ways that
 * matter (unknown surfaces, repeated createSurface, refs to ids not yet defined, cycles,
 * templates over data that is or is not a list, writes through primitives, prototype names,
 * invalid properties, envelopes the schema refuses).
 */
const SURFACES = ['s1', 's2'] as const;
const IDS = ['root', 'a', 'b', 'c', 'item'] as const;
const DATA_PATHS = ['/', '', '/items', '/items/0', '/items/1', '/items/0/name', '/a', '/a/b', '/a/0', 'rel', '/n/0/x', '/items/x', '/__proto__/x', '/a~1b'];
const BIND_PATHS = ['name', '/a', '/a/b', '/items/0/name', '.', '/items'];

const id = fc.constantFrom(...IDS);
const binding = fc.constantFrom(...BIND_PATHS).map((path) => ({ path }));
const text = fc.oneof(fc.constantFrom('hello', 'root', '[1]', '*x*'), binding);

const leaf = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 3 }), fc.boolean());
const value: fc.Arbitrary<unknown> = fc.oneof(
  leaf,
  fc.array(fc.record({ name: leaf }), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('a', 'b', 'items', 'name', '0'), fc.oneof(leaf, fc.array(leaf, { maxLength: 2 })), { maxKeys: 3 }),
  fc.record({ items: fc.array(fc.record({ name: leaf }), { maxLength: 3 }), a: fc.oneof(leaf, fc.record({ b: leaf })) }),
);

const children = fc.oneof(
  fc.array(id, { maxLength: 3 }),
  fc.record({ componentId: id, path: fc.constantFrom('/items', 'items', '/a', '/missing') }),
);

const PROPS: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  Text: fc.record({ text, variant: fc.constantFrom('h1', 'body', 'caption') }, { requiredKeys: ['text'] }),
  Column: fc.record({ children, align: fc.constantFrom('start', 'stretch') }, { requiredKeys: ['children'] }),
  Row: fc.record({ children, justify: fc.constantFrom('end', 'start') }, { requiredKeys: ['children'] }),
  List: fc.record({ children }),
  Card: fc.record({ child: id }),
  Modal: fc.record({ trigger: id, content: id }),
  Tabs: fc.record({ tabs: fc.array(fc.record({ title: text, child: id }), { minLength: 1, maxLength: 2 }) }),
  Button: fc.record({
    child: id,
    action: fc.record({ event: fc.record({ name: fc.constant('go'), context: fc.dictionary(fc.constantFrom('x', 'y'), fc.oneof(binding, leaf), { maxKeys: 2 }) }) }),
  }, { requiredKeys: ['child'] }),
  TextField: fc.record({ label: text, value: binding }, { requiredKeys: ['label'] }),
  CheckBox: fc.record({ label: text, value: fc.oneof(binding, fc.boolean()) }),
  Slider: fc.record({ max: fc.integer({ min: 1, max: 9 }), value: fc.oneof(binding, fc.integer()) }),
  Divider: fc.constant({}),
  Bogus: fc.record({ anything: leaf }),
};

const component = fc.constantFrom(...Object.keys(PROPS)).chain((type) => fc.record({
  id: fc.oneof({ weight: 12, arbitrary: id }, { weight: 1, arbitrary: fc.constant('') }),
  type: fc.oneof({ weight: 12, arbitrary: fc.constant(type) }, { weight: 1, arbitrary: fc.constantFrom('', 'Column') }),
  props: PROPS[type]!,
  tint: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
})).map(({ id: cid, type, props, tint }) => ({ id: cid, component: type, ...props, ...(tint ? { tint: 'red' } : {}) }));

const surfaceId = fc.constantFrom(...SURFACES);

const body: fc.Arbitrary<[string, Record<string, unknown>]> = fc.oneof(
  { weight: 2, arbitrary: fc.record({
    surfaceId, catalogId: fc.oneof({ weight: 6, arbitrary: fc.constant(BASIC_CATALOG_ID) }, { weight: 1, arbitrary: fc.constant('urn:other') }),
    sendDataModel: fc.boolean(), theme: fc.record({ primaryColor: fc.constantFrom('#112233', 'red') }),
  }, { requiredKeys: ['surfaceId', 'catalogId'] }).map((b): [string, Record<string, unknown>] => ['createSurface', b]) },
  { weight: 1, arbitrary: fc.record({ surfaceId }).map((b): [string, Record<string, unknown>] => ['deleteSurface', b]) },
  { weight: 5, arbitrary: fc.record({ surfaceId, components: fc.array(component, { minLength: 1, maxLength: 4 }) }).map((b): [string, Record<string, unknown>] => ['updateComponents', b]) },
  { weight: 4, arbitrary: fc.record({ surfaceId, path: fc.constantFrom(...DATA_PATHS), value }, { requiredKeys: ['surfaceId'] }).map((b): [string, Record<string, unknown>] => ['updateDataModel', b]) },
);

const message = fc.tuple(body, fc.oneof({ weight: 20, arbitrary: fc.constant('ok') }, { weight: 1, arbitrary: fc.constantFrom('v0.8', 'extra') }))
  .map(([[kind, b], shape]) => ({
    version: shape === 'v0.8' ? 'v0.8' : 'v0.9',
    [kind]: b,
    ...(shape === 'extra' ? { extra: true } : {}),
  }));

export const rawStreamArb: fc.Arbitrary<unknown[]> = fc.tuple(
  fc.constant({ version: 'v0.9', createSurface: { surfaceId: 's1', catalogId: BASIC_CATALOG_ID } }),
  fc.array(message, { maxLength: 12 }),
).map(([first, rest]) => [first, ...rest]);
