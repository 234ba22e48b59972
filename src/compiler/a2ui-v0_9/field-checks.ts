import { fieldRules, type FieldBlock, type FieldRule } from '../../ui-ir/index.ts';

/**
 * A field's rules as A2UI v0.9 `checks` (the basic catalogue's Checkable): the same rules and
 * messages the server checks (ui-ir/field-rules.ts), in the catalogue's own functions, which the
 * official renderers evaluate as the person types. web_core's `regex` searches (no anchors, no
 * flags), so every pattern is anchored here and allows the empty value, which meets every rule
 * but "required"; its `numeric` reads "" as 0, so ranges hold only for a value that is there.
 *
 * The value is read through `formatString` ("" when the path holds nothing yet): a renderer binds
 * a component as soon as it arrives, which may be before the data model message that holds its
 * value, and the checking functions report an error for an absent value (the Lit page then told
 * the server so on every evaluation).
 *
 * Left to the controls and the server: a number's step (no catalogue function can say it), a
 * choice among the options and a date's form (the ChoicePicker and DateTimeInput offer nothing
 * else).
 */
export type Condition = boolean | { path: string } | { call: string; args: Record<string, unknown> };
export interface CheckRule { condition: Condition; message: string }

const call = (name: string, args: Record<string, unknown>): Condition => ({ call: name, args });
/** Holds when the value is empty, or when `condition` does. */
const unlessEmpty = (value: Condition, condition: Condition): Condition =>
  call('or', { values: [call('not', { value: call('required', { value }) }), condition] });
const emptyOr = (regex: string): string => `^(?:|(?:${regex}))$`;

function condition(rule: FieldRule, path: string, control: FieldBlock['control']): Condition | undefined {
  const value = call('formatString', { value: `\${${path}}` });
  switch (rule.rule) {
    case 'required':
      if (control === 'checkbox') return { path };
      // A ChoicePicker's choices read as their JSON: "[]" (or "") when none is chosen.
      if (control === 'select' || control === 'multiselect') return call('regex', { value, pattern: '^(?!\\[\\]$)[\\s\\S]*\\S' });
      return call('regex', { value, pattern: '\\S' });
    case 'minLength': return unlessEmpty(value, call('length', { value, min: rule.length }));
    case 'maxLength': return call('length', { value, max: rule.length });
    case 'pattern': case 'email': case 'url': return call('regex', { value, pattern: emptyOr(rule.regex) });
    case 'number':
      // Finite too: "1e999" is number text, but Infinity is no number the server keeps.
      return call('and', { values: [call('regex', { value, pattern: emptyOr(rule.regex) }), unlessEmpty(value, call('numeric', { value, min: -Number.MAX_VALUE, max: Number.MAX_VALUE }))] });
    case 'range':
      return unlessEmpty(value, call('numeric', { value, ...(rule.min === undefined ? {} : { min: rule.min }), ...(rule.max === undefined ? {} : { max: rule.max }) }));
    case 'step': case 'choice': case 'date': return undefined;
  }
}

/** The checks of `field` (bound to its draft value), in the server's order. */
export function fieldChecks(field: FieldBlock): CheckRule[] {
  const out: CheckRule[] = [];
  for (const rule of fieldRules(field)) {
    const c = condition(rule, `/draft/${field.name}`, field.control);
    if (c !== undefined) out.push({ condition: c, message: rule.message });
  }
  return out;
}

/** A submit button's check: every field's checks at once, so it is disabled while any fails. */
export function submitCheck(checks: readonly CheckRule[]): CheckRule[] {
  if (checks.length === 0) return [];
  const condition = checks.length === 1 ? checks[0]!.condition : call('and', { values: checks.map((c) => c.condition) });
  return [{ condition, message: 'Some answers need attention.' }];
}
