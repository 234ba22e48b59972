import {
  A2uiClientMessageSchema, A2uiMessageSchema, BASIC_COMPONENTS, BASIC_FUNCTIONS, DynamicValueSchema,
} from '@a2ui/web_core/v0_9';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BASIC_COMPONENT_SCHEMAS, BASIC_COMPONENT_TYPES, BASIC_FUNCTION_NAMES, ClientMessage, ICON_NAMES, isDynamicValue, ServerMessage,
} from '../../src/a2ui-v0_9-protocol/index.ts';
import { officialExamples } from '../support/a2ui-v0_9-examples.ts';

/**
 * Our zod 4 description of v0.9 against the package's own zod 3 schemas: the same catalogue, and
 * the same accept/reject decision on the official examples and on generated, mostly-wrong input.
 */
const official = new Map(BASIC_COMPONENTS.map((api) => [api.name, api.schema]));

function split(component: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, component: _type, ...props } = component;
  return props;
}

const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 6 }), fc.constantFrom('h1', 'body', 'primary', 'contain', 'scaleDown', 'shortText', 'multipleSelection',
    'chips', 'vertical', 'start', 'spaceBetween', 'stretch', 'ordered', 'horizontal', 'mutuallyExclusive', ...ICON_NAMES.slice(0, 4)),
  fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  fc.record({ path: fc.string({ maxLength: 5 }) }),
  fc.record({ path: fc.string({ maxLength: 5 }), extra: fc.integer() }),
  fc.record({ call: fc.constantFrom('required', 'email', 'nope'), args: fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }) }),
  fc.record({ call: fc.string({ maxLength: 3 }), args: fc.constant({}), returnType: fc.constantFrom('boolean', 'string', 'bogus') }),
  fc.record({ componentId: fc.string({ maxLength: 3 }), path: fc.string({ maxLength: 3 }) }),
  fc.record({ event: fc.record({ name: fc.string({ maxLength: 3 }), context: fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(fc.string(), fc.integer(), fc.record({ path: fc.string() }))) }, { requiredKeys: ['name'] }) }),
  fc.record({ functionCall: fc.record({ call: fc.string({ maxLength: 3 }), args: fc.constant({}) }) }),
  fc.array(fc.record({ title: fc.string({ maxLength: 3 }), child: fc.string({ maxLength: 3 }) }, { requiredKeys: [] }), { maxLength: 2 }),
  fc.array(fc.record({ label: fc.string({ maxLength: 3 }), value: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()) }, { requiredKeys: [] }), { maxLength: 2 }),
  fc.array(fc.record({ condition: fc.oneof(fc.boolean(), fc.record({ path: fc.string() })), message: fc.string({ maxLength: 3 }) }, { requiredKeys: [] }), { maxLength: 2 }),
  fc.record({ label: fc.oneof(fc.string(), fc.integer()), description: fc.string() }, { requiredKeys: [] }),
  fc.record({ svgPath: fc.string({ maxLength: 3 }) }),
);

/** Props for `type`: mostly its own keys (some left out), now and then a stranger. */
function propsFor(type: string): fc.Arbitrary<Record<string, unknown>> {
  const keys = [...Object.keys(BASIC_COMPONENT_SCHEMAS[type as keyof typeof BASIC_COMPONENT_SCHEMAS].shape), 'tint'];
  return fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length });
}

