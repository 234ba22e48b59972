import type { z } from 'zod';
import { childPointer, isPlainObject, issue, setOwn, type Diagnostics } from './diagnostics.ts';

/** `assistantText` → `assistant_text`, `avatarURL` → `avatar_url`, `speaking-style` → `speaking_style`. */
export function toSnakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();
}

/** `response_length` → `responseLength`. */
export function toCamelCase(key: string): string {
  return key.replace(/[_-]([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

type LooseDef = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  valueType?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
};

const cache = new WeakMap<object, ReadonlySet<string>>();

/**
 * Every object key a schema declares, anywhere in it. The schema is the authority on what is
 * canonical: a key is renamed only when it is unknown and its snake_case or camelCase twin is
 * known, so data keys the schema does not name are never touched.
 */
export function schemaKeys(schema: z.ZodType): ReadonlySet<string> {
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  const keys = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (node: z.ZodType | null | undefined): void => {
    if (node === null || node === undefined || seen.has(node)) return;
    seen.add(node);
    const def = (node as unknown as { _zod: { def: LooseDef } })._zod.def;
    switch (def.type) {
      case 'object':
        for (const [key, child] of Object.entries(def.shape ?? {})) { keys.add(key); visit(child); }
        visit(def.catchall);
        break;
      case 'array': visit(def.element); break;
      case 'union': def.options?.forEach(visit); break;
      case 'intersection': visit(def.left); visit(def.right); break;
      case 'record': visit(def.valueType); break;
      case 'tuple': def.items?.forEach(visit); visit(def.rest); break;
      case 'pipe': visit(def.in); visit(def.out); break;
      case 'lazy': visit(def.getter?.()); break;
      default: visit(def.innerType);
    }
  };
  visit(schema);
  cache.set(schema, keys);
  return keys;
}

/** Returns a copy of `value` with non-canonical keys renamed, one warning per rename. */
export function normaliseKeys(value: unknown, known: ReadonlySet<string>, pointer: string, diagnostics: Diagnostics): unknown {
  if (Array.isArray(value)) return value.map((v, i) => normaliseKeys(v, known, childPointer(pointer, i), diagnostics));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  const present = new Set(keys);
  for (const key of keys) {
    let target = key;
    if (!known.has(key)) {
      const twin = [toSnakeCase(key), toCamelCase(key)].find((k) => k !== key && known.has(k) && !present.has(k));
      if (twin !== undefined && !Object.hasOwn(out, twin)) {
        target = twin;
        diagnostics.warnings.push(issue('DIRECTIVE_WARN_KEY_CASE', childPointer(pointer, twin), `"${key}" read as "${twin}"`));
      }
    }
    setOwn(out, target, normaliseKeys(value[key], known, childPointer(pointer, target), diagnostics));
  }
  return out;
}
