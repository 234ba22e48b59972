import { z } from 'zod';
import { walkBlocks, type FieldBlock, type Surface, type SurfaceView } from '../ui-ir/index.ts';

/**
 * Zod pieces for action context schemas that accept what real clients send (a2ui-v0.8.md §5.2):
 * HTML posts strings only and omits unchecked boxes; A2UI Slider sends a string, an empty
 * MultipleChoice sends `{}`, an unwritten path is simply absent.
 */

/** What clients send for numbers, and for a ticked or unticked box. */
export const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
export const TRUE_TEXT: ReadonlySet<string> = new Set(['true', 'on', '1', 'yes']);
export const FALSE_TEXT: ReadonlySet<string> = new Set(['false', 'off', '0', 'no', '']);

/** `{}`: what an A2UI client sends for an empty selection (a Map serialises as an empty object). */
export const isEmptyMap = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

/** Text: numbers and booleans become their text; missing means empty (kept as ""). */
export function clientText(options: { required?: boolean; maxLength?: number } = {}) {
  let schema = z.string();
  if (options.maxLength !== undefined) schema = schema.max(options.maxLength);
  const text = options.required ? schema.refine((s) => s.trim().length > 0, 'required') : schema;
  return z.preprocess((v) => (v === undefined ? '' : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v), text);
}

/** Number: a number or its decimal text; "" or missing is absent. */
export function clientNumber(options: { required?: boolean; min?: number; max?: number } = {}) {
  let schema = z.number();
  if (options.min !== undefined) schema = schema.min(options.min);
  if (options.max !== undefined) schema = schema.max(options.max);
  return z.preprocess((v) => {
    if (typeof v === 'string') {
      const t = v.trim();
      if (t === '') return undefined;
      return NUMBER_TEXT.test(t) ? Number(t) : v;
    }
    return v;
  }, options.required ? schema : schema.optional());
}

/** Checkbox: true/false, "on"/"true"/"1"/"yes", "off"/"false"/"0"/"no"/""; missing is false. */
export function clientBoolean(options: { required?: boolean } = {}) {
  const schema = options.required ? z.literal(true, { error: 'required' }) : z.boolean();
  return z.preprocess((v) => {
    if (v === undefined) return false;
    if (typeof v === 'string') {
      const t = v.trim().toLowerCase();
      if (TRUE_TEXT.has(t)) return true;
      if (FALSE_TEXT.has(t)) return false;
    }
    return v;
  }, schema);
}

/**
 * One of `values`: a string (HTML select), a one-element list (what an A2UI MultipleChoice with
 * maxAllowedSelections 1 writes), or `""`, `[]` or `{}` (an empty selection) meaning none.
 */
export function clientChoice(values: readonly string[], options: { required?: boolean } = {}) {
  const schema = z.string().refine((s) => values.includes(s), 'not one of the options');
  return z.preprocess((v) => {
    if (v === '' || isEmptyMap(v) || (Array.isArray(v) && v.length === 0)) return undefined;
    if (Array.isArray(v) && v.length === 1) return v[0];
    return v;
  }, options.required ? schema : schema.optional());
}

/** Several of `values`: an array, one string (HTML with one box ticked), `{}` or missing (none). */
export function clientChoices(values: readonly string[], options: { required?: boolean } = {}) {
  const item = z.string().refine((s) => values.includes(s), 'not one of the options');
  const schema = options.required ? z.array(item).min(1, 'required') : z.array(item);
  return z.preprocess((v) => {
    if (v === undefined || v === '' || isEmptyMap(v)) return [];
    if (typeof v === 'string') return [v];
    return v;
  }, schema);
}

function fieldSchema(field: FieldBlock): z.ZodType {
  const required = field.required;
  const options = (field.options ?? []).map((o) => o.value);
  switch (field.control) {
    case 'number':
    case 'slider':
      return clientNumber({ required, ...(field.min === undefined ? {} : { min: field.min }), ...(field.max === undefined ? {} : { max: field.max }) });
    case 'checkbox': return clientBoolean({ required });
    case 'select': return clientChoice(options, { required });
    case 'multiselect': return clientChoices(options, { required });
    default: return clientText({ required, ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }) });
  }
}

const byView = new WeakMap<SurfaceView, z.ZodType<Record<string, unknown>>>();

/**
 * A context schema derived from a surface's field blocks, for "submit the form" actions.
 * Unknown keys are dropped; each field is coerced as above. Cached per view object (IR is
 * immutable, so a view keeps its identity across revs): zod compiles a parser for every new
 * z.object on first use, which costs far more than the parse itself.
 */
export function fieldContextSchema(surface: Surface): z.ZodType<Record<string, unknown>> {
  const known = byView.get(surface.view);
  if (known) return known;
  const shape: Record<string, z.ZodType> = {};
  walkBlocks(surface.view.blocks, (block) => {
    if (block.kind === 'field') shape[block.name] = fieldSchema(block);
  });
  const schema = z.object(shape) as unknown as z.ZodType<Record<string, unknown>>;
  byView.set(surface.view, schema);
  return schema;
}
