import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Action, BASIC_COMPONENT_TYPES, ChildList, compileSchemaPredicate, DynamicStringList, DynamicValue, FunctionCall,
} from '../../src/a2ui-v0_9-protocol/index.ts';
import { compileConversationToA2uiV09 } from '../../src/compiler/index.ts';
import { ACCEPTS, COMPONENT_SCHEMAS } from '../../src/compiler/a2ui-v0_9/validate-component.ts';
import { officialExamples } from '../support/a2ui-v0_9-examples.ts';
import { arbConversationIr } from '../support/arbitraries-ir.ts';

/**
 * The compiled schema predicates the v0.9 validator runs before zod: a predicate that says
 * `true` where zod refuses would let an invalid component through, so it is held to zod — equal
 * verdicts on JSON (every official example's components and compiled ones, mutated at any
 * place), and never `true` where zod says no on any JavaScript value (prototypes, sparse
 * arrays, boxed values, `__proto__` keys, NaN…).
 */
type Msg = Record<string, unknown>;

function componentsOf(messages: readonly unknown[]): Msg[] {
  return messages.flatMap((m) => ((m as { updateComponents?: { components: Msg[] } }).updateComponents?.components ?? []));
}

const compiled: Msg[] = fc.sample(arbConversationIr, { numRuns: 30, seed: 13 }).flatMap((ir) => {
  const result = compileConversationToA2uiV09(ir);
  return result.ok ? result.batches.flatMap((b) => componentsOf(b.messages)) : [];
});
const BASES: Msg[] = [...officialExamples().flatMap((ex) => componentsOf(ex.messages)), ...compiled];

/** Every place a mutation can land: each existing key or index, and a new key in each object. */
function places(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const out: (string | number)[][] = [];
  if (!Array.isArray(value)) out.push([...at, 'extra']);
  for (const [k, v] of Object.entries(value)) {
    const key = Array.isArray(value) ? Number(k) : k;
    out.push([...at, key], ...places(v, [...at, key]));
  }
  return out;
}

function mutate(base: Msg, place: (string | number)[], value: unknown): Msg {
  const copy = structuredClone(base);
  let target = copy as Record<string | number, unknown>;
  for (const key of place.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  const last = place[place.length - 1]!;
  if (value === undefined && !Array.isArray(target)) delete target[last];
  else target[last] = value;
  return copy;
}

const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('', 'root', 'primary', 'h1', 'body', 'shortText', 'mutuallyExclusive', 'send', 'required', '/draft/x', 'x'),
  fc.jsonValue({ maxDepth: 2 }),
  fc.record({ path: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()) }, { requiredKeys: [] }),
  fc.record({ call: fc.constantFrom('required', 'add'), args: fc.oneof(fc.dictionary(fc.string({ maxLength: 2 }), fc.jsonValue({ maxDepth: 1 })), fc.array(fc.integer())) }),
);

const mutated: fc.Arbitrary<Msg> = fc.constantFrom(...BASES).chain((base) => {
  const all = places(base);
  return fc.tuple(fc.constantFrom(...all), jsonish).map(([place, value]) => mutate(base, place, value));
});

const zodAccepts = (schema: z.ZodType, value: unknown): boolean => schema.safeParse(value).success;
const TYPES = fc.constantFrom(...BASIC_COMPONENT_TYPES);
const PROTOCOL: Record<string, z.ZodType> = { Action, ChildList, DynamicStringList, DynamicValue, FunctionCall };

describe('compiled schema predicates against zod', () => {
  it('every component schema of the v0.9 validator, and the protocol unions, compile to a predicate', () => {
    expect(BASIC_COMPONENT_TYPES.filter((type) => ACCEPTS[type] === undefined)).toEqual([]);
    for (const [name, schema] of Object.entries(PROTOCOL)) expect(compileSchemaPredicate(schema), name).toBeTypeOf('function');
    // The bases are the official examples' and the compiler's components: all valid, all taken by the fast path.
    expect(BASES.length).toBeGreaterThan(300);
    for (const c of BASES) expect(ACCEPTS[c.component as keyof typeof ACCEPTS]!(c), JSON.stringify(c)).toBe(true);
  });

  it('what the predicate does not model is left to zod (no predicate)', () => {
    for (const schema of [
      z.string().min(1), z.number().int(), z.string().transform((s) => s.length), z.lazy(() => z.string()), z.object({ a: z.string() }).refine(() => true),
      z.looseObject({ a: z.string() }), z.record(z.enum(['a']), z.string()), z.object({ toString: z.string() }), z.date(), z.nullable(z.string()),
    ] as z.ZodType[]) {
      expect(compileSchemaPredicate(schema)).toBeUndefined();
    }
  });

  it('same verdict as zod on mutated official and compiled components, under their own and any other type (5,000 runs)', () => {
    const verdicts = { true: 0, false: 0 };
    fc.assert(fc.property(mutated, TYPES, (c, other) => {
      for (const type of [c.component, other]) {
        if (typeof type !== 'string' || !Object.hasOwn(COMPONENT_SCHEMAS, type)) continue;
        const t = type as keyof typeof COMPONENT_SCHEMAS;
        const verdict = zodAccepts(COMPONENT_SCHEMAS[t], c);
        verdicts[`${verdict}`] += 1;
        expect(ACCEPTS[t]!(c), `${t} ${JSON.stringify(c)}`).toBe(verdict);
      }
    }), { numRuns: 5000 });
    // Both verdicts are exercised, not just one.
    expect(verdicts.true).toBeGreaterThan(1000);
    expect(verdicts.false).toBeGreaterThan(1000);
  });

  it('never true where zod says no, on any JavaScript value (3,000 runs)', () => {
    const anything = fc.anything({
      maxDepth: 3, withNullPrototype: true, withBoxedValues: true, withSparseArray: true, withObjectString: true, withMap: true, withSet: true,
      key: fc.constantFrom('id', 'component', 'text', 'child', 'children', 'path', 'call', 'args', 'event', 'name', 'context', '__proto__', 'constructor', 'x'),
    });
    const candidate = fc.oneof(
      anything,
      // A valid component seen through a prototype, or with an exotic value anywhere in it.
      mutated.map((c) => Object.create(c) as unknown),
      fc.constantFrom(...BASES).chain((base) => fc.tuple(fc.constantFrom(...places(base)), anything).map(([place, value]) => mutate(base, place, value))),
    );
    const protocol = Object.entries(PROTOCOL).map(([name, schema]) => ({ name, schema, accepts: compileSchemaPredicate(schema)! }));
    fc.assert(fc.property(candidate, TYPES, (value, type) => {
      if (ACCEPTS[type]!(value)) expect(zodAccepts(COMPONENT_SCHEMAS[type], value), `${type} ${fc.stringify(value)}`).toBe(true);
      for (const p of protocol) if (p.accepts(value)) expect(zodAccepts(p.schema, value), `${p.name} ${fc.stringify(value)}`).toBe(true);
    }), { numRuns: 3000 });
  });
});
