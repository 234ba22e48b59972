import type { SurfacerError } from '../errors/index.ts';
import { emptyDiagnostics, issue, type Diagnostics } from './diagnostics.ts';
import { A2UI_MESSAGE_KEYS, isWholeAnswer, looksLikeDirectives } from './drift.ts';
import { toEnvelope, type RawEnvelope } from './envelope.ts';
import { brokenJson, findDirectiveRegions, tryParseJson, type JsonRegion, type JsonRepair } from './json-repair.ts';
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

// What separates a reply that tried to be JSON or a tool call (and failed) from a plain prose answer.
const ATTEMPTED_JSON = /\{\s*["'\u201C\u201D}]|\[\s*\{|```|~~~|<invoke\b/;
const A2UI_KEYS = new RegExp(`"(${A2UI_MESSAGE_KEYS.join('|')})"\\s*:`);
const HTML_MARKUP = /<\/?(form|input|div|button|select|textarea|html|body|label|span|table|ul|ol|li|h[1-6]|p)\b[^>]{0,200}>/i;

/**
 * Reads raw model text into an envelope. Canonical input is exactly one JSON envelope (blank
 * space around it is fine). Also read, each with a warning: a UTF-8 BOM, reasoning blocks
 * (`<think>…</think>` and kin, DIRECTIVE_WARN_REASONING_STRIPPED), chat-template tokens, tagged
 * tool calls, markdown code fences, prose before/after the JSON, and the JSON dialects of
 * json-repair.ts. Only the answer is applied (answerRegions): the first whole envelope, or the
 * lone directives and tool calls before any, concatenated in order (DIRECTIVE_WARN_SHAPE_REPAIRED);
 * JSON after it is prose (DIRECTIVE_WARN_EXTRA_JSON_IGNORED). A reply of prose only is the
 * assistant's plain answer (DIRECTIVE_WARN_PROSE_ONLY). Refused with a stable code: an empty
 * reply and JSON that cannot be read (DIRECTIVE_PARSE_FAILED), a reply cut off inside its JSON,
 * its reasoning or a tool call (DIRECTIVE_REPLY_TRUNCATED), A2UI or HTML written directly
 * (DIRECTIVE_MARKUP_FORBIDDEN). Never throws.
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
  const { answer, ignored, limit } = answerRegions(blocks, cleaned.text.length);
  const broken = brokenJson(cleaned.text, blocks, limit);
  if (broken === 'truncated') {
    return fail(diagnostics, issue('DIRECTIVE_REPLY_TRUNCATED', '', 'the reply ends inside an unclosed JSON object or array'));
  }
  if (broken === 'unreadable') {
    return fail(diagnostics, issue('DIRECTIVE_PARSE_FAILED', '', 'the JSON holding the directives could not be read (its complete directives are not applied alone)'));
  }
  if (blocks.length === 0) return withoutJson(trimmed, notes, diagnostics);
  if (/```|~~~/.test(cleaned.text)) notes.push('markdown code fences');
  const outside = outsideRegions(cleaned.text, answer).replace(/```[A-Za-z0-9_-]*|~~~/g, '');
  if (outside.trim() !== '') notes.push('prose around the JSON');
  else if (/[^ \t\r\n]/.test(outside)) notes.push('non-JSON blank characters');
  if (ignored.length > 0) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_EXTRA_JSON_IGNORED', '', `${ignored.length} JSON block${ignored.length === 1 ? '' : 's'} after the answer read as prose, not applied`));
  }
  return finishBlocks(answer, notes, diagnostics);
}

/**
 * Which of the JSON blocks found are the answer, by shape and position. A whole answer (an
 * envelope, a list, a tool_calls message) found first is the answer alone; lone directives and
 * tool calls before any whole answer are read together, in order. What follows (a whole answer
 * after lone directives, anything after a whole answer) is JSON quoted in the prose around the
 * answer, an example or an explanation, which would otherwise repeat or undo it. `limit`: where
 * the answer's text ends, past which broken JSON is prose too.
 */
function answerRegions(blocks: JsonRegion[], length: number): { answer: JsonRegion[]; ignored: JsonRegion[]; limit: number } {
  const whole = blocks.findIndex((b) => isWholeAnswer(b.value));
  if (whole === -1) return { answer: blocks, ignored: [], limit: length };
  const cut = whole === 0 ? 1 : whole;
  return { answer: blocks.slice(0, cut), ignored: blocks.slice(cut), limit: whole === 0 ? blocks[0]!.end + 1 : blocks[whole]!.start };
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
  if (tools.unclosed) return { ok: false, error: issue('DIRECTIVE_REPLY_TRUNCATED', '', 'the reply ends inside a tool call') };
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
  // Several blocks are lone directives or tool calls (answerRegions): no text of their own.
  diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '', `${values.length} JSON blocks were concatenated into one envelope`));
  const directives: unknown[] = [];
  for (const value of values) {
    const envelope = toEnvelope(value, diagnostics);
    if (envelope.ok) directives.push(...envelope.envelope.directives);
    else diagnostics.errors.push(envelope.error);
  }
  if (diagnostics.errors.length > 0) return { ok: false, errors: diagnostics.errors, warnings: diagnostics.warnings };
  return { ok: true, envelope: { directives }, warnings: diagnostics.warnings };
}

function fail(diagnostics: Diagnostics, error: SurfacerError): ParseResult {
  return { ok: false, errors: [...diagnostics.errors, error], warnings: diagnostics.warnings };
}
