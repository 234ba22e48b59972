import { z } from 'zod';
import { HTTP_URL, ISO_DATE, walkBlocks, type Block, type DataMap, type DataValue, type FieldBlock, type FieldControl, type SurfaceView } from '../index.ts';

/**
 * How each control is stored in `/draft` (flat, one key per field). The A2UI data model is
 * array-free, so lists (tags, multiselect) are a comma-separated string in the draft and become
 * a string array only in `/committed`.
 */
export type DraftKind = 'string' | 'number' | 'boolean';

export function draftKind(control: FieldControl): DraftKind {
  if (control === 'checkbox') return 'boolean';
  if (control === 'number' || control === 'slider') return 'number';
  return 'string';
}

/** A template's field: an IR FieldBlock without `kind`, plus an optional draft default. */
export type FieldSpec = Omit<FieldBlock, 'kind' | 'required'> & { required?: boolean; default?: string | number | boolean };

export function fieldBlock(spec: FieldSpec): FieldBlock {
  const { default: _default, required, ...rest } = spec;
  return { kind: 'field', ...rest, required: required ?? false };
}

/** "" for text-like and select (unless a default), false for checkbox, min (or 0) for numbers. */
export function defaultDraftValue(field: Pick<FieldSpec, 'control' | 'min' | 'default'>): DataValue {
  if (field.default !== undefined) return field.default;
  switch (draftKind(field.control)) {
    case 'boolean': return false;
    case 'number': return field.min ?? 0;
    default: return '';
  }
}

export function defaultDraft(fields: readonly FieldSpec[]): DataMap {
  return Object.fromEntries(fields.map((f) => [f.name, defaultDraftValue(f)]));
}

/**
 * What a model may pre-fill for a field (`ui.show_form` values, `ui.patch` on /draft): the
 * field's draft type, with the obvious constraints so the JSON Schema tells the model.
 */
export function draftValueSchema(field: FieldSpec | FieldBlock): z.ZodType<DataValue> {
  switch (field.control) {
    case 'checkbox': return z.boolean();
    case 'number': case 'slider': {
      let n = z.number().finite();
      if (field.min !== undefined) n = n.min(field.min);
      if (field.max !== undefined) n = n.max(field.max);
      return n;
    }
    case 'select': {
      const values = (field.options ?? []).map((o) => o.value);
      return values.length > 0 ? z.enum(values as [string, ...string[]]) : z.string().max(100);
    }
    case 'url': return z.string().max(2048).regex(HTTP_URL).describe('http(s) link');
    case 'date': return z.string().regex(ISO_DATE).describe('YYYY-MM-DD');
    case 'tags': case 'multiselect': return z.string().max(2000).describe('comma-separated');
    default: return z.string().max(field.maxLength ?? 4000);
  }
}

const fieldsOf = new WeakMap<SurfaceView, readonly FieldBlock[]>();

/**
 * The inputs of a view (fields only; uploads are handled by upload.submit). Remembered per view
 * object (IR is immutable; a view keeps its identity across revs), frozen since it is shared.
 */
export function viewFields(view: SurfaceView): readonly FieldBlock[] {
  let fields = fieldsOf.get(view);
  if (fields === undefined) {
    const found: FieldBlock[] = [];
    walkBlocks(view.blocks, (b: Block) => { if (b.kind === 'field') found.push(b); });
    fields = Object.freeze(found);
    fieldsOf.set(view, fields);
  }
  return fields;
}