describe('src/a2ui-v0_9-protocol against @a2ui/web_core/v0_9', () => {
  it('has the package\'s 18 component types and its function names', () => {
    expect([...BASIC_COMPONENT_TYPES].sort()).toEqual([...official.keys()].sort());
    expect([...BASIC_FUNCTION_NAMES].sort()).toEqual(BASIC_FUNCTIONS.map((f) => f.name).sort());
  });

  it('accepts every component and message of the 43 official examples, as the package does', () => {
    const examples = officialExamples();
    expect(examples).toHaveLength(43);
    for (const { name, messages } of examples) {
      for (const m of messages) {
        expect(A2uiMessageSchema.safeParse(m).success, name).toBe(true);
        expect(ServerMessage.safeParse(m).success, `${name}: ${JSON.stringify(m).slice(0, 200)}`).toBe(true);
        const body = (m as { updateComponents?: { components: Record<string, unknown>[] } }).updateComponents;
        for (const c of body?.components ?? []) {
          const type = c.component as keyof typeof BASIC_COMPONENT_SCHEMAS;
          expect(BASIC_COMPONENT_SCHEMAS[type].safeParse(split(c)).success, `${name} ${String(c.id)}`).toBe(true);
        }
      }
    }
  });

  it('decides like the package on generated component properties (3,000 runs)', () => {
    const arb = fc.constantFrom(...BASIC_COMPONENT_TYPES).chain((type) => fc.tuple(fc.constant(type), propsFor(type)));
    fc.assert(fc.property(arb, ([type, props]) => {
      const theirs = official.get(type)!.safeParse(props).success;
      const ours = BASIC_COMPONENT_SCHEMAS[type].safeParse(props).success;
      expect(ours, `${type} ${JSON.stringify(props)}`).toBe(theirs);
    }), { numRuns: 3000 });
  });

  // JSON values only: a wire value cannot be Infinity, which zod 3 numbers take and zod 4 ones refuse.
  it('isDynamicValue (the validator\'s fast check of context values) decides like the package\'s DynamicValue on JSON values (3,000 runs)', () => {
    fc.assert(fc.property(fc.oneof(value, fc.jsonValue()), (v) => {
      expect(isDynamicValue(v), JSON.stringify(v)).toBe(DynamicValueSchema.safeParse(v).success);
    }), { numRuns: 3000 });
  });

  it('decides like the package on generated envelopes, both directions (2,000 runs)', () => {
    const version = fc.constantFrom('v0.9', 'v0.9.1', 'v0.8', undefined);
    const body = fc.dictionary(fc.constantFrom('surfaceId', 'catalogId', 'theme', 'sendDataModel', 'components', 'path', 'value', 'extra'),
      fc.oneof(fc.string({ maxLength: 4 }), fc.boolean(), fc.constant([]), fc.constant([{ id: 'root', component: 'Text', text: 'x' }]),
        fc.constant([{ id: 'a' }]), fc.constant({ primaryColor: '#000000' }), fc.integer()));
    const server = fc.record({ version, kind: fc.constantFrom('createSurface', 'updateComponents', 'updateDataModel', 'deleteSurface', 'other'), body, extra: fc.boolean() })
      .map(({ version: v, kind, body: b, extra }) => ({ ...(v === undefined ? {} : { version: v }), [kind]: b, ...(extra ? { more: 1 } : {}) }));
    const action = fc.record({
      name: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), surfaceId: fc.string({ maxLength: 3 }), sourceComponentId: fc.string({ maxLength: 3 }),
      timestamp: fc.constantFrom('1970-01-01T00:00:00.000Z', '2026-01-01T10:00:00+02:00', 'yesterday'),
      context: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), fc.integer()), fc.constant([]), fc.constant('x')),
      extra: fc.integer(),
    }, { requiredKeys: [] });
    const error = fc.record({
      code: fc.constantFrom('VALIDATION_FAILED', 'OTHER', 7), surfaceId: fc.string({ maxLength: 3 }), path: fc.constantFrom('/a', 3),
      message: fc.string({ maxLength: 3 }), extra: fc.integer(),
    }, { requiredKeys: [] });
    const client = fc.record({ version, action: fc.option(action, { nil: undefined }), error: fc.option(error, { nil: undefined }) }, { requiredKeys: [] });
    fc.assert(fc.property(server, client, (s, c) => {
      expect(ServerMessage.safeParse(s).success, JSON.stringify(s)).toBe(A2uiMessageSchema.safeParse(s).success);
      expect(ClientMessage.safeParse(c).success, JSON.stringify(c)).toBe(A2uiClientMessageSchema.safeParse(c).success);
    }), { numRuns: 2000 });
  });
});
