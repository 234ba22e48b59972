import fc from 'fast-check';

// Generators of A2UI v0.8 streams that the official web client accepts without throwing:
// every surfaceUpdate is referentially closed and acyclic (a component only references ids
// listed after it in the same message, so no path can ever return to an id), string literals
// never equal a component id (WC F13), valueMap depth ≤ 4 (WC allows 5). Reusable by any suite
// that needs valid streams.

export const ID_POOL = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9'] as const;
export const SURFACE_IDS = ['s1', 's2', 's3'] as const;

export type Message = Record<string, unknown>;

const notAnId = (s: string): boolean => !/^c\d+$/.test(s);
export const textArb = fc.oneof(
  fc.constantFrom('Hello', 'Save', '', 'a b', '42', 'Ünïcode ✓', 'true', '# title', 'x.y'),
  fc.string({ maxLength: 8 }).filter(notAnId),
);
/** Integer-like keys on purpose: insertion order must survive (plain JS objects would reorder). */
export const dataKeyArb = fc.constantFrom('a', 'b', 'name', 'items', 'k1', 'k2', '0', '1', '10', '2', 'flag', 'u.v');
const bindPathArb = fc.constantFrom('/a', '/b', '/name', '/a/b', '/items', 'name', 'a', '.', '/item/name', './name', '/text', '/label', '/items/0', 'a.b', '/k1', '/10');
const bindingArb = fc.constantFrom('/items', '/a', 'items', '/a/b', '/k1', '.', '/name');
const updatePathArb = fc.constantFrom(undefined, '/', '', '.', '/a', 'a', '/a/b', 'a.b', '/items', '/items/k1', 'items[0]', '/items/0', '/name', '/a/b/c', '/a/x', '/b/0', '/items/1/name', '/a/0/x');
const jsonishArb = fc.constantFrom('["p","q"]', '[]', '{"x":1,"0":2}', '[oops]', '[{"key":"z","valueString":"w"}]', '[1,2,3]', ' [1] ', '{}', '[[1,2],[3]]');

const primitiveValueArb: fc.Arbitrary<Message> = fc.oneof(
  { weight: 4, arbitrary: textArb.map((valueString) => ({ valueString })) },
  { weight: 2, arbitrary: jsonishArb.map((valueString) => ({ valueString })) },
  { weight: 2, arbitrary: fc.oneof(fc.integer({ min: -100, max: 100 }), fc.double({ noNaN: true, noDefaultInfinity: true })).map((valueNumber) => ({ valueNumber })) },
  { weight: 2, arbitrary: fc.boolean().map((valueBoolean) => ({ valueBoolean })) },
);

function entryArb(depth: number): fc.Arbitrary<Message> {
  const leaf = fc.tuple(dataKeyArb, primitiveValueArb).map(([key, value]) => ({ key, ...value }));
  if (depth >= 4) return leaf;
  const map = fc.tuple(dataKeyArb, fc.array(entryArb(depth + 1), { maxLength: 3 })).map(([key, valueMap]) => ({ key, valueMap }));
  return fc.oneof({ weight: 3, arbitrary: leaf }, { weight: 1, arbitrary: map });
}

/** A list-shaped map under `items` (what templates iterate), items keyed by integer-like or word keys. */
const itemsEntryArb: fc.Arbitrary<Message> = fc.array(
  fc.tuple(fc.constantFrom('0', '1', '10', '2', 'k1', 'k2'), fc.array(entryArb(3), { maxLength: 3 })).map(([key, valueMap]) => ({ key, valueMap })),
  { maxLength: 4 },
).map((valueMap) => ({ key: 'items', valueMap }));

export const contentsArb: fc.Arbitrary<Message[]> = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: entryArb(1) }, { weight: 1, arbitrary: itemsEntryArb }), { maxLength: 5 }) },
  // WC's `.` leaf-set convention (F3).
  { weight: 1, arbitrary: fc.oneof(primitiveValueArb, fc.array(entryArb(2), { maxLength: 3 }).map((valueMap) => ({ valueMap }))).map((v) => [{ key: '.', ...v }]) },
);

