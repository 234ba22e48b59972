import { z } from 'zod';
import { FALSE_TEXT, isEmptyMap, NUMBER_TEXT, TRUE_TEXT, walkBlocks, type Block, type FieldBlock, type SurfaceView } from '../index.ts';
import { draftKind } from './fields.ts';

/**
 * Context schemas of the form actions, built from the surface's own fields. They undo what
 * transports do to values — HTML forms send every value as a string and omit unchecked
 * checkboxes; A2UI clients send bound values, sometimes numbers as strings — and nothing more:
 * whether a value is acceptable (required, range, options) is the submit's domain check, so the
 * user gets a sentence, not a 403.
 */


const checkbox = z.preprocess((v) => {
  if (v === undefined || v === null) return false; // an unchecked HTML checkbox is not sent at all
  if (typeof v === 'string' && TRUE_TEXT.has(v.trim().toLowerCase())) return true;
  if (typeof v === 'string' && FALSE_TEXT.has(v.trim().toLowerCase())) return false;
  return v;
}, z.boolean());

/** Decimal text as sent (not trimmed: the field rules read it as every client does). */
const numberLike = z.preprocess((v) => {
  if (typeof v === 'string' && NUMBER_TEXT.test(v)) return Number(v);
  return v;
}, z.union([z.number().finite(), z.string().max(100)]).optional());

/**
 * Text. Choice controls on A2UI clients send their selections as a list (or `{}` when none is
 * picked); the draft keeps one comma-separated string, like tags.
 */
function stringLike(max: number) {
  return z.preprocess((v) => {
    if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') return String(v);
    if (isEmptyMap(v)) return '';
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(', ');
    return v;
  }, z.string().max(max).optional());
}

export function fieldContextSchema(field: FieldBlock): z.ZodType {
  switch (draftKind(field.control)) {
    case 'boolean': return checkbox;
    case 'number': return numberLike;
    default: return stringLike(Math.max(field.maxLength ?? 0, 20_000));
  }
}

/**
 * Context schemas are cached: building a z.object makes zod compile a parser for it on first
 * use, which cost more than the rest of an action round trip together. IR is immutable and
 * transitions share unchanged parts, so a view object keeps its identity across revs (WeakMap,
 * dies with the view); views rebuilt with the same inputs (every new conversation's character
 * card) share one schema through a small LRU keyed by what the schema depends on.
 */
const SHARED_SCHEMAS = 256;

function cachedSchema(
  byView: WeakMap<SurfaceView, z.ZodType<Record<string, unknown>>>, shared: Map<string, z.ZodType<Record<string, unknown>>>,
  view: SurfaceView, key: (b: Block) => string | undefined, build: (b: Block) => z.ZodType,
): z.ZodType<Record<string, unknown>> {
  const known = byView.get(view);
  if (known) return known;
  const blocks: Block[] = [];
  walkBlocks(view.blocks, (b) => { if (key(b) !== undefined) blocks.push(b); });
  // Names are data keys ([A-Za-z0-9_-]), so these separators cannot be forged by a name.
  const fingerprint = blocks.map(key).join('|');
  let schema = shared.get(fingerprint);
  if (schema) shared.delete(fingerprint);
  else {
    const shape: Record<string, z.ZodType> = {};
    for (const b of blocks) shape[(b as { name: string }).name] = build(b);
    schema = z.object(shape) as unknown as z.ZodType<Record<string, unknown>>;
    if (shared.size >= SHARED_SCHEMAS) shared.delete(shared.keys().next().value!);
  }
  shared.set(fingerprint, schema);
  byView.set(view, schema);
  return schema;
}

const formByView = new WeakMap<SurfaceView, z.ZodType<Record<string, unknown>>>();
const formShared = new Map<string, z.ZodType<Record<string, unknown>>>();
/** What fieldContextSchema reads of a field: its name, draft kind and maxLength. */
const formKey = (b: Block): string | undefined =>
  (b.kind === 'field' ? `${b.name}:${draftKind(b.control)}:${b.maxLength ?? ''}` : undefined);

/** Unknown keys are dropped (never written anywhere); known keys are coerced as above. */
export function formContextSchema(view: SurfaceView): z.ZodType<Record<string, unknown>> {
  return cachedSchema(formByView, formShared, view, formKey, (b) => fieldContextSchema(b as FieldBlock));
}

const uploadByView = new WeakMap<SurfaceView, z.ZodType<Record<string, unknown>>>();
const uploadShared = new Map<string, z.ZodType<Record<string, unknown>>>();
const uploadName = z.string().max(2048).optional();

/** upload.submit: the upload block's key carries a file name or link (hosts keep the bytes). */
export function uploadContextSchema(view: SurfaceView): z.ZodType<Record<string, unknown>> {
  return cachedSchema(uploadByView, uploadShared, view, (b) => (b.kind === 'upload' ? b.name : undefined), () => uploadName);
}

/** The context schema of actions that take no values (cancel buttons): unknown keys are dropped. */
export const EMPTY_CONTEXT = z.object({}) as unknown as z.ZodType<Record<string, unknown>>;

/** Keys the client actually sent (present and defined), in field order. */
export function sentValues(fields: readonly FieldBlock[], context: Record<string, unknown>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const field of fields) {
    if (!Object.hasOwn(context, field.name)) continue;
    const value = context[field.name];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[field.name] = value;
  }
  return out;
}
