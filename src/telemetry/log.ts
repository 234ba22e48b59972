import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, stdTimeFunctions, type DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import type { Logger } from '../conversation/index.ts';
import { canonicalCode } from './tracing.ts';

/*
 * Structured logs for the process (`surfacer serve`): pino, one JSON line per event with
 * `level`, `time`, `msg`, the active OpenTelemetry span's `trace_id` and `span_id` (so a line
 * leads to its trace), and the event's fields, the conversation's id as `conversation_id`.
 * The library itself only sees the `Logger` port it is handed (silent by default).
 *
 * What never reaches a line: secrets (session secret, tokens, cookies, API keys, Authorization),
 * whatever the field is called that holds them, and — unless SURFACER_LOG_CONTENT=1 — what a
 * person or the model wrote (text, prompts, raw answers, form values). Fields are filtered by
 * name here, not by pino's `redact` paths: the callers' fields are small, nested and not
 * known in advance, and a path list would miss a new one silently.
 */

export type LogFormat = 'json' | 'pretty';

export interface LogSettings {
  format: LogFormat;
  /** pino level: trace, debug, info, warn, error, fatal, silent. */
  level: string;
  /** Log what people and the model wrote (SURFACER_LOG_CONTENT=1). Off by default. */
  logContent: boolean;
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

/**
 * SURFACER_LOG_FORMAT (json | pretty; default pretty on a terminal, JSON otherwise),
 * SURFACER_LOG_LEVEL (default info), SURFACER_LOG_CONTENT=1. A bad value is an error message.
 */
export function logSettingsFromEnv(env: NodeJS.ProcessEnv, isTty: boolean): LogSettings | { error: string } {
  const format = env.SURFACER_LOG_FORMAT ?? '';
  if (format !== '' && format !== 'json' && format !== 'pretty') return { error: `SURFACER_LOG_FORMAT must be json or pretty (got "${format.slice(0, 40)}")` };
  const level = env.SURFACER_LOG_LEVEL ?? '';
  if (level !== '' && !LEVELS.has(level)) return { error: `SURFACER_LOG_LEVEL must be one of ${[...LEVELS].join(', ')} (got "${level.slice(0, 40)}")` };
  return {
    format: format === '' ? (isTty ? 'pretty' : 'json') : format,
    level: level === '' ? 'info' : level,
    logContent: env.SURFACER_LOG_CONTENT === '1',
  };
}

/** Field names that hold secrets: always replaced (compared lower-case, without _ and -). */
const SECRET_KEYS = /(secret|token|password|passwd|authorization|cookie|apikey|credential|csrf|nonce)/;
/** Field names that hold what people or the model wrote: replaced unless content logging is on. */
const CONTENT_KEYS = new Set([
  'text', 'input', 'prompt', 'prompts', 'rawtext', 'raw', 'answer', 'content', 'body', 'values', 'value', 'messages', 'fields', 'transcript', 'delta',
  // A canonical error's technical_detail quotes what it refused (a refusal's text, the answer a parser could not read).
  'detail', 'technicaldetail',
]);
const REDACTED = '[redacted]';
/** Bearer credentials and cookies inside free text (an error message quoting a header). */
const SECRET_IN_TEXT = /\b(Bearer|Basic)\s+[^\s"',;]+/gi;

function normalisedKey(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, '');
}

/** A copy of `value` with secrets (and, unless `logContent`, content) replaced; bounded depth. */
export function scrubFields(value: unknown, logContent: boolean, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(SECRET_IN_TEXT, `$1 ${REDACTED}`);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 6) return '[deep]';
  if (value instanceof Error) return errorFields(value, logContent);
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => scrubFields(item, logContent, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const k = normalisedKey(key);
    if (SECRET_KEYS.test(k)) out[key] = REDACTED;
    else if (!logContent && CONTENT_KEYS.has(k)) out[key] = REDACTED;
    else out[key] = scrubFields(item, logContent, depth + 1);
  }
  return out;
}

/**
 * An error handed to the logger as it is (not as `String(error)`): its class name, its canonical
 * code when it carries one, and where it was thrown. Its message only with content logging: a
 * message may quote what the model or a person wrote (a refusal, a parser quoting the answer it
 * could not read, a value a handler choked on), and nothing tells which ones do.
 */
function errorFields(error: Error, logContent: boolean): Record<string, unknown> {
  const code = errorCode(error);
  const fields: Record<string, unknown> = { name: error.name, ...(code === undefined ? {} : { code }) };
  if (logContent) {
    fields['message'] = scrubFields(error.message, true);
    if (typeof error.stack === 'string') fields['stack'] = scrubFields(error.stack, true);
    return fields;
  }
  const frames = stackFrames(error);
  if (frames !== undefined) fields['stack'] = frames;
  return fields;
}

/** The canonical code (PlannerError and friends: `.error.code`), else Node's own (`ECONNRESET`). */
function errorCode(error: Error): string | undefined {
  const own = canonicalCode(error);
  if (own !== undefined) return own;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? code : undefined;
}

/**
 * The stack without its first line(s), which repeat the message: V8 writes `Name: message`
 * and then the frames. When the message is not found there (changed after the throw), no stack.
 */
function stackFrames(error: Error): string | undefined {
  const stack = error.stack;
  if (typeof stack !== 'string') return undefined;
  // The last occurrence: cutting too much loses frames, cutting too little would keep text.
  const at = error.message === '' ? stack.indexOf('\n') : stack.lastIndexOf(error.message);
  if (at < 0) return undefined;
  const rest = error.message === '' ? stack.slice(at) : stack.slice(at + error.message.length);
  const frames = rest.split('\n').map((line) => line.trim()).filter((line) => line.startsWith('at '));
  return frames.length === 0 ? undefined : frames.join('\n');
}

/** The active span's ids, as the OTel log data model names them (none outside a span). */
function activeSpanIds(): { trace_id?: string; span_id?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  return context !== undefined && isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : {};
}

export interface PinoLoggerOptions extends Partial<LogSettings> {
  /** Where lines go. Default stdout (pino's). Tests pass a stream that keeps them in memory. */
  destination?: DestinationStream;
  /** Colours in the pretty format (a terminal). Default false. */
  colorize?: boolean;
}

/** The Logger port over pino: JSON lines, or pino-pretty's readable lines for a terminal. */
export function createPinoLogger(options: PinoLoggerOptions = {}): Logger {
  const logContent = options.logContent ?? false;
  const settings = {
    level: options.level ?? 'info',
    base: undefined,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    mixin: activeSpanIds,
  };
  const destination = options.format === 'pretty'
    ? pretty({ colorize: options.colorize ?? false, sync: true, ...(options.destination ? { destination: options.destination } : {}) })
    : options.destination;
  const log = destination === undefined ? pino(settings) : pino(settings, destination);
  const line = (level: 'info' | 'warn' | 'error') => (message: string, fields?: Record<string, unknown>): void => {
    if (fields === undefined) {
      log[level](message);
      return;
    }
    const { cid, ...rest } = scrubFields(fields, logContent) as Record<string, unknown>;
    log[level](cid === undefined ? rest : { conversation_id: cid, ...rest }, message);
  };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}