const seedArb = fc.record({
  // Containers weigh as much as leaves, so rendered trees get deep enough to matter.
  type: fc.oneof(
    fc.constantFrom('Column', 'Row', 'List', 'Card', 'Button', 'Tabs', 'Modal'),
    fc.constantFrom('Text', 'TextField', 'CheckBox', 'Slider', 'DateTimeInput', 'MultipleChoice', 'Divider', 'Image', 'Icon'),
  ),
  picks: fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 3 }),
  text: textArb,
  path: bindPathArb,
  bound: fc.boolean(),
  template: fc.boolean(),
  binding: bindingArb,
  weight: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  flag: fc.boolean(),
  num: fc.integer({ min: -5, max: 100 }),
  context: fc.array(fc.tuple(fc.constantFrom('k', 'n', 'z', 'name'), fc.oneof(
    bindPathArb.map((path) => ({ path })),
    textArb.map((literalString) => ({ literalString })),
    fc.integer({ min: -1, max: 2 }).map((literalNumber) => ({ literalNumber })),
    fc.boolean().map((literalBoolean) => ({ literalBoolean })),
  )).map(([key, value]) => ({ key, value })), { maxLength: 4 }),
  name: fc.constantFrom('submit', 'go', 'open'),
  hint: fc.option(fc.constantFrom('h1', 'body', 'caption'), { nil: undefined }),
});
type Seed = typeof seedArb extends fc.Arbitrary<infer T> ? T : never;

const CONTAINERS = new Set(['Column', 'Row', 'List', 'Card', 'Button', 'Tabs', 'Modal']);

function buildProps(seed: Seed, later: readonly string[]): [string, Message] {
  const str = seed.bound ? { path: seed.path } : { literalString: seed.text };
  const ref = (k: number): string => later[seed.picks[k % seed.picks.length]! % later.length]!;
  const type = CONTAINERS.has(seed.type) && later.length === 0 ? 'Text' : seed.type;
  switch (type) {
    case 'Column': case 'Row': case 'List':
      return [type, { children: seed.template ? { template: { componentId: ref(0), dataBinding: seed.binding } } : { explicitList: seed.picks.map((_, k) => ref(k)) } }];
    case 'Card': return [type, { child: ref(0) }];
    case 'Button': return [type, { child: ref(0), primary: seed.flag, action: seed.context.length > 0 ? { name: seed.name, context: seed.context } : { name: seed.name } }];
    case 'Modal': return [type, { entryPointChild: ref(0), contentChild: ref(1) }];
    case 'Tabs': return [type, { tabItems: seed.picks.map((_, k) => ({ title: str, child: ref(k) })) }];
    case 'TextField': return [type, { label: { literalString: seed.text }, text: { path: seed.path } }];
    case 'CheckBox': return [type, { label: str, value: seed.bound ? { path: seed.path } : { literalBoolean: seed.flag } }];
    case 'Slider': return [type, { value: seed.bound ? { path: seed.path } : { literalNumber: seed.num }, minValue: 0, maxValue: 100 }];
    case 'DateTimeInput': return [type, { value: str, enableDate: seed.flag }];
    case 'MultipleChoice': return [type, { selections: seed.bound ? { path: seed.path } : { literalArray: [seed.text] }, options: [{ label: { literalString: seed.text }, value: 'opt1' }] }];
    case 'Divider': return [type, { axis: seed.flag ? 'vertical' : 'horizontal' }];
    case 'Image': return [type, { url: str }];
    case 'Icon': return [type, { name: { literalString: 'home' } }];
    default: return ['Text', seed.hint === undefined ? { text: str } : { text: str, usageHint: seed.hint }];
  }
}

/**
 * A closed, acyclic surfaceUpdate; its first component can reach all the others. `rootList`
 * makes that first component a Column/List (explicit children or a template over `/items`),
 * so a root built from it renders a real tree.
 */
