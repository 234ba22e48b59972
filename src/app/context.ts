import { z } from 'zod';
import { walkBlocks, type FieldBlock, type SurfaceView } from '../ui-ir/index.ts';
import { draftKind } from './fields.ts';

/**
 * Context schemas of the form actions, built from the surface's own fields. They undo what
 * transports do to values — HTML forms send every value as a string and omit unchecked
 * checkboxes; A2UI clients send bound values, sometimes numbers as strings — and nothing more:
 * whether a value is acceptable (required, range, options) is the submit's domain check, so the
 * user gets a sentence, not a 403.
 */

const TRUE = new Set(['true', 'on', '1', 'yes']);
const FALSE = new Set(['false', 'off', '0', 'no', '']);
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

const checkbox = z.preprocess((v) => {
  if (v === undefined || v === null) return false; // an unchecked HTML checkbox is not sent at all
  if (typeof v === 'string' && TRUE.has(v.trim().toLowerCase())) return true;
  if (typeof v === 'string' && FALSE.has(v.trim().toLowerCase())) return false;
  return v;
}, z.boolean());

const numberLike = z.preprocess((v) => {
  if (typeof v === 'string' && NUMERIC.test(v.trim())) return Number(v.trim());
  return v;
}, z.union([z.number().finite(), z.string().max(100)]).optional());

const isEmptyMap = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

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

/** Unknown keys are dropped (never written anywhere); known keys are coerced as above. */
export function formContextSchema(view: SurfaceView): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  walkBlocks(view.blocks, (b) => {
    if (b.kind === 'field') shape[b.name] = fieldContextSchema(b);
  });
  return z.object(shape) as unknown as z.ZodType<Record<string, unknown>>;
}

/** upload.submit: the upload block's key carries a file name or link (hosts keep the bytes). */
export function uploadContextSchema(view: SurfaceView): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  walkBlocks(view.blocks, (b) => {
    if (b.kind === 'upload') shape[b.name] = z.string().max(2048).optional();
  });
  return z.object(shape) as unknown as z.ZodType<Record<string, unknown>>;
}

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
