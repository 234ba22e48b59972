import type { z } from 'zod';
import { getAt } from '../ui-ir/index.ts';
import { childPointer, isPlainObject, issue, preview, setOwn, type Diagnostics } from './diagnostics.ts';

/**
 * Schema-driven repair of scalar types, led by zod's own issues rather than a second copy of
 * the schema: a numeric string where a number is expected, "true"/"false" (or yes/no, on/off)
 * for a boolean, a number for a string, a string or a single object for a list, an enum value in
 * the wrong case, null for a field that takes none (absent). Each repair is a
 * DIRECTIVE_WARN_COERCED; anything else stays an error.
 */

type Issue = z.core.$ZodIssue;
type Fix = { path: PropertyKey[]; from: unknown; to: unknown };

// Stands for "remove the key": a null where the schema wants a value means the model had none.
const ABSENT = Symbol('absent');

const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([['true', true], ['false', false], ['yes', true], ['no', false], ['on', true], ['off', false]]);
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const MAX_ROUNDS = 4;

function foldEnum(value: string): string {
  return value.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

function matchOption(value: unknown, options: readonly unknown[]): unknown {
  if (typeof value !== 'string') return undefined;
  const hits = options.filter((o) => typeof o === 'string' && foldEnum(o) === foldEnum(value));
  return hits.length === 1 ? hits[0] : undefined;
}

function coercedValue(issue: Issue, value: unknown, parent: unknown): unknown {
  // Models (and OpenAI strict output) write null for "not given"; a required key then fails as missing.
  // Whatever the schema wanted there (a type, an enum value, a union member), null is not it.
  if (value === null && isPlainObject(parent)) return ABSENT;
  if (issue.code === 'invalid_type') {
    switch (issue.expected) {
      case 'number':
        return typeof value === 'string' && NUMERIC.test(value.trim()) ? Number(value.trim()) : undefined;
      case 'boolean':
        if (typeof value !== 'string') return undefined;
        return BOOLEAN_WORDS.get(value.trim().toLowerCase());
      case 'string':
        if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
        if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return value.join(', ');
        return undefined;
      case 'array':
        // One item where a list is expected stands for a list of one.
        if (isPlainObject(value)) return [value];
        return typeof value === 'string' && value.trim() !== ''
          ? value.split(',').map((s) => s.trim()).filter((s) => s !== '')
          : undefined;
      default:
        return undefined;
    }
  }
  if (issue.code === 'invalid_value') return matchOption(value, issue.values);
  if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) {
    return matchOption(value, issue.options as unknown[]);
  }
  return undefined;
}

function setPath(root: unknown, path: readonly PropertyKey[], value: unknown): void {
  const parent = getAt(root, path.slice(0, -1).map(String));
  if (parent === null || typeof parent !== 'object') return;
  if (value === ABSENT) delete (parent as Record<string, unknown>)[String(path.at(-1))];
  else setOwn(parent as Record<string, unknown>, String(path.at(-1)), value);
}

export type CoercedParse<T> = { ok: true; data: T } | { ok: false; issues: Issue[] };

/**
 * Parses `payload` (a private copy: it is repaired in place) against `schema`, applying the
 * repairs above for a few rounds. `pointer` is where the payload sits in the envelope.
 */
export function parseWithCoercion<T>(
  schema: z.ZodType<T>, payload: unknown, pointer: string, diagnostics: Diagnostics,
): CoercedParse<T> {
  let result = schema.safeParse(payload);
  for (let round = 0; round < MAX_ROUNDS && !result.success; round++) {
    const fixes: Fix[] = [];
    for (const zIssue of result.error.issues) {
      if (zIssue.path.length === 0) continue;
      const from = getAt(payload, zIssue.path.map(String));
      const to = coercedValue(zIssue, from, getAt(payload, zIssue.path.slice(0, -1).map(String)));
      if (to !== undefined) fixes.push({ path: zIssue.path, from, to });
    }
    if (fixes.length === 0) break;
    for (const fix of fixes) {
      setPath(payload, fix.path, fix.to);
      const read = fix.to === ABSENT ? 'absent' : preview(fix.to);
      diagnostics.warnings.push(issue('DIRECTIVE_WARN_COERCED', childPointer(pointer, ...fix.path), `${preview(fix.from)} read as ${read}`));
    }
    result = schema.safeParse(payload);
  }
  return result.success ? { ok: true, data: result.data } : { ok: false, issues: result.error.issues };
}

/** One error per zod issue (bounded), each pointing at the exact field. */
export function payloadErrors(issues: readonly Issue[], pointer: string, limit = 8): Diagnostics['errors'] {
  return issues.slice(0, limit).map((zIssue) =>
    issue('DIRECTIVE_PAYLOAD_INVALID', childPointer(pointer, ...zIssue.path), `${zIssue.code}: ${zIssue.message}`));
}
