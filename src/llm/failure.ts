import { makeError, type SurfacerError } from '../errors/index.ts';

/**
 * One classification of provider failures for every client (ollama-js, openai): what the error
 * is (a canonical LLM_* code), whether trying again can help, and how long the provider asked
 * us to wait. Messages are read only to recognise "unsupported parameter" answers, which
 * providers give as 400, 404 or 422 with nothing machine-readable in common.
 */
export interface ProviderFailure {
  error: SurfacerError;
  /** 429, 5xx, 408/409 and a reset connection: worth another try. */
  transient: boolean;
  /** From Retry-After / retry-after-ms, when the provider sent one. */
  retryAfterMs?: number;
}

/** What the transport saw of the last HTTP answer (the clients do not all expose headers). */
export interface ObservedResponse {
  status: number;
  retryAfterMs?: number;
}

export interface FailureContext {
  caller: AbortSignal;
  timeout: AbortSignal;
  response?: ObservedResponse | undefined;
}

// OpenRouter: "No endpoints found that support the requested parameters"; OpenAI: "Unsupported
// parameter: 'temperature' is not supported with this model."; vLLM/FastAPI: "Extra inputs are
// not permitted"; llama.cpp/LM Studio: "unrecognized/unknown field".
const UNSUPPORTED = /unsupported (parameter|value|field|argument)|is not supported|not supported (with|by|for)|does not support|unrecognized (request )?(argument|parameter|field|key)|unknown (parameter|field|argument|key)|no endpoints found that (support|can handle)|extra (inputs|fields) (are )?not permitted|additional properties are not allowed|invalid (parameter|field)/i;
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

type Loose = {
  status?: unknown; status_code?: unknown; param?: unknown; code?: unknown; cause?: unknown; name?: unknown; message?: unknown;
  error?: unknown;
};

/** The innermost `code` of an error's cause chain (undici nests the socket error two deep). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as Loose).code;
    if (typeof code === 'string' && (RESET.has(code) || UNREACHABLE.has(code))) return code;
    current = (current as Loose).cause;
  }
  return undefined;
}

function statusOf(error: Loose, response: ObservedResponse | undefined): number | undefined {
  if (typeof error.status === 'number') return error.status;
  if (typeof error.status_code === 'number') return error.status_code;
  return response !== undefined && response.status >= 400 ? response.status : undefined;
}

/** The parameter an error names: OpenAI's `param`, or a quoted name in the message. */
function paramOf(error: Loose, message: string): string | undefined {
  const body = error.error !== null && typeof error.error === 'object' ? error.error as Loose : undefined;
  const param = typeof error.param === 'string' ? error.param : typeof body?.param === 'string' ? body.param : undefined;
  return param ?? /parameter:? ['"`]([\w.[\]-]{1,80})['"`]/i.exec(message)?.[1];
}

export function classifyFailure(error: unknown, context: FailureContext): ProviderFailure {
  const e = (error ?? {}) as Loose;
  const message = typeof e.message === 'string' ? e.message : String(error);
  const detail = `${typeof e.name === 'string' ? e.name : 'Error'}: ${message}`.slice(0, 500);
  if (context.caller.aborted) return { error: makeError('LLM_CANCELLED', detail), transient: false };
  if (context.timeout.aborted) return { error: makeError('LLM_TIMEOUT', detail), transient: false };
  const status = statusOf(e, context.response);
  const retryAfter = context.response?.retryAfterMs === undefined ? {} : { retryAfterMs: context.response.retryAfterMs };
  if (status !== undefined) {
    const http = `HTTP ${status}: ${message}`.slice(0, 500);
    if (status === 429) return { error: makeError('LLM_RATE_LIMITED', http), transient: true, ...retryAfter };
    if (status >= 500 || status === 408 || status === 409) return { error: makeError('LLM_HTTP_ERROR', http), transient: true, ...retryAfter };
    if ((status === 400 || status === 404 || status === 422) && UNSUPPORTED.test(message)) {
      const param = paramOf(e, message);
      return { error: makeError('LLM_PARAMETER_UNSUPPORTED', http, param === undefined ? {} : { pointer: `/${param}` }), transient: false };
    }
    if (status === 401 || status === 403) return { error: makeError('LLM_AUTH_FAILED', http), transient: false };
    if (status === 404) return { error: makeError('LLM_MODEL_NOT_FOUND', http), transient: false };
    return { error: makeError('LLM_HTTP_ERROR', http), transient: false };
  }
  const code = causeCode(error);
  if (code !== undefined) return { error: makeError('LLM_UNAVAILABLE', `${detail} (${code})`), transient: RESET.has(code) };
  if (error instanceof SyntaxError) return { error: makeError('LLM_RESPONSE_INVALID', detail), transient: false };
  return { error: makeError('LLM_UNAVAILABLE', detail), transient: false };
}
