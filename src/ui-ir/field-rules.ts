import { z } from 'zod';

/**
 * What a field accepts, as rules with the words a person reads when one fails. One source for
 * every reader: the server's check of a submit (never trusting the client), the HTML attributes
 * and the htmx page's messages, A2UI v0.9 `checks` and v0.8's `validationRegexp`. Pure.
 *
 * The rules read the value as the client sent it (no trimming: HTML and A2UI's web_core see it
 * so too), except that "required" wants a character other than white space. An empty value ("")
 * meets every rule but "required", as HTML's constraint validation has it.
 */

/**
 * A pattern every reader reads alike: HTML compiles it with the `v` flag, A2UI's web_core with
 * none, the server here. So only a subset of JavaScript's syntax is taken, where the two modes
 * agree on every string: literal characters of the Basic Multilingual Plane, the escapes
 * `\d \w \s \b \B` and escaped syntax characters, positive classes of those and ranges, groups
 * `( )`, `(?: )`, look-aheads `(?= )`, `(?! )`, alternation, anchors and quantifiers. Left out:
 * `.` and negated classes or escapes (`[^…]`, `\S`, `\W`, `\D`), which count a character beyond
 * that plane as one in one mode and as two in the other; `\u`, `\x`, `\p`, back-references and
 * look-behinds; a `[`, `--` or `&&` inside a class (sets in `v` mode, plain characters without).
 */
export function patternProblem(source: string): string | undefined {
  for (const flags of ['', 'v']) {
    try {
      new RegExp(`^(?:${source})$`, flags);
    } catch (error) {
      return `not a valid regular expression${flags === 'v' ? ' in HTML (v flag)' : ''}: ${(error as Error).message}`;
    }
  }
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i]!;
    const code = c.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdfff) return 'a character beyond the Basic Multilingual Plane';
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      i += 1;
      if ('dwsbB'.includes(next) && next !== '') {
        if (inClass && (next === 'b' || next === 'B')) return `\\${next} inside a class`;
        continue;
      }
      if ('^$\\.*+?()[]{}|/-'.includes(next) && next !== '') continue;
      return `the escape \\${next} (use \\d \\w \\s, or escape a syntax character)`;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      else if (c === '[') return 'a [ inside a class (escape it: \\[)';
      else if ((c === '-' && source[i + 1] === '-') || (c === '&' && source[i + 1] === '&')) return `${c}${c} inside a class`;
      continue;
    }
    if (c === '[') {
      if (source[i + 1] === '^') return 'a negated class [^…] (list what is allowed instead)';
      inClass = true;
      continue;
    }
    if (c === '.') return '"." (use a class such as [A-Za-z0-9] instead)';
    if (c === '(' && source[i + 1] === '?' && source[i + 2] !== ':' && source[i + 2] !== '=' && source[i + 2] !== '!') return 'a look-behind or named group';
  }
  return undefined;
}

export const FieldPattern = z.object({
  regex: z.string().min(1).max(300).superRefine((source, ctx) => {
    const problem = patternProblem(source);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `pattern: ${problem}` });
  }).describe('a regular expression the whole value must match (a portable subset: no ".", no [^…])'),
  message: z.string().min(1).max(200).describe('what the person reads when the value does not match'),
}).strict();
export type FieldPattern = z.infer<typeof FieldPattern>;

/** A field as the rules read it (the IR's FieldBlock, or an app template's field). */
export interface RuledField {
  label: string;
  control: string;
  required?: boolean;
  options?: ReadonlyArray<{ value: string }>;
  min?: number;
  max?: number;
  step?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: FieldPattern;
}

export type FieldRule =
  | { rule: 'required'; message: string }
  | { rule: 'minLength'; length: number; message: string }
  | { rule: 'maxLength'; length: number; message: string }
  | { rule: 'pattern'; regex: string; message: string }
  | { rule: 'email'; regex: string; message: string }
  | { rule: 'url'; regex: string; message: string }
  | { rule: 'number'; regex: string; message: string }
  | { rule: 'range'; min?: number; max?: number; message: string }
  | { rule: 'step'; step: number; base: number; message: string }
  | { rule: 'choice'; values: readonly string[]; multiple: boolean; message: string }
  | { rule: 'date'; regex: string; message: string };
