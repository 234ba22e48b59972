import { escapeMarkdown } from '../a2ui-shared/index.ts';
import { COMPONENT_ID_SHAPE } from './ids.ts';

/**
 * User text on the A2UI wire.
 *
 * Two WC behaviours turn plain strings into something else (a2ui-v0.8.md §4.4):
 * - F6: a data `valueString` whose trimmed text starts and ends with `[ ]` or `{ }` is
 *   JSON-parsed into an array/object (a TextField bound to it then shows nothing);
 * - F13: a component string property equal to a component id becomes that component.
 *
 * Strategy: such a string gets one invisible U+2060 WORD JOINER appended. WC's `trim()` does not
 * strip it (it is not white space), so the text no longer ends with `]`/`}`; it is outside the id
 * charset, so the text no longer looks like an id. It renders as nothing. The mapping is a
 * bijection, so ingress restores the exact original with `unguardA2uiString`:
 *
 *   needsGuard(s) = risky(s) || (s ends with U+2060 && needsGuard(s without it))
 *   guard(s)      = needsGuard(s) ? s + U+2060 : s
 *   unguard(t)    = t ends with U+2060 && needsGuard(t without it) ? t without it : t
 *
 * The recursive clause keeps it reversible for input that already ends with the marker.
 * Padding with spaces would not help: WC trims before testing.
 */
export const GUARD_MARK = '\u2060';

function looksLikeJson(s: string): boolean {
  const t = s.trim();
  if (t.length < 2) return false;
  const first = t[0];
  const last = t[t.length - 1];
  return (first === '[' && last === ']') || (first === '{' && last === '}');
}

function risky(s: string): boolean {
  return looksLikeJson(s) || COMPONENT_ID_SHAPE.test(s);
}

function needsGuard(s: string): boolean {
  let end = s.length;
  // Iterative form of the recursive definition: strip trailing marks one at a time.
  for (;;) {
    const candidate = end === s.length ? s : s.slice(0, end);
    if (risky(candidate)) return true;
    if (end === 0 || s[end - 1] !== GUARD_MARK) return false;
    end -= 1;
  }
}

/**
 * Fast path: strings that cannot be risky skip the regex work (most labels and values). Risky
 * needs a `.` (id shape), a `[`/`{` (JSON shape) or a trailing guard mark; one regex pass.
 */
const MAYBE_RISKY = new RegExp(`[.[{]|${GUARD_MARK}$`);

function maybeRisky(s: string): boolean {
  return s.length >= 2 && MAYBE_RISKY.test(s);
}

export function guardA2uiString(s: string): string {
  return maybeRisky(s) && needsGuard(s) ? s + GUARD_MARK : s;
}

/** The inverse of `guardA2uiString`, for strings that come back from a client (ingress). */
export function unguardA2uiString(s: string): string {
  if (s.length === 0 || s[s.length - 1] !== GUARD_MARK) return s;
  const inner = s.slice(0, -1);
  return needsGuard(inner) ? inner : s;
}

/** Applies `unguardA2uiString` to every string in a resolved userAction context value. */
export function unguardA2uiValue(value: unknown): unknown {
  if (typeof value === 'string') return unguardA2uiString(value);
  if (Array.isArray(value)) return value.map(unguardA2uiValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = unguardA2uiValue(v);
    return out;
  }
  return value;
}

/** The Text literal for user text: Markdown-escaped, then guarded. */
export function plainText(s: string): string {
  return guardA2uiString(escapeMarkdown(s));
}
