/**
 * Lenient JSON reading for real model output. Every function here is linear in its input (the
 * region scan is bounded by a number of failed starts) so hostile text cannot stall a turn.
 */

// Typographic double quotes models (and word processors) put where `"` belongs.
const SMART_DOUBLE = new Set(['\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\uFF02']);

export type JsonRepair = 'smart_quotes' | 'trailing_commas' | 'control_chars';

export type TryParse = { ok: true; value: unknown; repairs: JsonRepair[] } | { ok: false };

/**
 * One string-aware pass: outside genuine `"` strings, smart double quotes become `"`; commas
 * right before `}`/`]` go; raw control characters inside strings are escaped. Text inside real
 * JSON strings is never touched, so “quotes” in a value survive.
 */
export function repairJsonText(text: string): { text: string; repairs: JsonRepair[] } {
  const repairs = new Set<JsonRepair>();
  let out = '';
  let inString = false;
  let smartString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') {
        out += c + (text[i + 1] ?? '');
        i++;
      } else if (c === '"' || (smartString && SMART_DOUBLE.has(c))) {
        out += '"';
        inString = false;
      } else if (c < ' ') {
        out += c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
        repairs.add('control_chars');
      } else {
        out += c;
      }
      continue;
    }
    if (c === '"' || SMART_DOUBLE.has(c)) {
      if (c !== '"') repairs.add('smart_quotes');
      inString = true;
      smartString = c !== '"';
      out += '"';
    } else if (c === ',' && closesNext(text, i + 1)) {
      repairs.add('trailing_commas');
    } else {
      out += c;
    }
  }
  return { text: out, repairs: [...repairs] };
}

/** Whether the next non-blank character closes a container (each blank is looked at once). */
function closesNext(text: string, from: number): boolean {
  let j = from;
  while (j < text.length && /\s/.test(text[j]!)) j++;
  return text[j] === '}' || text[j] === ']';
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
  let inString = false;
  let smartString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"' || (smartString && SMART_DOUBLE.has(c))) inString = false;
      continue;
    }
    if (c === '"' || SMART_DOUBLE.has(c)) {
      inString = true;
      smartString = c !== '"';
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
 * Finds the JSON values embedded in prose or fences that look like directives (an envelope, a
 * directive object, or an array of directive objects). Other JSON in prose (`[1]`, `{}`) is
 * prose. Regions never overlap: scanning resumes after each accepted one.
 */
export function findDirectiveRegions(text: string): JsonRegion[] {
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
      if (parsed.ok && looksLikeDirectives(parsed.value)) {
        regions.push({ value: parsed.value, repairs: parsed.repairs, start: i, end });
        i = end;
      }
    }
  }
  return regions;
}

function hasOwnKeyLike(value: object, pattern: RegExp): boolean {
  return Object.keys(value).some((k) => pattern.test(k));
}

export function looksLikeDirectives(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every((v) => isDirectiveLike(v));
  return isDirectiveLike(value) || (value !== null && typeof value === 'object' && hasOwnKeyLike(value, /^directives$/i));
}

function isDirectiveLike(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    && Object.hasOwn(value, 'type') && typeof (value as { type: unknown }).type === 'string';
}
