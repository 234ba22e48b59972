import { failedRule, splitChoices, type DataMap, type DataValue, type FieldBlock, type FieldRule, type FieldRuleName } from '../index.ts';
import { defaultDraftValue, draftKind } from './fields.ts';

/**
 * The domain boundary of a submit: draft values (as the user sent them) → committed values.
 * Strings are trimmed and empty ones become absent; numbers are numbers; tags become string
 * arrays; a checkbox is always a boolean. Problems are user-facing sentences.
 */
export interface FieldProblem {
  name: string;
  /** The rule the value failed (ui-ir/field-rules.ts): the same rule, and words, every client checks. */
  rule: FieldRuleName;
  message: string;
}

export type CommitResult = { ok: true; committed: DataMap } | { ok: false; problems: FieldProblem[] };

/**
 * One field: its rules first (the value as sent, as every client reads it), then its committed
 * form. `undefined` means absent.
 */
function normaliseField(field: FieldBlock, raw: DataValue | undefined): { value?: DataValue; problem?: FieldRule } {
  const failed = failedRule(field, raw);
  if (failed !== undefined) return { problem: failed };
  if (draftKind(field.control) === 'boolean') return { value: raw === true };
  if (draftKind(field.control) === 'number') {
    const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : '';
    return text === '' ? {} : { value: Number(text) };
  }
  const text = typeof raw === 'string' ? raw.trim() : raw === undefined ? '' : String(raw);
  if (text === '') return {};
  return field.control === 'tags' || field.control === 'multiselect' ? { value: splitChoices(text) } : { value: text };
}

export function normaliseForCommit(fields: readonly FieldBlock[], values: DataMap): CommitResult {
  const committed: DataMap = {};
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    const raw = Object.hasOwn(values, field.name) ? values[field.name] : undefined;
    const result = normaliseField(field, raw);
    if (result.problem !== undefined) problems.push({ name: field.name, rule: result.problem.rule, message: result.problem.message });
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
