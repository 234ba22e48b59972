import type { z } from 'zod';

/**
 * A zod schema compiled once into a plain predicate for the hot path of the v0.9 validator: it
 * answers `true` only where zod's parse surely succeeds, and `false` for everything else,
 * including what it does not model (then the caller asks zod, which stays the judge and the
 * source of the findings). The predicate is read off the schema, so the catalogue is still
 * described once.
 *
 * Why: a generic zod parse allocates a result object per property and per union branch; the
 * validator checks every component of every outgoing batch, and on a 1,000-field form that parse
 * was a quarter of the compile time. `test/a2ui-v0_9-protocol/schema-predicate.test.ts` holds
 * every compiled predicate to zod on generated and mutated components.
 *
 * Modelled (zod 4 semantics, where the predicate may only be stricter): string, number (finite),
 * boolean, any/unknown, enum and literal of primitives, optional, array (with min/max length),
 * union, object (strip or strict) and record with string keys, both only over plain objects with
 * own data keys. Anything else (refinements, transforms, other checks) makes the schema
 * unmodelled: `compileSchemaPredicate` returns undefined, and the caller always asks zod.
 */
export type SchemaPredicate = (value: unknown) => boolean;

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** A plain data object: what JSON.parse and object literals make (zod's object and record checks pass). */
function isPlainData(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const OBJECT_PROTO_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

function lengthBounds(def: Def): { min: number; max: number } | undefined {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const check of (def.checks as { _zod: { def: { check: string; minimum?: number; maximum?: number } } }[] | undefined) ?? []) {
    const c = check._zod.def;
    if (c.check === 'min_length' && typeof c.minimum === 'number') min = Math.max(min, c.minimum);
    else if (c.check === 'max_length' && typeof c.maximum === 'number') max = Math.min(max, c.maximum);
    else return undefined;
  }
  return { min, max };
}

const hasChecks = (def: Def): boolean => Array.isArray(def.checks) && def.checks.length > 0;

function compile(schema: unknown): SchemaPredicate | undefined {
  const def = defOf(schema);
  // Only arrays model checks (length bounds); a check anywhere else leaves the schema to zod.
  if (def.type !== 'array' && hasChecks(def)) return undefined;
  switch (def.type) {
    case 'string': return (v) => typeof v === 'string';
    case 'number': return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'boolean': return (v) => typeof v === 'boolean';
    case 'any':
    case 'unknown': return () => true;
    case 'enum': {
      const values = new Set(Object.values(def.entries as Record<string, unknown>));
      return (v) => (typeof v === 'string' || typeof v === 'number') && values.has(v);
    }
    case 'literal': {
      const values = new Set(def.values as unknown[]);
      return (v) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') && values.has(v);
    }
    case 'optional': {
      const inner = compile(def.innerType);
      return inner && ((v) => v === undefined || inner(v));
    }
    case 'array': {
      const element = compile(def.element);
      const bounds = lengthBounds(def);
      if (!element || !bounds) return undefined;
      const { min, max } = bounds;
      return (v) => {
        if (!Array.isArray(v) || v.length < min || v.length > max) return false;
        for (let i = 0; i < v.length; i += 1) if (!element(v[i])) return false;
        return true;
      };
    }
    case 'union': {
      const options = (def.options as unknown[]).map(compile);
      if (options.some((o) => o === undefined)) return undefined;
      const all = options as SchemaPredicate[];
      return (v) => {
        for (let i = 0; i < all.length; i += 1) if (all[i]!(v)) return true;
        return false;
      };
    }
    case 'object': return compileObject(def);
    case 'record': {
      const key = defOf(def.keyType);
      const value = compile(def.valueType);
      if (key.type !== 'string' || hasChecks(key) || !value) return undefined;
      return (v) => {
        // An own `constructor` could make zod's plain-object test fail; symbols are keys zod checks.
        if (!isPlainData(v) || Object.prototype.hasOwnProperty.call(v, 'constructor') || Object.getOwnPropertySymbols(v).length > 0) return false;
        for (const k in v) {
          if (k === '__proto__' || !value(v[k])) return false;
        }
        return true;
      };
    }
    default: return undefined;
  }
}

function compileObject(def: Def): SchemaPredicate | undefined {
  const shape = def.shape as Record<string, unknown>;
  const keys = Object.keys(shape);
  const catchall = def.catchall === undefined ? 'strip' : defOf(def.catchall).type === 'never' ? 'strict' : undefined;
  // A shape key that Object.prototype also has would be read through the prototype: left to zod.
  if (catchall === undefined || keys.some((k) => OBJECT_PROTO_KEYS.has(k) || k === '__proto__')) return undefined;
  const fields: { key: string; optional: boolean; check: SchemaPredicate }[] = [];
  for (const key of keys) {
    const check = compile(shape[key]);
    if (!check) return undefined;
    fields.push({ key, optional: defOf(shape[key]).type === 'optional', check });
  }
  const known: Record<string, true> = Object.create(null) as Record<string, true>;
  for (const key of keys) known[key] = true;
  return objectChecker(fields, known, catchall === 'strict');
}

/**
 * The object check as its own function, generated per object schema: a closure shared by every
 * schema reads each property with one keyed load site that sees every component's shape
 * (megamorphic; it was the validator's largest single cost), while a function of its own per
 * schema reads `v["label"]` at a site that sees one or two shapes. The source holds only the
 * schema's own keys, as JSON string literals; the checks are passed in as arguments.
 */
function objectChecker(fields: readonly { key: string; optional: boolean; check: SchemaPredicate }[], known: Record<string, true>, strict: boolean): SchemaPredicate {
  const lines = fields.map((f, i) => {
    const read = `x = v[${JSON.stringify(f.key)}];`;
    // An absent required key is zod's "nonoptional" issue, even for a type that takes undefined.
    return f.optional ? `${read} if (x !== undefined && !c${i}(x)) return false;` : `${read} if (x === undefined || !c${i}(x)) return false;`;
  });
  const body = [
    'return function objectCheck(v) {',
    '  if (!isPlainData(v)) return false;',
    '  let x;',
    ...lines.map((l) => `  ${l}`),
    ...(strict ? ['  for (const k in v) if (known[k] !== true) return false;'] : []),
    '  return true;',
    '};',
  ].join('\n');
  let make: (...values: unknown[]) => SchemaPredicate;
  try {
    make = new Function('isPlainData', 'known', ...fields.map((_, i) => `c${i}`), body) as typeof make;
  } catch {
    // A process run with --disallow-code-generation-from-strings: the same check as a closure.
    return (v) => {
      if (!isPlainData(v)) return false;
      for (const f of fields) {
        const x = v[f.key];
        if (f.optional ? x !== undefined && !f.check(x) : x === undefined || !f.check(x)) return false;
      }
      if (strict) for (const k in v) if (known[k] !== true) return false;
      return true;
    };
  }
  return make(isPlainData, known, ...fields.map((f) => f.check));
}

/** The predicate of `schema`, or undefined when it uses something the predicate does not model. */
export function compileSchemaPredicate(schema: z.ZodType): SchemaPredicate | undefined {
  return compile(schema);
}
