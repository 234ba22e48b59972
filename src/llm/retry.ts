import type { ObservedResponse, ProviderFailure } from './failure.ts';

/**
 * Retries of one provider call, ours and no one else's: the openai client is built with
 * `maxRetries: 0` (it would retry 429/5xx twice on its own) and ollama-js does not retry, so the
 * same policy, backoff and trace apply to every provider. Bounded exponential backoff with
 * jitter; a provider's Retry-After wins when it is within `maxRetryAfterMs`, and a longer one
 * ends the call at once (waiting past the turn's budget helps no one). Only transient failures
 * are retried: a 400/404/422 naming an unsupported parameter never is.
 */
export interface RetryPolicy {
  /** Extra tries after the first; 0 disables retries. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 30_000 };

/** Wait before retry `retry` (0-based), or undefined when the failure must not be retried. */
export function retryDelay(failure: ProviderFailure, retry: number, policy: RetryPolicy, random: () => number): number | undefined {
  if (!failure.transient || retry >= policy.maxRetries) return undefined;
  if (failure.retryAfterMs !== undefined) return failure.retryAfterMs <= policy.maxRetryAfterMs ? failure.retryAfterMs : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  // "Equal jitter": at least half the exponential step, so retries never bunch at zero.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Retry-After is seconds or an HTTP date; OpenAI also sends retry-after-ms. */
export function parseRetryAfter(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts (cancel and timeout end a backoff too). */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(signal.reason); return; }
    const done = (): void => { signal.removeEventListener('abort', onAbort); resolve(); };
    const timer = setTimeout(done, ms);
    const onAbort = (): void => { clearTimeout(timer); reject(signal.reason); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A fetch that carries our signal into every request a client makes (ollama-js cannot abort a
 * non-streamed call itself) and remembers the status and Retry-After of the last answer.
 */
export function observedFetch(base: typeof fetch, signal: AbortSignal, now: () => number): { fetch: typeof fetch; last(): ObservedResponse | undefined } {
  let last: ObservedResponse | undefined;
  const wrapped = async (url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    last = undefined;
    const signals = init?.signal ? [init.signal, signal] : [signal];
    const response = await base(url, { ...init, signal: AbortSignal.any(signals) });
    const retryAfterMs = parseRetryAfter(response.headers, now());
    last = { status: response.status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    return response;
  };
  return { fetch: wrapped as typeof fetch, last: () => last };
}
