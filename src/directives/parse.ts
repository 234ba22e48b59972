import type { SurfacerError } from '../errors/index.ts';
import { emptyDiagnostics, issue, type Diagnostics } from './diagnostics.ts';
import { A2UI_MESSAGE_KEYS, looksLikeDirectives } from './drift.ts';
import { toEnvelope, type RawEnvelope } from './envelope.ts';
import { brokenJson, findDirectiveRegions, tryParseJson, type JsonRepair } from './json-repair.ts';
import { stripReasoning, stripTemplateTokens } from './reply-text.ts';
import { unwrapToolCallTags } from './tool-call-text.ts';
import { resolveLimits, utf8Bytes, type DirectiveLimits } from './limits.ts';

export type ParseResult =
  | { ok: true; envelope: RawEnvelope; warnings: SurfacerError[] }
  | { ok: false; errors: SurfacerError[]; warnings: SurfacerError[] };

const REPAIR_NAMES: Record<JsonRepair, string> = {
  smart_quotes: 'smart quotes', trailing_commas: 'trailing commas', control_chars: 'raw control characters in strings',
  single_quotes: 'single-quoted strings', python_literals: 'Python/JavaScript literals (True, False, None)',
  non_finite_numbers: 'non-finite numbers (NaN, Infinity) read as null', comments: 'comments', unquoted_keys: 'unquoted keys',
  invalid_escapes: 'escaped apostrophes',
};

