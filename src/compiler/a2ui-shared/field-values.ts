import { makeError, type SurfacerError } from '../../errors/index.ts';
import type { DataValue, FieldBlock } from '../../ui-ir/index.ts';

/**
 * What a field's input shows for whatever the IR holds at its `/draft/<name>`: the same rules
 * for every A2UI version (a checkbox holds a boolean, a slider a number inside its bounds, text
 * inputs a string). How the value is then written on the wire is the version's business.
 */
export type Coerced<T> = { value: T; coerced: boolean };

/** Controls whose input holds a string. */
export const STRING_CONTROLS: ReadonlySet<string> = new Set(['text', 'textarea', 'secret', 'date', 'datetime', 'time', 'url', 'email', 'number', 'tags']);

/** A display string for any IR value (value blocks). */
export function displayValue(v: DataValue | undefined): string {
  if (v === undefined || v === '') return '—';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (Array.isArray(v)) return v.length === 0 ? '—' : v.map((x) => displayValue(x)).join(', ');
  const keys = Object.keys(v);
  return keys.length === 0 ? '—' : keys.map((k) => `${k}: ${displayValue(v[k])}`).join(', ');
}

/** Text inputs: numbers and booleans as their text, a list of primitives joined ("a, b"). */
export function asString(v: DataValue | undefined, control: string): Coerced<string> {
  if (v === undefined) return { value: '', coerced: false };
  if (typeof v === 'string') return { value: v, coerced: false };
  if (typeof v === 'number') return { value: String(v), coerced: control !== 'number' };
  if (typeof v === 'boolean') return { value: String(v), coerced: true };
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object')) {
    return { value: v.map(String).join(', '), coerced: control !== 'tags' };
  }
  return { value: '', coerced: true };
}

export function toBoolean(v: DataValue | undefined): Coerced<boolean> {
  if (v === undefined) return { value: false, coerced: false };
  if (typeof v === 'boolean') return { value: v, coerced: false };
  if (typeof v === 'string') return { value: v === 'true' || v === 'on' || v === '1', coerced: true };
  if (typeof v === 'number') return { value: v !== 0, coerced: true };
  return { value: false, coerced: true };
}

export interface SliderBounds { min: number; max: number }

export function sliderBounds(min: number | undefined, max: number | undefined): SliderBounds {
  const lo = min ?? 0;
  let hi = max ?? Math.max(100, lo + 1);
  if (!(hi > lo)) hi = lo + 1;
  return { min: lo, max: hi };
}

export function toNumber(v: DataValue | undefined, bounds: SliderBounds): Coerced<number> {
  if (typeof v === 'number') return { value: v, coerced: false };
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return { value: Number(v), coerced: true };
  return { value: bounds.min, coerced: v !== undefined };
}

/**
 * The selected option values of a select/multiselect: a string is one selection, a list of
 * strings several; a select keeps only the first.
 */
export function toSelection(v: DataValue | undefined, multiple: boolean): Coerced<string[]> {
  let list: string[];
  let coerced = false;
  if (v === undefined || v === '') list = [];
  else if (typeof v === 'string') list = [v];
  else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) list = v as string[];
  else { list = []; coerced = true; }
  if (!multiple && list.length > 1) { list = list.slice(0, 1); coerced = true; }
  return { value: list, coerced };
}

/** The warning for a value shown in another form than the IR holds. */
export function coercionWarning(field: FieldBlock, raw: DataValue | undefined, shownAs: string): SurfacerError {
  const name = field.name;
  return makeError('COMPILER_A2UI_VALUE_COERCED',
    `/draft/${name} (${describe(raw)}) shown as ${shownAs} for a ${field.control} field`, { pointer: `/draft/${name}` });
}

/** The /view key of a value block: its index path, e.g. `b0-2`. */
export function viewKey(indexPath: readonly number[]): string {
  return `b${indexPath.join('-')}`;
}

function describe(v: DataValue | undefined): string {
  if (v === undefined) return 'absent';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'a map' : `a ${typeof v}`;
}
