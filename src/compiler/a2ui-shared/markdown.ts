/**
 * Official renderers render `Text` as Markdown: every Text in v0.8 (a2ui-v0.8.md §3.3), only the
 * `body` variant in v0.9 (the basic catalogue's Text shows h1–h5 and caption as they are).
 * User-visible strings are plain text (design.md §5.1): this backslash-escapes every
 * CommonMark-significant character so `*x*` shows the stars. Only for what a Markdown Text
 * shows (literals, and the display-only data it binds); input labels and /draft are not Markdown.
 */
const INLINE_SYNTAX = /[\\`*_[\]<>#~|!&]/;
const LINE_START_SYNTAX = /^[ \t]*(?:[-+=]|\d{1,9}[.)])/m;

/**
 * Every character either pattern needs to match: the inline set, and the line-start markers
 * `-+=` and `.)` (an ordered-list number ends in one). Text without any of them cannot match,
 * so one scan replaces both regexes (most labels).
 */
const MARKDOWN_CHAR = /[\\`*_[\]<>#~|!&\-+=.)]/;

export function escapeMarkdown(s: string): string {
  if (!MARKDOWN_CHAR.test(s)) return s;
  if (!INLINE_SYNTAX.test(s) && !LINE_START_SYNTAX.test(s)) return s;
  const inline = s.replace(/[\\`*_[\]<>#~|!&]/g, '\\$&');
  // Block markers only matter at the start of a line: lists, quotes, setext underlines, ordered lists.
  return inline
    .replace(/^([ \t]*)([-+=])/gm, '$1\\$2')
    .replace(/^([ \t]*\d{1,9})([.)])/gm, '$1\\$2');
}