// What separates a reply that tried to be JSON (and failed) from a plain prose answer.
const ATTEMPTED_JSON = /\{\s*["'\u201C\u201D}]|\[\s*\{|```|~~~/;
const A2UI_KEYS = new RegExp(`"(${A2UI_MESSAGE_KEYS.join('|')})"\\s*:`);
const HTML_MARKUP = /<\/?(form|input|div|button|select|textarea|html|body|label|span|table|ul|ol|li|h[1-6]|p)\b[^>]{0,200}>/i;

/**
 * Reads raw model text into an envelope. Canonical input is exactly one JSON envelope (blank
 * space around it is fine). Also read, each with a warning: a UTF-8 BOM, reasoning blocks
 * (`<think>…</think>` and kin, DIRECTIVE_WARN_REASONING_STRIPPED), chat-template tokens, tagged
 * tool calls, markdown code fences, prose before/after the JSON, and the JSON dialects of
 * json-repair.ts; several JSON blocks are concatenated in order (DIRECTIVE_WARN_SHAPE_REPAIRED).
 * A reply of prose only is the assistant's plain answer (DIRECTIVE_WARN_PROSE_ONLY). Refused
 * with a stable code: an empty reply and JSON that cannot be read (DIRECTIVE_PARSE_FAILED), a
 * reply cut off inside its JSON or its reasoning (DIRECTIVE_REPLY_TRUNCATED), A2UI or HTML
 * written directly (DIRECTIVE_MARKUP_FORBIDDEN). Never throws.
 */
export function safeParseModelOutput(text: string, limits?: Partial<DirectiveLimits>): ParseResult {
  const { maxTextBytes } = resolveLimits(limits);
  const diagnostics = emptyDiagnostics();
  if (utf8Bytes(text) > maxTextBytes) {
    return fail(diagnostics, issue('DIRECTIVE_BUDGET_EXCEEDED', '', `reply is larger than ${maxTextBytes} bytes`));
  }
  const notes: string[] = [];
  let body = text;
  if (body.startsWith('\uFEFF')) {
    body = body.slice(1);
    notes.push('a byte order mark');
  }
  const whole = tryParseJson(body);
  if (whole.ok) return finishBlocks([{ value: whole.value, repairs: whole.repairs }], notes, diagnostics);
  const cleaned = cleanReply(body, notes, diagnostics);
  if (!cleaned.ok) return fail(diagnostics, cleaned.error);
  const trimmed = cleaned.text.trim();
  const again = cleaned.text === body ? { ok: false as const } : tryParseJson(trimmed);
  if (again.ok) return finishBlocks([{ value: again.value, repairs: again.repairs }], notes, diagnostics);
  const blocks = findDirectiveRegions(cleaned.text, looksLikeDirectives);
  const broken = brokenJson(cleaned.text, blocks);
  if (broken === 'truncated') {
    return fail(diagnostics, issue('DIRECTIVE_REPLY_TRUNCATED', '', 'the reply ends inside an unclosed JSON object or array'));
  }
  if (broken === 'unreadable') {
    return fail(diagnostics, issue('DIRECTIVE_PARSE_FAILED', '', 'the JSON holding the directives could not be read (its complete directives are not applied alone)'));
  }
  if (blocks.length === 0) return withoutJson(trimmed, notes, diagnostics);
  if (/```|~~~/.test(cleaned.text)) notes.push('markdown code fences');
  const outside = outsideRegions(cleaned.text, blocks).replace(/```[A-Za-z0-9_-]*|~~~/g, '');
  if (outside.trim() !== '') notes.push('prose around the JSON');
  else if (/[^ \t\r\n]/.test(outside)) notes.push('non-JSON blank characters');
  return finishBlocks(blocks, notes, diagnostics);
}

type Cleaned = { ok: true; text: string } | { ok: false; error: SurfacerError };

/** Reasoning blocks, template tokens and tool-call tags: what chat models put around the answer. */
function cleanReply(body: string, notes: string[], diagnostics: Diagnostics): Cleaned {
  const reasoning = stripReasoning(body);
  if (reasoning.found) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_REASONING_STRIPPED', '', reasoning.unclosed ? 'an unclosed reasoning block' : 'reasoning blocks were left out'));
  }
  if (reasoning.unclosed) {
    return { ok: false, error: issue('DIRECTIVE_REPLY_TRUNCATED', '', 'the reply ends inside a reasoning block') };
  }
  // Tool-call tags first: gpt-oss writes its calls with template tokens the next step removes.
  const tools = unwrapToolCallTags(reasoning.text);
  if (tools.found) diagnostics.warnings.push(issue('DIRECTIVE_WARN_TOOL_CALL_READ', '', 'tagged tool calls were read as JSON'));
  const tokens = stripTemplateTokens(tools.text);
  if (tokens.found) notes.push('chat template tokens');
  return { ok: true, text: tokens.text };
}

/** No directive JSON anywhere: an empty reply, markup, broken JSON, or a plain prose answer. */
function withoutJson(trimmed: string, notes: string[], diagnostics: Diagnostics): ParseResult {
  if (trimmed === '') return fail(diagnostics, issue('DIRECTIVE_PARSE_FAILED', '', 'empty reply'));
  const a2ui = A2UI_KEYS.exec(trimmed);
  if (a2ui !== null) return fail(diagnostics, issue('DIRECTIVE_MARKUP_FORBIDDEN', '', `an A2UI "${a2ui[1]}" message instead of directives`));
  const html = HTML_MARKUP.exec(trimmed);
  if (html !== null) return fail(diagnostics, issue('DIRECTIVE_MARKUP_FORBIDDEN', '', `HTML (<${html[1]}>) instead of directives`));
  if (ATTEMPTED_JSON.test(trimmed)) return fail(diagnostics, issue('DIRECTIVE_PARSE_FAILED', '', 'no directive JSON found in the reply'));
  noteRepairs(notes, [], diagnostics);
  diagnostics.warnings.push(issue('DIRECTIVE_WARN_PROSE_ONLY', '', 'the reply is prose only; shown as the assistant\'s answer'));
  return { ok: true, envelope: { directives: [], assistant_text: trimmed }, warnings: diagnostics.warnings };
}

function noteRepairs(notes: string[], repairs: readonly JsonRepair[], diagnostics: Diagnostics): void {
  const all = [...notes, ...new Set(repairs)].map((n) => (Object.hasOwn(REPAIR_NAMES, n) ? REPAIR_NAMES[n as JsonRepair] : n));
  if (all.length > 0) diagnostics.warnings.push(issue('DIRECTIVE_WARN_TEXT_REPAIRED', '', `read past ${all.join(', ')}`));
}

function finishBlocks(blocks: ReadonlyArray<{ value: unknown; repairs: JsonRepair[] }>, notes: string[], diagnostics: Diagnostics): ParseResult {
  noteRepairs(notes, blocks.flatMap((b) => b.repairs), diagnostics);
  return combine(blocks.map((b) => b.value), diagnostics);
}

/** Parses, or throws an Error carrying the first SurfacerError; for shells that want exceptions. */
export function parseModelOutput(text: string, limits?: Partial<DirectiveLimits>): RawEnvelope {
  const result = safeParseModelOutput(text, limits);
  if (!result.ok) throw Object.assign(new Error(result.errors[0]?.technical_detail ?? 'parse failed'), { errors: result.errors });
  return result.envelope;
}

function outsideRegions(text: string, regions: ReadonlyArray<{ start: number; end: number }>): string {
  let out = '';
  let from = 0;
  for (const r of regions) {
    out += text.slice(from, r.start);
    from = r.end + 1;
  }
  return out + text.slice(from);
}

function combine(values: unknown[], diagnostics: Diagnostics): ParseResult {
  if (values.length === 1) {
    const only = toEnvelope(values[0], diagnostics);
    return only.ok ? { ok: true, envelope: only.envelope, warnings: diagnostics.warnings } : fail(diagnostics, only.error);
  }
  diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '', `${values.length} JSON blocks were concatenated into one envelope`));
  const directives: unknown[] = [];
  const texts: unknown[] = [];
  for (const value of values) {
    const envelope = toEnvelope(value, diagnostics);
    if (!envelope.ok) {
      diagnostics.errors.push(envelope.error);
      continue;
    }
    directives.push(...envelope.envelope.directives);
    if (envelope.envelope.assistant_text !== undefined) texts.push(envelope.envelope.assistant_text);
  }
  if (diagnostics.errors.length > 0) return { ok: false, errors: diagnostics.errors, warnings: diagnostics.warnings };
  const envelope: RawEnvelope = { directives };
  if (texts.length > 0) {
    envelope.assistant_text = texts.every((t) => typeof t === 'string') ? texts.join('\n\n') : texts[0];
  }
  return { ok: true, envelope, warnings: diagnostics.warnings };
}

function fail(diagnostics: Diagnostics, error: SurfacerError): ParseResult {
  return { ok: false, errors: [...diagnostics.errors, error], warnings: diagnostics.warnings };
}
