import type { SurfacerError } from '../errors/index.ts';
import { toSnakeCase } from './key-case.ts';
import type { DirectiveRegistry } from './registry.ts';
import { validateModelOutput, type ValidateOptions, type ValidDirective, type ValidationResult } from './validate.ts';

/**
 * The incremental envelope reader (docs/streaming.md): fed a model's answer chunk by chunk, it
 * says what can be shown before the answer is complete. Pure and synchronous; chunk boundaries
 * never change what it says, only when.
 *
 * - `text`: the envelope's `assistant_text` as it grows (decoded JSON string content): a
 *   preview, shown while the answer arrives; what is applied is the text validated with the
 *   first directive, or the whole answer's.
 * - `directive`: a directive whose JSON object has just closed, validated exactly as the whole
 *   answer would be: the answer so far, closed after that directive (`…}]}`), goes through the
 *   same parser, drift handling and validation (validateModelOutput); the directive at that
 *   position is yielded when it passed, `rejected` with its errors when it did not.
 *
 * Never half a directive: nothing is yielded before its closing brace, and a closed prefix that
 * is not plain JSON (a dialect the whole parser repairs, prose, fences past the start) stops
 * the progressive reading: the answer is then read whole at the end, as before. `finish` parses
 * the whole text and says whether it agrees with what was yielded, and which directives remain.
 *
 * Read progressively: a canonical envelope (`{"assistant_text": …, "directives": [ … ]}`, key
 * case as the whole parser reads it) or a bare array of directives, after blank space, a BOM or
 * an opening code fence.
 */
export type StreamEvent =
  | { kind: 'text'; delta: string; /** Offset in the raw answer just after the text read. */ offset: number }
  | { kind: 'directive'; directive: ValidDirective; /** Offset in the raw answer just after its closing brace. */ offset: number }
  | { kind: 'rejected'; index: number; errors: SurfacerError[]; offset: number };

export interface StreamReaderOptions extends ValidateOptions {
  /** How a closed prefix becomes what the parser reads (Planner.mapText: OpenAI strict nulls). */
  mapText?: (text: string) => string;
}

export interface StreamFinish {
  /** The whole answer, validated as a non-streamed answer is. */
  whole: ValidationResult;
  /** Directive positions closed while streaming (yielded or rejected). */
  closed: number;
  /** Valid directives of the whole answer past what was read progressively, in order. */
  rest: ValidDirective[];
  /** The whole answer ends inside its JSON (DIRECTIVE_REPLY_TRUNCATED): a cut-off stream. */
  truncated: boolean;
  /**
   * The whole answer agrees with what was yielded: the same valid directives (type and payload)
   * at the same positions, and the same assistant text. False means the streamed reading and
   * the whole reading differ (e.g. a batch budget only the whole answer exceeds). A truncated
   * answer has no whole reading to compare with: what closed before the cut is what counts.
   */
  agrees: boolean;
}

export interface EnvelopeStreamReader {
  push(chunk: string): StreamEvent[];
  finish(): StreamFinish;
  /** Everything pushed so far. */
  readonly text: string;
  /** Valid directives yielded so far, in order. */
  readonly yielded: readonly ValidDirective[];
  /** The assistant text yielded so far (a preview: an answer refused whole is not shown after all). */
  readonly assistantText: string;
  /** The envelope's assistant_text as validated with the first directive yielded (applied with it). */
  readonly appliedText: string | undefined;
}

type Frame = { kind: 'object'; key: string | undefined; expectKey: boolean } | { kind: 'array' };

