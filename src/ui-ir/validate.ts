import { z } from 'zod';
import { isSafeDataKey } from './pointer.ts';
import { createGrowthMemo } from './transcript.ts';
import {
  ConversationIr, DataMapSchema, ISO_TIME_PATTERN, MAX_SURFACES, MAX_TOASTS, MAX_TRANSCRIPT_TEXT, Surface, SurfaceData, surfaceIdsUnique,
  SurfaceView, Toast, TRANSCRIPT_ID_PATTERN, TRANSCRIPT_ROLES, TranscriptEntry,
} from './schema.ts';

/**
 * `ConversationIr.safeParse(ir).success`, memoised by object identity, for the hot path (every
 * accepted action and every applied directive re-validates the IR it produced).
 *
 * Why it is the same check: ConversationIr is a tree of z.object / z.array nodes whose validity
 * is the conjunction of their children's validity plus their own list bounds and the one
 * cross-child rule (unique surface ids); no schema looks outside its own subtree. So an object
 * that passed is still valid wherever the same schema holds it again, provided it was not
 * mutated — and the IR is immutable: transitions copy what they change and share the rest.
 *
 * Two ways to know a part passed. Given the IR it was made from (`previous`, itself known
 * valid), each part is compared with its counterpart there (same key; the surface of the same
 * id; any earlier toast): after an action only the changed surface (usually its `data`), the
 * toast list and the top-level scalars are new objects, and the rest costs a pointer comparison.
 * Without one, every object that passed is remembered (WeakSet per node) and found again —
 * which costs a WeakSet insertion per new object (~0.3–1 µs each, more than the checks they
 * save on an action), so a check against `previous` remembers only the IR itself.
 * Leaves (views, data maps, tombstones, transcript entries, toasts) are checked by the original
 * zod schemas; a property test (test/ui-ir/validate.test.ts) keeps both ways in agreement with
 * the full parse.
 *
 * Only successes are memoised; a failing IR is left to `ConversationIr.safeParse` for its issues.
 */
/** `was`: the counterpart of `value` in an IR known valid (or undefined); `learn`: remember what passes. */
type Check = (value: unknown, was: unknown, learn: boolean) => boolean;

/** Remembers objects that passed `check` (WeakSet: bounded by the objects still alive). */
function memo(check: Check): Check {
  const passed = new WeakSet<object>();
  return (value, was, learn) => {
    if (value === null || typeof value !== 'object') return check(value, undefined, learn);
    if (value === was || passed.has(value)) return true;
    if (!check(value, was, learn)) return false;
    if (learn) passed.add(value);
    return true;
  };
}

const leaf = (schema: z.ZodType) => (value: unknown): boolean => schema.safeParse(value).success;

/** zod's own object test (util.isObject): any non-null, non-array object. */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A z.object node: the keys in `children` by their decomposed checks (each against the same key
 * of `was`), all other keys (scalars) together by one z.object of their original schemas.
 */
function objectNode(shape: Record<string, z.ZodType>, children: Record<string, Check>, refine?: (value: never) => boolean): Check {
  const scalars = z.object(Object.fromEntries(Object.entries(shape).filter(([key]) => !Object.hasOwn(children, key))));
  const nodes = Object.entries(children);
  return (value, was, learn) => {
    if (!isObject(value) || !scalars.safeParse(value).success) return false;
    const before = isObject(was) ? was : undefined;
    for (const [key, check] of nodes) if (!check(value[key], before?.[key], learn)) return false;
    return refine === undefined || refine(value as never);
  };
}

/**
 * A z.array node. `counterpart`: the element of a valid array of the same node that an element
 * may be compared with. Indexed loop: a hole is `undefined` to zod, not skipped.
 */
function array(element: Check, max: number, counterpart: (value: unknown, before: readonly unknown[]) => unknown): Check {
  return memo((value, was, learn) => {
    if (!Array.isArray(value) || value.length > max) return false;
    const before = Array.isArray(was) ? was : undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (!element(item, before === undefined ? undefined : counterpart(item, before), learn)) return false;
    }
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
 * conversation (issue 36). Anything else is checked entry by entry. Always remembered: a
 * transcript changes only with a turn, and the next turn grows it from this one.
 */
function transcriptArray(element: Check): (value: unknown, grewFrom?: unknown) => boolean {
  const passed = createGrowthMemo<true>();
  return (value, grewFrom) => {
    if (!Array.isArray(value)) return false;
    if (passed.get(value)) return true;
    const start = passed.grownFrom(value, Array.isArray(grewFrom) ? grewFrom : undefined)?.array.length ?? 0;
    for (let i = start; i < value.length; i++) if (!element(value[i], undefined, true)) return false;
    passed.set(value, true);
    return true;
  };
}

const parseDataMap = leaf(DataMapSchema);
const dataMap = memo((value) => (isObject(value) && isSimpleMap(value, 1)) || parseDataMap(value));
const surface = memo(objectNode(Surface.shape, {
  view: memo(leaf(SurfaceView)),
  data: memo(objectNode(SurfaceData.shape, { draft: dataMap, committed: dataMap, ui: dataMap })),
  tombstones: memo(leaf(Surface.shape.tombstones)),
}));
/** The same surface, else the surface of the same id (its view and data are most likely shared). */
function surfaceCounterpart(value: unknown, before: readonly unknown[]): unknown {
  if (before.includes(value)) return value;
  const id = isObject(value) ? value.id : undefined;
  return id === undefined ? undefined : before.find((s) => isObject(s) && s.id === id);
}
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
const conversation = objectNode(ConversationIr.shape, {
  // `was` here is a valid IR's transcript; `grewFrom` alone is only a hint.
  transcript: (value, was) => (was !== undefined && value === was) || transcript(value, was),
  surfaces: array(surface, MAX_SURFACES, surfaceCounterpart),
  // Toasts are appended and the oldest dropped: an earlier toast is the same object at another index.
  toasts: array(memo(leaf(Toast)), MAX_TOASTS, (value, before) => (before.includes(value) ? value : undefined)),
}, surfaceIdsUnique);
/** IRs that passed (either way). */
const validIrs = new WeakSet<object>();

/**
 * True iff `ConversationIr.shape.transcript.safeParse(entries).success`, remembered as the IR's
 * check remembers it: a transcript built up by appends (a checkpoint's load, a chunk at a time,
 * each `grewFrom` the one before) is checked a chunk at a time, and the IR holding the last one
 * then costs nothing more.
 */
export function isValidTranscript(entries: unknown, grewFrom?: readonly unknown[]): boolean {
  return transcript(entries, grewFrom);
}

/**
 * True iff `ConversationIr.safeParse(ir).success`; cheap for an IR that shares most of its parts
 * with one checked before, cheapest given that one as `previous` (the IR a transition was given).
 * A `previous` that was not found valid here is ignored.
 */
export function isValidConversationIr(ir: unknown, previous?: unknown): ir is ConversationIr {
  if (ir === null || typeof ir !== 'object') return false;
  if (validIrs.has(ir)) return true;
  const known = previous !== null && typeof previous === 'object' && validIrs.has(previous) ? previous : undefined;
  if (!conversation(ir, known, known === undefined)) return false;
  validIrs.add(ir);
  return true;
}
