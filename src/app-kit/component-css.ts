/**
 * A component's stylesheet for the htmx page (ComponentDefinition.css), checked once at startup.
 *
 * The page serves every component's CSS as one file beside its own, so a stray `body { … }` or
 * `.button { … }` in one component would restyle the whole page and every other component. Each
 * rule must therefore name the component's own class (`.portrait-card`, `.portrait-card__name`,
 * `.portrait-card--wide`): a guard against accidents, not a sandbox (the CSS is the app's own
 * code). Only the at-rules that hold such rules are allowed, and keyframes named after the class;
 * `@import`, `@font-face` and the like would reach beyond the component.
 */

/** Longer than any component's styles need; the page loads them all on every visit. */
export const MAX_COMPONENT_CSS = 64 * 1024;

/** At-rules whose blocks hold rules (checked like top-level ones). */
const GROUPING = new Set(['media', 'supports', 'container']);
const KEYFRAMES = new Set(['keyframes', '-webkit-keyframes']);

/** The class a component's markup and CSS are named by: `PortraitCard` → `portrait-card`. */
export function componentClass(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/([A-Z])([A-Z][a-z])/g, '$1-$2').toLowerCase();
}

/** Why `css` is not scoped to `.<cls>` (a sentence), or undefined when it is. Pure. */
export function componentCssProblem(css: string, cls: string): string | undefined {
  if (css.length > MAX_COMPONENT_CSS) return `the css is over ${MAX_COMPONENT_CSS} characters`;
  const text = withoutComments(css);
  if (text === undefined) return 'a comment is not closed';
  // `cls` is [a-z0-9-] (componentClass of a ComponentName): nothing to escape.
  const scoped = new RegExp(`\\.${cls}(?:__[\\w-]*|--[\\w-]*)?(?![\\w-])`);
  const keyframesName = new RegExp(`^${cls}(?:-[\\w-]+)?$`);
  return rulesProblem(text, 0, text.length, { cls, scoped, keyframesName });
}

interface Scope { cls: string; scoped: RegExp; keyframesName: RegExp }

/** Comments blanked out (strings kept: a comment mark inside one is text); undefined if one is left open. */
function withoutComments(css: string): string | undefined {
  let out = '';
  let i = 0;
  while (i < css.length) {
    const ch = css[i]!;
    if (ch === '"' || ch === '\'') {
      const end = stringEnd(css, i);
      out += css.slice(i, end);
      i = end;
    } else if (ch === '/' && css[i + 1] === '*') {
      const close = css.indexOf('*/', i + 2);
      if (close < 0) return undefined;
      out += ' ';
      i = close + 2;
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
}

/** The index just past the string opening at `at` (its end, if it is not closed). */
function stringEnd(text: string, at: number): number {
  const quote = text[at];
  let i = at + 1;
  while (i < text.length && text[i] !== quote) i += text[i] === '\\' ? 2 : 1;
  return Math.min(i + 1, text.length);
}

/** The index of the `}` closing the `{` at `open` (before `to`), or -1. */
function closeOf(text: string, open: number, to: number): number {
  let depth = 0;
  for (let i = open; i < to; i++) {
    const ch = text[i];
    if (ch === '"' || ch === '\'') i = stringEnd(text, i) - 1;
    else if (ch === '{') depth += 1;
    else if (ch === '}' && (depth -= 1) === 0) return i;
  }
  return -1;
}

/** Checks the rules between `from` and `to` (the sheet, or a grouping at-rule's block). */
function rulesProblem(text: string, from: number, to: number, scope: Scope): string | undefined {
  let start = from;
  let i = from;
  while (i < to) {
    const ch = text[i];
    if (ch === '"' || ch === '\'') {
      i = stringEnd(text, i);
      continue;
    }
    if (ch === '{') {
      const close = closeOf(text, i, to);
      if (close < 0) return 'a block is not closed';
      const problem = ruleProblem(text.slice(start, i).trim(), text, i + 1, close, scope);
      if (problem !== undefined) return problem;
      i = close + 1;
      start = i;
      continue;
    }
    if (ch === '}') return 'a "}" closes no block';
    if (ch === ';') {
      const statement = text.slice(start, i).trim();
      if (statement !== '') return `${JSON.stringify(statement.slice(0, 60))} is not a rule (at-rules such as @import are not allowed)`;
      start = i + 1;
    }
    i += 1;
  }
  const rest = text.slice(start, to).trim();
  return rest === '' ? undefined : `${JSON.stringify(rest.slice(0, 60))} has no block`;
}

function ruleProblem(prelude: string, text: string, from: number, to: number, scope: Scope): string | undefined {
  if (prelude === '') return 'a rule has no selector';
  if (prelude.startsWith('@')) {
    const name = /^@([\w-]+)/.exec(prelude)?.[1]?.toLowerCase() ?? '';
    if (GROUPING.has(name)) return rulesProblem(text, from, to, scope);
    if (KEYFRAMES.has(name)) {
      const animation = prelude.slice(name.length + 1).trim();
      return scope.keyframesName.test(animation) ? undefined : `keyframes ${JSON.stringify(animation)} must be named ${scope.cls} or ${scope.cls}-…`;
    }
    return `@${name} is not allowed (only @media, @supports, @container and @keyframes ${scope.cls}-…)`;
  }
  for (const selector of selectors(prelude)) {
    if (!scope.scoped.test(outsideOf(selector))) return `selector ${JSON.stringify(selector)} does not name .${scope.cls} (or .${scope.cls}__…, .${scope.cls}--…)`;
  }
  return undefined;
}

/**
 * `selector` without its :not(…) and :has(…) arguments: `body:has(.portrait-card)` and
 * `:not(.portrait-card) p` name the class but style elements outside the component.
 */
function outsideOf(selector: string): string {
  let out = selector;
  for (let at = out.search(/:(?:not|has)\(/i); at >= 0; at = out.search(/:(?:not|has)\(/i)) {
    let depth = 0;
    let end = out.indexOf('(', at);
    for (; end < out.length; end++) {
      if (out[end] === '(') depth += 1;
      else if (out[end] === ')' && (depth -= 1) === 0) break;
    }
    out = `${out.slice(0, at)}${out.slice(end + 1)}`;
  }
  return out;
}

/** A selector list split at its top-level commas (not those inside :is(…) or [attr="…"]). */
function selectors(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (ch === '"' || ch === '\'') i = stringEnd(list, i) - 1;
    else if (ch === '(' || ch === '[') depth += 1;
    else if (ch === ')' || ch === ']') depth -= 1;
    else if (ch === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(list.slice(start).trim());
  return out;
}