export function createEnvelopeStreamReader(registry: DirectiveRegistry, options: StreamReaderOptions): EnvelopeStreamReader {
  let text = '';
  let pos = 0;
  // 'start': before the JSON; 'fence': inside the opening fence line; 'json': reading; 'off': not read progressively.
  let phase: 'start' | 'fence' | 'json' | 'off' | 'end' = 'start';
  let jsonStart = 0;
  const stack: Frame[] = [];
  let inString = false;
  let escape = '';
  let stringIsKey = false;
  let keyBuffer = '';
  let textValue = false;
  let directivesDepth = -1;
  let directiveStart = -1;
  let closed = 0;
  let assistantText = '';
  const yielded: ValidDirective[] = [];
  /** The envelope's assistant_text as validated with the first directive yielded (applied with it). */
  let firstText: string | undefined;
  /** assistant_text read but not yet handed out (one text event per push, before any directive). */
  const delta = { text: '' };
  const validate = { mode: 'best_effort' as const, ...(options.limits ? { limits: options.limits } : {}) };

  function closers(): string {
    let out = '';
    for (let i = stack.length - 1; i >= 0; i--) out += stack[i]!.kind === 'array' ? ']' : '}';
    return out;
  }

  function onDirectiveClosed(end: number, events: StreamEvent[]): void {
    const index = closed++;
    const prefix = text.slice(jsonStart, end) + closers();
    try {
      JSON.parse(prefix);
    } catch {
      phase = 'off'; // a dialect only the whole parser reads: no guessing mid-stream
      closed--;
      return;
    }
    const mapped = options.mapText ? options.mapText(prefix) : prefix;
    const result = validateModelOutput(registry, mapped, validate);
    const found = result.directives.find((d) => d.index === index);
    if (found !== undefined) {
      if (yielded.length === 0) firstText = result.assistantText;
      yielded.push(found);
      events.push({ kind: 'directive', directive: found, offset: end });
      return;
    }
    const own = `/directives/${index}`;
    const errors = result.errors.filter((e) => e.pointer === own || e.pointer?.startsWith(`${own}/`) === true);
    events.push({ kind: 'rejected', index, errors: errors.length > 0 ? errors : result.errors, offset: end });
  }

  function isDirectivesKey(key: string | undefined): boolean {
    return key !== undefined && toSnakeCase(key) === 'directives';
  }

  function open(kind: Frame['kind'], at: number): void {
    const parent = stack.at(-1);
    // A directive: an object right inside the directives array.
    if (kind === 'object' && parent?.kind === 'array' && stack.length - 1 === directivesDepth) directiveStart = at;
    // The directives array: the top-level array, or the array under "directives" of the top-level object.
    if (kind === 'array' && directivesDepth === -1
      && (stack.length === 0 || (stack.length === 1 && parent?.kind === 'object' && isDirectivesKey(parent.key)))) {
      directivesDepth = stack.length;
    }
    stack.push(kind === 'object' ? { kind, key: undefined, expectKey: true } : { kind });
  }

  function step(c: string, at: number, events: StreamEvent[]): void {
    if (inString) {
      if (escape !== '') {
        escape += c;
        if (escape.startsWith('\\u') ? escape.length < 6 : escape.length < 2) return;
        const decoded = decodeEscape(escape);
        escape = '';
        if (stringIsKey) keyBuffer += decoded;
        else if (textValue) delta.text += decoded;
        return;
      }
      if (c === '\\') { escape = c; return; }
      if (c === '"') {
        inString = false;
        const top = stack.at(-1);
        if (stringIsKey && top?.kind === 'object') { top.key = keyBuffer; top.expectKey = false; }
        textValue = false;
        return;
      }
      if (stringIsKey) keyBuffer += c;
      else if (textValue) delta.text += c;
      return;
    }
    const top = stack.at(-1);
    switch (c) {
      case '"':
        inString = true;
        stringIsKey = top?.kind === 'object' && top.expectKey;
        keyBuffer = '';
        // The envelope's assistant_text: a string value of the top-level object.
        textValue = !stringIsKey && stack.length === 1 && top?.kind === 'object' && top.key !== undefined && toSnakeCase(top.key) === 'assistant_text';
        return;
      case '{': open('object', at); return;
      case '[': open('array', at); return;
      case '}': case ']': {
        stack.pop();
        if (c === '}' && directiveStart !== -1 && stack.length - 1 === directivesDepth) {
          directiveStart = -1;
          flushText(events, at);
          onDirectiveClosed(at + 1, events);
        }
        if (stack.length === 0) phase = 'end';
        return;
      }
      case ',':
        if (top?.kind === 'object') { top.expectKey = true; top.key = undefined; }
        return;
      default:
    }
  }

  function push(chunk: string): StreamEvent[] {
    text += chunk;
    const events: StreamEvent[] = [];
    for (; pos < text.length && (phase === 'start' || phase === 'fence' || phase === 'json'); pos++) {
      const c = text[pos]!;
      if (phase === 'start') {
        if (c === '\uFEFF' || c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
        if (c === '`') { phase = 'fence'; continue; }
        if (c === '{' || c === '[') { phase = 'json'; jsonStart = pos; step(c, pos, events); continue; }
        phase = 'off';
        break;
      }
      if (phase === 'fence') {
        // ``` and a language tag up to the end of the line.
        if (c === '\n') phase = 'start';
        else if (!/[`A-Za-z0-9_-]/.test(c)) phase = 'off';
        continue;
      }
      step(c, pos, events);
    }
    flushText(events, pos);
    return events;
  }

  function flushText(events: StreamEvent[], offset: number): void {
    if (delta.text === '') return;
    assistantText += delta.text;
    events.push({ kind: 'text', delta: delta.text, offset });
    delta.text = '';
  }

  function finish(): StreamFinish {
    const mapped = options.mapText ? options.mapText(text) : text;
    const whole = validateModelOutput(registry, mapped, options);
    const wholeBest = options.mode === 'best_effort' ? whole : validateModelOutput(registry, mapped, validate);
    const early = wholeBest.directives.filter((d) => d.index < closed);
    const sameDirectives = early.length === yielded.length
      && early.every((d, i) => d.index === yielded[i]!.index && d.type === yielded[i]!.type && JSON.stringify(d.payload) === JSON.stringify(yielded[i]!.payload));
    // The text events are a preview; what is applied is the text validated with the first directive.
    const sameText = yielded.length === 0 || firstText === wholeBest.assistantText;
    const truncated = wholeBest.errors.some((e) => e.code === 'DIRECTIVE_REPLY_TRUNCATED');
    return { whole, closed, rest: wholeBest.directives.filter((d) => d.index >= closed), truncated, agrees: truncated || (sameDirectives && sameText) };
  }

  return {
    push, finish,
    get text() { return text; },
    get yielded() { return yielded; },
    get assistantText() { return assistantText; },
    get appliedText() { return firstText; },
  };
}

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function decodeEscape(escape: string): string {
  if (escape.startsWith('\\u')) {
    const code = Number.parseInt(escape.slice(2), 16);
    return Number.isNaN(code) ? '' : String.fromCharCode(code);
  }
  return SIMPLE_ESCAPES[escape[1]!] ?? escape[1]!;
}
