import { z } from 'zod';
import { isSafeDataKey } from './pointer.ts';
import { createGrowthMemo } from './transcript.ts';
import {
  ConversationIr, DataMapSchema, ISO_TIME_PATTERN, MAX_SURFACES, MAX_TOASTS, MAX_TRANSCRIPT_TEXT, Surface, SurfaceData, surfaceIdsUnique,
  SurfaceView, Toast, TRANSCRIPT_ID_PATTERN, TRANSCRIPT_ROLES, TranscriptEntry,
} from './schema.ts';

/**
 * `ConversationIr.safeParse(ir).success`, memoised by object identity, for the hot path (every
 * accepted action re-validates the IR its handler returned).
 *
 * Why it is the same check: ConversationIr is a tree of z.object / z.array nodes whose validity
 * is the conjunction of their children's validity plus their own list bounds and the one
 * cross-child rule (unique surface ids); no schema looks outside its own subtree. So an object
 * that passed is still valid wherever it reappears, provided it was not mutated — and the IR is
 * immutable: transitions copy what they change and share the rest. After an action only the
 * changed surface (usually its `data`), the toast list and the top-level scalars are new
 * objects; views, unchanged surfaces, the transcript and old toasts are the very objects
 * checked before and cost one WeakSet lookup each. Leaves (views, data maps, tombstones,
 * transcript entries, toasts) are checked by the original zod schemas; a property test
 * (test/ui-ir/validate.test.ts) keeps this in agreement with the full parse.
 *
 * Only successes are memoised; a failing IR is left to `ConversationIr.safeParse` for its issues.
 */
type Check = (value: unknown) => boolean;

/** Remembers objects that passed `check` (WeakSet: bounded by the objects still alive). */
function memo(check: Check): Check {
  const passed = new WeakSet<object>();
  return (value) => {
    if (value === null || typeof value !== 'object') return check(value);
    if (passed.has(value)) return true;
    if (!check(value)) return false;
    passed.add(value);
    return true;
  };
}

const leaf = (schema: z.ZodType): Check => (value) => schema.safeParse(value).success;

/** zod's own object test (util.isObject): any non-null, non-array object. */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A z.object node: the keys in `children` by their decomposed (memoised) checks, all other keys
 * (scalars) together by one z.object of their original schemas.
 */
function object(shape: Record<string, z.ZodType>, children: Record<string, Check>, refine?: (value: never) => boolean): Check {
  const scalars = z.object(Object.fromEntries(Object.entries(shape).filter(([key]) => !Object.hasOwn(children, key))));
  const nodes = Object.entries(children);
  return memo((value) => {
    if (!isObject(value) || !scalars.safeParse(value).success) return false;
    for (const [key, check] of nodes) if (!check(value[key])) return false;
    return refine === undefined || refine(value as never);
  });
}

/** A z.array node. Indexed loop: a hole is `undefined` to zod, not skipped. */
function array(element: Check, max = Infinity): Check {
  return memo((value) => {
    if (!Array.isArray(value) || value.length > max) return false;
    for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
    return true;
  });
}

/**
 * A sufficient (not necessary) condition for DataMapSchema, for the shapes transitions produce:
 * a plain object whose own keys are all enumerable safe data keys, holding strings, finite
 * numbers, booleans, flat lists of those, or maps of the same kind one level down (so nested at
 * most 3 deep, within the limit of 8). zod's record, union and refinements accept all of these;
 * anything else is decided by DataMapSchema itself.
 */
function isSimpleMap(map: object, depth: number): boolean {
  const proto = Object.getPrototypeOf(map);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(map);
  if (keys.length !== Reflect.ownKeys(map).length) return false; // symbols or non-enumerable keys
  for (const key of keys) {
    if (!isSafeDataKey(key) || !isSimpleValue((map as Record<string, unknown>)[key], depth)) return false;
  }
  return true;
}

function isScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function isSimpleValue(value: unknown, depth: number): boolean {
  if (isScalar(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isScalar(value[i])) return false;
    return true;
  }
  return depth < 2 && isSimpleMap(value, depth + 1);
}

/**
 * The transcript node. Transitions append to a transcript (a new array holding the same entry
 * objects, then new ones), so a transcript that grew from one that passed is checked by its new
 * entries (after a pointer comparison of the rest): a turn's check does not grow with the
 * conversation (issue 36). Anything else is checked entry by entry.
 */
function transcriptArray(element: Check): (value: unknown, grewFrom?: readonly unknown[]) => boolean {
  const passed = createGrowthMemo<true>();
  return (value, grewFrom) => {
    if (!Array.isArray(value)) return false;
    if (passed.get(value)) return true;
    const start = passed.grownFrom(value, grewFrom)?.array.length ?? 0;
    for (let i = start; i < value.length; i++) if (!element(value[i])) return false;
    passed.set(value, true);
    return true;
  };
}

const parseDataMap = leaf(DataMapSchema);
const dataMap = memo((value) => (isObject(value) && isSimpleMap(value, 1)) || parseDataMap(value));
const surface = object(Surface.shape, {
  view: memo(leaf(SurfaceView)),
  data: object(SurfaceData.shape, { draft: dataMap, committed: dataMap, ui: dataMap }),
  tombstones: memo(leaf(Surface.shape.tombstones)),
});
/**
 * A sufficient condition for TranscriptEntry, checked without zod (a checkpoint's load checks
 * 20,000 entries of a long conversation): the schema's own conditions, field by field. Anything
 * it does not pass is decided by the schema itself.
 */
const ROLES: ReadonlySet<string> = new Set(TRANSCRIPT_ROLES);
function isPlainEntry(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { id, role, text, at } = value;
  return typeof id === 'string' && TRANSCRIPT_ID_PATTERN.test(id) && typeof role === 'string' && ROLES.has(role)
    && typeof text === 'string' && text.length <= MAX_TRANSCRIPT_TEXT && typeof at === 'string' && ISO_TIME_PATTERN.test(at);
}
const parseEntry = leaf(TranscriptEntry);
const transcript = transcriptArray(memo((value) => isPlainEntry(value) || parseEntry(value)));
const conversation = object(ConversationIr.shape, {
  transcript,
  surfaces: array(surface, MAX_SURFACES),
  toasts: array(memo(leaf(Toast)), MAX_TOASTS),
}, surfaceIdsUnique);

/**
 * True iff `ConversationIr.shape.transcript.safeParse(entries).success`, remembered as the IR's
 * check remembers it: a transcript built up by appends (a checkpoint's load, a chunk at a time,
 * each `grewFrom` the one before) is checked a chunk at a time, and the IR holding the last one
 * then costs nothing more.
 */
export function isValidTranscript(entries: unknown, grewFrom?: readonly unknown[]): boolean {
  return transcript(entries, grewFrom);
}

/** True iff `ConversationIr.safeParse(ir).success`; cheap for an IR that shares most of its parts with one checked before. */
export function isValidConversationIr(ir: unknown): ir is ConversationIr {
  return conversation(ir);
}
