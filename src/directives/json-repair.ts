/**
 * Lenient JSON reading for real model output. Every function here is linear in its input (the
 * region scan is bounded by a number of failed starts) so hostile text cannot stall a turn.
 */

// Typographic double quotes models (and word processors) put where `"` belongs.
const SMART_DOUBLE = new Set(['\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\uFF02']);

export type JsonRepair =
  | 'smart_quotes' | 'trailing_commas' | 'control_chars' | 'single_quotes' | 'python_literals'
  | 'non_finite_numbers' | 'comments' | 'unquoted_keys' | 'invalid_escapes';

export type TryParse = { ok: true; value: unknown; repairs: JsonRepair[] } | { ok: false };

/** Bare words outside strings: Python and JavaScript spellings of JSON literals. */
const LITERALS: ReadonlyMap<string, [string, JsonRepair]> = new Map([
  ['True', ['true', 'python_literals']], ['False', ['false', 'python_literals']], ['None', ['null', 'python_literals']],
  ['undefined', ['null', 'python_literals']],
  // JSON has no NaN or Infinity: null says "no value", and the validator then reads it as absent.
  ['NaN', ['null', 'non_finite_numbers']], ['Infinity', ['null', 'non_finite_numbers']],
]);

const IDENT_START = /[A-Za-z_$]/;
const IDENT_PART = /[A-Za-z0-9_$]/;

/**
 * One string-aware pass that turns the JSON dialects models write into JSON. Outside strings:
 * smart double quotes become `"`, single-quoted strings become double-quoted, commas right before
 * `}`/`]` go, `//` and `/* *\/` comments go, `True`/`False`/`None`/`undefined` become JSON
 * literals, `NaN`/`Infinity` become null, and bare object keys get quotes. Inside strings only raw
 * control characters are escaped, so text in a value (“quotes”, `it's`, `True`) survives.
 */
export function repairJsonText(text: string): { text: string; repairs: JsonRepair[] } {
  const repairs = new Set<JsonRepair>();
  let out = '';
  // The delimiter of the string we are in: '"', "'" or 'smart'; '' outside strings.
  let quote = '';
  // The last non-blank character written outside strings, to tell a key from a value.
  let last = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === '\\') {
        const next = text[i + 1] ?? '';
        // JSON has no \' escape (JavaScript and Python do): it just means the apostrophe.
        if (next === "'") repairs.add('invalid_escapes');
        out += next === "'" ? "'" : c + next;
        i++;
      } else if ((quote === '"' && c === '"') || (quote === "'" && c === "'") || (quote === 'smart' && (c === '"' || SMART_DOUBLE.has(c)))) {
        out += '"';
        quote = '';
        last = '"';
      } else if (c < ' ') {
        out += c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
        repairs.add('control_chars');
      } else {
        out += quote === "'" && c === '"' ? '\\"' : c;
      }
      continue;
    }
    if (c === '"' || SMART_DOUBLE.has(c) || c === "'") {
      if (c === "'") repairs.add('single_quotes');
      else if (c !== '"') repairs.add('smart_quotes');
      quote = c === '"' || c === "'" ? c : 'smart';
      out += '"';
    } else if (c === '/' && (text[i + 1] === '/' || (text[i + 1] === '*' && text.indexOf('*/', i + 2) !== -1))) {
      // A `/*` never closed is no comment: dropping the rest would turn `0/* {…}` into `0`.
      const close = text[i + 1] === '/' ? text.indexOf('\n', i + 2) : text.indexOf('*/', i + 2);
      repairs.add('comments');
      i = close === -1 ? text.length : text[i + 1] === '/' ? close - 1 : close + 1;
    } else if (c === ',' && closesNext(text, i + 1)) {
      repairs.add('trailing_commas');
    } else if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < text.length && IDENT_PART.test(text[j]!)) j++;
      const word = text.slice(i, j);
      const literal = LITERALS.get(word);
      if ((last === '{' || last === ',') && nextNonBlank(text, j) === ':') {
        out += `"${word}"`;
        repairs.add('unquoted_keys');
      } else if (literal !== undefined) {
        // "-Infinity" / "+Infinity": the sign goes with the number it no longer is.
        if (word === 'Infinity' && /[-+]$/.test(out)) out = out.slice(0, -1);
        out += literal[0];
        repairs.add(literal[1]);
      } else {
        out += word;
      }
      last = word[word.length - 1]!;
      i = j - 1;
    } else {
      out += c;
      if (!/\s/.test(c)) last = c;
    }
  }
  return { text: out, repairs: [...repairs] };
}

/** Whether the next non-blank character closes a container (each blank is looked at once). */
function closesNext(text: string, from: number): boolean {
  const next = nextNonBlank(text, from);
  return next === '}' || next === ']';
}