export type FieldRuleName = FieldRule['rule'];

/**
 * The fixed patterns. The email address is the one A2UI's web_core `email` function accepts; the
 * link is http(s) with no white space, quotes or angle brackets (a negated class, but only under
 * `+`, so both modes still agree: a property test holds every one of these to that); a number is
 * the decimal text every client sends.
 */
export const EMAIL_REGEX = '[a-zA-Z0-9._%+\\-]+@[a-zA-Z0-9.\\-]+\\.[a-zA-Z]{2,}';
export const URL_REGEX = 'https?://[^\\s"\'<>]+';
export const NUMBER_REGEX = '[+\\-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+\\-]?[0-9]+)?';
export const DATE_REGEX = '[0-9]{4}-[0-9]{2}-[0-9]{2}';
/** The same two as whole-value checks, for code that tests a value outside a field (a link in a list, a draft's date). */
export const HTTP_URL = new RegExp(`^(?:${URL_REGEX})$`);
export const ISO_DATE = new RegExp(`^(?:${DATE_REGEX})$`);

const compiled = new Map<string, RegExp>();
/** Whether the whole of `text` matches `regex` (cached: patterns repeat across every submit of a form). */
export function wholeMatch(regex: string, text: string): boolean {
  let re = compiled.get(regex);
  if (re === undefined) {
    re = new RegExp(`^(?:${regex})$`, 'v');
    if (compiled.size > 1_000) compiled.clear();
    compiled.set(regex, re);
  }
  return re.test(text);
}

type Kind = 'boolean' | 'number' | 'text';
const kindOf = (control: string): Kind =>
  (control === 'checkbox' ? 'boolean' : control === 'number' || control === 'slider' ? 'number' : 'text');

const ruleCache = new WeakMap<object, readonly FieldRule[]>();

/** The rules of `field`, in the order they are checked; the first that fails is the one reported. */
export function fieldRules(field: RuledField): readonly FieldRule[] {
  const known = ruleCache.get(field);
  if (known !== undefined) return known;
  const { label } = field;
  const rules: FieldRule[] = [];
  const kind = kindOf(field.control);
  if (field.required) {
    rules.push({ rule: 'required', message: kind === 'boolean' ? `Please tick “${label}”.` : `${label} is required.` });
  }
  if (kind === 'number') {
    rules.push({ rule: 'number', regex: NUMBER_REGEX, message: `${label} must be a number.` });
    if (field.min !== undefined || field.max !== undefined) {
      const message = field.min !== undefined && field.max !== undefined ? `${label} must be between ${field.min} and ${field.max}.`
        : field.min !== undefined ? `${label} must be at least ${field.min}.` : `${label} must be at most ${field.max}.`;
      rules.push({ rule: 'range', ...(field.min === undefined ? {} : { min: field.min }), ...(field.max === undefined ? {} : { max: field.max }), message });
    }
    if (field.step !== undefined && field.control === 'number') {
      const base = field.min ?? 0;
      rules.push({ rule: 'step', step: field.step, base, message: base === 0 ? `${label} must be a multiple of ${field.step}.` : `${label} must be ${base} plus a multiple of ${field.step}.` });
    }
  } else if (kind === 'text') {
    if (field.control === 'select' || field.control === 'multiselect') {
      const values = (field.options ?? []).map((o) => o.value);
      if (values.length > 0) rules.push({ rule: 'choice', values, multiple: field.control === 'multiselect', message: `Choose ${label} from the list.` });
    }
    if (field.minLength !== undefined) rules.push({ rule: 'minLength', length: field.minLength, message: `${label} must be at least ${field.minLength} characters.` });
    if (field.maxLength !== undefined) rules.push({ rule: 'maxLength', length: field.maxLength, message: `${label} must be at most ${field.maxLength} characters.` });
    if (field.control === 'email') rules.push({ rule: 'email', regex: EMAIL_REGEX, message: `${label} must be an email address.` });
    if (field.control === 'url') rules.push({ rule: 'url', regex: URL_REGEX, message: `${label} must be a link starting with http:// or https://.` });
    if (field.control === 'date') rules.push({ rule: 'date', regex: DATE_REGEX, message: `${label} must be a date (YYYY-MM-DD).` });
    if (field.pattern !== undefined) rules.push({ rule: 'pattern', regex: field.pattern.regex, message: field.pattern.message });
  }
  const frozen = Object.freeze(rules);
  ruleCache.set(field, frozen);
  return frozen;
}

function isRealDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/** A multiselect's choices as the draft holds them: comma-separated. */
export function splitChoices(text: string): string[] {
  return [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
}

/** Whether `n` is `base` plus a whole multiple of `step` (within what binary floating point can tell). */
export function onStep(n: number, step: number, base: number): boolean {
  const q = (n - base) / step;
  return Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
}

/** The value's text as the rules read it: numbers and booleans as their text, nothing as "". */
function textOf(raw: unknown): string {
  return typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : '';
}

/** The first rule `raw` (the value as sent; undefined when absent) fails, or undefined when it meets them all. */
export function failedRule(field: RuledField, raw: unknown): FieldRule | undefined {
  const rules = fieldRules(field);
  const kind = kindOf(field.control);
  if (kind === 'boolean') return field.required && raw !== true ? rules[0] : undefined;
  const text = textOf(raw);
  for (const rule of rules) {
    if (rule.rule === 'required') {
      if (!/\S/.test(text)) return rule;
      continue;
    }
    if (text === '') return undefined;
    if (!meets(rule, text)) return rule;
  }
  return undefined;
}

function meets(rule: FieldRule, text: string): boolean {
  switch (rule.rule) {
    case 'required': return /\S/.test(text);
    case 'minLength': return text.length >= rule.length;
    case 'maxLength': return text.length <= rule.length;
    case 'pattern': case 'email': case 'url': return wholeMatch(rule.regex, text);
    case 'date': return wholeMatch(rule.regex, text) && isRealDate(text);
    case 'number': return wholeMatch(rule.regex, text) && Number.isFinite(Number(text));
    case 'range': {
      const n = Number(text);
      return (rule.min === undefined || n >= rule.min) && (rule.max === undefined || n <= rule.max);
    }
    case 'step': return onStep(Number(text), rule.step, rule.base);
    case 'choice': {
      const values = rule.multiple ? splitChoices(text) : [text];
      return values.length > 0 && values.every((v) => rule.values.includes(v));
    }
  }
}

/** "Has a character other than white space": what "required" means for text, as a pattern. */
export const NOT_BLANK_REGEX = '[\\s\\S]*\\S[\\s\\S]*';

/**
 * The text rules a pattern can say, each with its message, for clients that check a value against
 * patterns (HTML's `pattern`, v0.8's `validationRegexp`): "required" as not blank (an empty value
 * is HTML's `required`), the kinds and the field's own pattern. Lengths are left to the clients'
 * own length checks; numbers, choices and ticks to their controls.
 */
export function fieldPatterns(field: RuledField): ReadonlyArray<{ rule: FieldRuleName; regex: string; message: string }> {
  if (kindOf(field.control) !== 'text') return [];
  const out: Array<{ rule: FieldRuleName; regex: string; message: string }> = [];
  for (const rule of fieldRules(field)) {
    if (rule.rule === 'required') out.push({ rule: 'required', regex: NOT_BLANK_REGEX, message: rule.message });
    else if ((rule.rule === 'email' || rule.rule === 'url' || rule.rule === 'pattern')) out.push({ rule: rule.rule, regex: rule.regex, message: rule.message });
  }
  return out;
}

/** Several whole-value patterns as one (each a look-ahead but the last): what HTML's single `pattern` takes. */
export function allOf(regexes: readonly string[]): string | undefined {
  if (regexes.length <= 1) return regexes[0];
  return regexes.map((r, i) => (i < regexes.length - 1 ? `(?=(?:${r})$)` : `(?:${r})`)).join('');
}