export function surfaceUpdateArb(surfaceId: string, options: { minComponents?: number; rootList?: boolean } = {}): fc.Arbitrary<Message> {
  const rootSeed = seedArb.chain((seed) => fc.constantFrom('Column', 'List').map((type) => ({ ...seed, type, binding: seed.flag ? '/items' : seed.binding })));
  return fc.tuple(
    fc.shuffledSubarray([...ID_POOL], { minLength: options.minComponents ?? 1, maxLength: 7 }),
    fc.array(seedArb, { minLength: 7, maxLength: 7 }),
    rootSeed,
  )
    .map(([ids, seeds, first]) => ({
      surfaceUpdate: {
        surfaceId,
        components: ids.map((id, i) => {
          const seed = i === 0 && options.rootList === true ? first : seeds[i]!;
          const [type, props] = buildProps(seed, ids.slice(i + 1));
          return seed.weight === undefined ? { id, component: { [type]: props } } : { id, weight: seed.weight, component: { [type]: props } };
        }),
      },
    }));
}

export function dataModelUpdateArb(surfaceId: string): fc.Arbitrary<Message> {
  return fc.tuple(updatePathArb, contentsArb).map(([path, contents]) => ({
    dataModelUpdate: path === undefined ? { surfaceId, contents } : { surfaceId, path, contents },
  }));
}

const stylesArb = fc.option(fc.record({ font: fc.constantFrom('Roboto', 'serif'), primaryColor: fc.constantFrom('#00BFFF', '#123abc') }, { requiredKeys: [] }), { nil: undefined });
const catalogArb = fc.option(fc.constant('https://a2ui.org/specification/v0_8/standard_catalog_definition.json'), { nil: undefined });

export function beginRenderingArb(surfaceId: string, root: fc.Arbitrary<string> = fc.constantFrom(...ID_POOL)): fc.Arbitrary<Message> {
  return fc.tuple(root, stylesArb, catalogArb).map(([r, styles, catalogId]) => ({
    beginRendering: { surfaceId, root: r, ...(styles === undefined ? {} : { styles }), ...(catalogId === undefined ? {} : { catalogId }) },
  }));
}

export function messageArb(surfaceIds: readonly string[] = SURFACE_IDS): fc.Arbitrary<Message> {
  return fc.constantFrom(...surfaceIds).chain((s) => fc.oneof(
    { weight: 4, arbitrary: surfaceUpdateArb(s) },
    { weight: 4, arbitrary: dataModelUpdateArb(s) },
    { weight: 2, arbitrary: beginRenderingArb(s) },
    { weight: 1, arbitrary: fc.constant({ deleteSurface: { surfaceId: s } }) },
  ));
}

/** Any interleaving of valid messages over a few surfaces (roots may be missing, order arbitrary). */
export function validStreamArb(options: { surfaceIds?: readonly string[]; maxLength?: number } = {}): fc.Arbitrary<Message[]> {
  return fc.array(messageArb(options.surfaceIds), { maxLength: options.maxLength ?? 14 });
}

/** The compiler's safe order per surface (surfaceUpdate → dataModelUpdate → beginRendering), then a valid tail. */
export function wellFormedStreamArb(options: { surfaceIds?: readonly string[]; tailLength?: number } = {}): fc.Arbitrary<Message[]> {
  const surfaceIds = options.surfaceIds ?? ['s1', 's2'];
  const openings = surfaceIds.map((s) => surfaceUpdateArb(s, { minComponents: 3, rootList: true }).chain((su) => {
    const root = ((su['surfaceUpdate'] as Message)['components'] as Array<{ id: string }>)[0]!.id;
    return fc.tuple(dataModelUpdateArb(s), beginRenderingArb(s, fc.constant(root))).map(([dm, br]) => [su, dm, br]);
  }));
  return fc.tuple(fc.tuple(...openings), fc.array(messageArb(surfaceIds), { maxLength: options.tailLength ?? 8 }))
    .map(([heads, tail]) => [...heads.flat(), ...tail]);
}