function nextNonBlank(text: string, from: number): string | undefined {
  let j = from;
  while (j < text.length && /\s/.test(text[j]!)) j++;
  return text[j];
}

/** JSON.parse, then once more after repairs. Never throws. */
export function tryParseJson(text: string): TryParse {
  try {
    return { ok: true, value: JSON.parse(text) as unknown, repairs: [] };
  } catch {
    // fall through to the repaired attempt
  }
  const repaired = repairJsonText(text);
  if (repaired.repairs.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(repaired.text) as unknown, repairs: repaired.repairs };
  } catch {
    return { ok: false };
  }
}

const CLOSER: Record<string, string> = { '{': '}', '[': ']' };

/**
 * Index of the bracket closing the one at `start`, string-aware; -1 if unbalanced. `scanned`
 * is how many characters it looked at, so callers can bound their total work.
 */
export function matchBracket(text: string, start: number): { end: number; scanned: number } {
  const stack: string[] = [];
  let quote = '';
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote || (quote === 'smart' && (c === '"' || SMART_DOUBLE.has(c)))) quote = '';
      continue;
    }
    if (c === '"' || c === "'" || SMART_DOUBLE.has(c)) {
      quote = c === '"' || c === "'" ? c : 'smart';
    } else if (c === '/' && text[i + 1] === '/') {
      // A comment may hold an apostrophe or a bracket; the line is not JSON either way.
      const eol = text.indexOf('\n', i);
      i = eol === -1 ? text.length : eol;
    } else if (c === '{' || c === '[') {
      stack.push(CLOSER[c]!);
    } else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return { end: -1, scanned: i - start + 1 };
      if (stack.length === 0) return { end: i, scanned: i - start + 1 };
    }
  }
  return { end: -1, scanned: text.length - start };
}

export interface JsonRegion {
  value: unknown;
  repairs: JsonRepair[];
  start: number;
  end: number;
}

const MAX_REGIONS = 64;
// Total characters the scan may look at: every start can rescan to the end on hostile input
// ("[[[[…"), so work is capped at a small multiple of the text instead of quadratic.
const WORK_FACTOR = 16;
const MIN_WORK = 1 << 20;

/**
 * Finds the JSON values embedded in prose or fences that `accept` takes for directives (an
 * envelope, a directive, a tool call…). Other JSON in prose (`[1]`, `{}`) is prose. Regions never
 * overlap: scanning resumes after each accepted one.
 */
export function findDirectiveRegions(text: string, accept: (value: unknown) => boolean): JsonRegion[] {
  const regions: JsonRegion[] = [];
  let budget = Math.max(MIN_WORK, WORK_FACTOR * text.length);
  for (let i = 0; i < text.length && regions.length < MAX_REGIONS && budget > 0; i++) {
    const c = text[i];
    if (c !== '{' && c !== '[') continue;
    const { end, scanned } = matchBracket(text, i);
    budget -= scanned;
    if (end >= 0) {
      budget -= end + 1 - i; // the parse attempt reads the region again
      const parsed = tryParseJson(text.slice(i, end + 1));
      if (parsed.ok && accept(parsed.value)) {
        regions.push({ value: parsed.value, repairs: parsed.repairs, start: i, end });
        i = end;
      }
    }
  }
  return regions;
}

// A bracket that opens JSON rather than prose: `{"…`, `{'…`, `{key:`, `[{`, `[[`, `["…`.
const JSON_OPENING = /^(\{\s*(["'\u201C]|[A-Za-z_$][\w$]*\s*:)|\[\s*[[{"'\u201C])/;

/**
 * How JSON outside every accepted region is broken, judged from the brackets that open JSON
 * before `limit` (what comes after the answer is prose, whatever it holds):
 * `truncated` when one runs to the end of the text (the reply was cut off while writing it),
 * `unreadable` when a balanced one that fails to parse holds an accepted region (the directives
 * found inside are pieces of a broken whole, which is never applied in part).
 */
export function brokenJson(text: string, regions: ReadonlyArray<{ start: number; end: number }>, limit = text.length): 'truncated' | 'unreadable' | undefined {
  let budget = Math.max(MIN_WORK, WORK_FACTOR * text.length);
  let r = 0;
  for (let i = 0; i < Math.min(limit, text.length) && budget > 0; i++) {
    while (r < regions.length && regions[r]!.end < i) r++;
    if (r < regions.length && regions[r]!.start <= i) { i = regions[r]!.end; continue; }
    const c = text[i];
    if ((c !== '{' && c !== '[') || !JSON_OPENING.test(text.slice(i, i + 80))) continue;
    const { end, scanned } = matchBracket(text, i);
    budget -= scanned;
    if (end === -1 && scanned === text.length - i) return 'truncated';
    if (end !== -1 && regions.some((g) => g.start > i && g.end < end)) return 'unreadable';
  }
  return undefined;
}
