import type { DataMap, DataValue, FieldBlock } from '../index.ts';
import { defaultDraftValue, draftKind, HTTP_URL, ISO_DATE } from './fields.ts';

/**
 * The domain boundary of a submit: draft values (as the user sent them) → committed values.
 * Strings are trimmed and empty ones become absent; numbers are numbers; tags become string
 * arrays; a checkbox is always a boolean. Problems are user-facing sentences.
 */
export interface FieldProblem {
  name: string;
  message: string;
}

export type CommitResult = { ok: true; committed: DataMap } | { ok: false; problems: FieldProblem[] };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isRealDate(text: string): boolean {
  if (!ISO_DATE.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

function splitList(text: string): string[] {
  return [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
}

/** The values a select or multiselect offers (a module function, not a closure per field: see settledOf in src/ingress/queue.ts). */
function optionValues(field: FieldBlock): Set<string> {
  return new Set((field.options ?? []).map((o) => o.value));
}

/** One field: `undefined` means absent, a string means a problem. */
function normaliseField(field: FieldBlock, raw: DataValue | undefined): { value?: DataValue; problem?: string } {
  const { label } = field;
  if (draftKind(field.control) === 'boolean') {
    const checked = raw === true;
    return field.required && !checked ? { problem: `Please tick “${label}”.` } : { value: checked };
  }
  if (draftKind(field.control) === 'number') {
    if (raw === undefined || raw === '') return field.required ? { problem: `${label} is required.` } : {};
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : Number.NaN;
    if (!Number.isFinite(n)) return { problem: `${label} must be a number.` };
    if ((field.min !== undefined && n < field.min) || (field.max !== undefined && n > field.max)) {
      return { problem: `${label} must be between ${field.min ?? '…'} and ${field.max ?? '…'}.` };
    }
    return { value: n };
  }
  const text = typeof raw === 'string' ? raw.trim() : raw === undefined ? '' : String(raw);
  if (text === '') return field.required ? { problem: `${label} is required.` } : {};
  if (field.maxLength !== undefined && text.length > field.maxLength) {
    return { problem: `${label} must be at most ${field.maxLength} characters.` };
  }
  switch (field.control) {
    case 'tags':
      return { value: splitList(text) };
    case 'multiselect': {
      const values = splitList(text);
      const options = optionValues(field);
      return values.every((v) => options.has(v)) ? { value: values } : { problem: `Choose ${label} from the list.` };
    }
    case 'select': {
      const options = optionValues(field);
      return options.size === 0 || options.has(text) ? { value: text } : { problem: `Choose ${label} from the list.` };
    }
    case 'url':
      return HTTP_URL.test(text) ? { value: text } : { problem: `${label} must be a link starting with http:// or https://.` };
    case 'email':
      return EMAIL.test(text) ? { value: text } : { problem: `${label} must be an email address.` };
    case 'date':
      return isRealDate(text) ? { value: text } : { problem: `${label} must be a date (YYYY-MM-DD).` };
    default:
      return { value: text };
  }
}

export function normaliseForCommit(fields: readonly FieldBlock[], values: DataMap): CommitResult {
  const committed: DataMap = {};
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    const raw = Object.hasOwn(values, field.name) ? values[field.name] : undefined;
    const result = normaliseField(field, raw);
    if (result.problem !== undefined) problems.push({ name: field.name, message: result.problem });
    else if (result.value !== undefined) committed[field.name] = result.value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, committed };
}

/** The inverse used by "discard changes": committed → the draft shape of each field. */
export function draftFromCommitted(fields: readonly FieldBlock[], committed: DataMap): DataMap {
  const draft: DataMap = {};
  for (const field of fields) {
    const value = Object.hasOwn(committed, field.name) ? committed[field.name] : undefined;
    if (value === undefined) draft[field.name] = draftKind(field.control) === 'number' ? '' : defaultDraftValue({ control: field.control });
    else draft[field.name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return draft;
}
