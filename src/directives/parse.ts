import type { SurfacerError } from '../errors/index.ts';
import { emptyDiagnostics, issue, type Diagnostics } from './diagnostics.ts';
import { toEnvelope, type RawEnvelope } from './envelope.ts';
import { findDirectiveRegions, tryParseJson, type JsonRepair } from './json-repair.ts';
import { resolveLimits, utf8Bytes, type DirectiveLimits } from './limits.ts';

export type ParseResult =
  | { ok: true; envelope: RawEnvelope; warnings: SurfacerError[] }
  | { ok: false; errors: SurfacerError[]; warnings: SurfacerError[] };

const REPAIR_NAMES: Record<JsonRepair, string> = {
  smart_quotes: 'smart quotes', trailing_commas: 'trailing commas', control_chars: 'raw control characters in strings',
};

/**
 * Reads raw model text into an envelope. Canonical input is exactly one JSON envelope (blank
 * space around it is fine). Also read, each with a DIRECTIVE_WARN_TEXT_REPAIRED warning: a
 * UTF-8 BOM, markdown code fences, prose before/after the JSON, smart quotes, trailing commas,
 * raw newlines inside strings; several JSON blocks are concatenated in order
 * (DIRECTIVE_WARN_SHAPE_REPAIRED). Never throws.
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
  const blocks = whole.ok
    ? [{ value: whole.value, repairs: whole.repairs }]
    : findDirectiveRegions(body);
  if (!whole.ok && blocks.length > 0) {
    if (/```|~~~/.test(body)) notes.push('markdown code fences');
    const outside = outsideRegions(body, blocks as Array<{ start: number; end: number }>).replace(/```[A-Za-z0-9_-]*|~~~/g, '');
    if (outside.trim() !== '') notes.push('prose around the JSON');
    else if (/[^ \t\r\n]/.test(outside)) notes.push('non-JSON blank characters');
  }
  const repairs = new Set(blocks.flatMap((b) => b.repairs));
  for (const r of repairs) notes.push(REPAIR_NAMES[r]);
  if (notes.length > 0) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_TEXT_REPAIRED', '', `read past ${notes.join(', ')}`));
  }
  if (blocks.length === 0) {
    return fail(diagnostics, issue('DIRECTIVE_PARSE_FAILED', '', body.trim() === '' ? 'empty reply' : 'no directive JSON found in the reply'));
  }
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
