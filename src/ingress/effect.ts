import { httpStatusOf, StoreUnavailableError } from '../errors/index.ts';
import type { ConversationIr } from '../ui-ir/index.ts';
import type { CheckedAction } from './check.ts';
import { reject, type Rejection } from './result.ts';

export const DEFAULT_EFFECT_TIMEOUT_MS = 10_000;

/** What an accepted action's effect step came to: no effect, or its validated result (as the log records it). */
export type EffectStep = { readonly ok: true; readonly effect?: { readonly result: unknown } } | Rejection;

/**
 * Where one request keeps its effect step across retries of its decision. The conversation
 * service takes a decision again when another instance appended first; the effect must not run
 * again then (its result, or its failure, is reused). A retry that is then refused (the action
 * is now stale) or replayed (another instance applied the same key) drops the result: the effect
 * happened downstream, the IR and the log do not record it, and only the idempotency key it was
 * given lets the outside world tell a later retry from a new request.
 */
export interface EffectMemo {
  step?: EffectStep;
}

/**
 * What an action's caller cancels it by: an AbortSignal, or anything that says the same with
 * less (src/hosting/request-gone.ts: a Node response's close, where Node 20 spends ~5 µs to make
 * an AbortController a request would only look at).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface EffectRun {
  readonly conversation: { readonly id: string; readonly owner: string | undefined };
  readonly idempotencyKey: string | undefined;
  /** The caller's cancel (e.g. the HTTP request went away). */
  readonly signal?: CancelSignal;
}

const CANCELLED = Symbol('cancelled');
const TIMED_OUT = Symbol('timeout');

function unsettled(): void {}

/** The request's abort, passed on to the effect (made here, not as a named closure per run: see queue.ts settledOf). */
function cancelling(controller: AbortController, signal: CancelSignal | undefined, then: () => void): () => void {
  return () => { controller.abort(signal?.reason); then(); };
}

/**
 * Runs the checked action's effect, if it has one and its pure `prepare` asks for it. Throws only
 * StoreUnavailableError: an effect that saves into the backend's shared records (Redis away, a
 * failover, a write its replicas did not acknowledge in time) fails as the conversation's own
 * store does, a 503 to retry, not a 502. Whatever else goes wrong is a rejection
 * (ACTION_EFFECT_FAILED, _TIMEOUT, _CANCELLED, or the refusal `prepare` returned). The run races the cancel and the timeout, so a hung effect ends
 * the request on time; what it resolves with later is dropped.
 */
export async function runEffect(checked: CheckedAction, ir: ConversationIr, run: EffectRun): Promise<EffectStep> {
  const effect = checked.action.effect;
  if (effect === undefined) return { ok: true };
  const name = JSON.stringify(checked.action.name);
  let prepared: ReturnType<typeof effect.prepare>;
  try {
    prepared = effect.prepare(ir, checked.surface, checked.context);
  } catch (e) {
    return reject('INTERNAL_ERROR', `effect of ${name} threw while preparing: ${(e as Error)?.message ?? String(e)}`);
  }
  if (prepared === undefined) return { ok: true };
  if (!prepared.ok) return { ok: false, error: prepared.error, status: httpStatusOf(prepared.error.code) };
  if (run.signal?.aborted) return cancelled(name);

  const timeoutMs = effect.timeoutMs ?? DEFAULT_EFFECT_TIMEOUT_MS;
  const controller = new AbortController();
  let settle: (value: typeof CANCELLED | typeof TIMED_OUT) => void = unsettled;
  const interrupted = new Promise<typeof CANCELLED | typeof TIMED_OUT>((resolve) => { settle = resolve; });
  const onCancel = cancelling(controller, run.signal, () => settle(CANCELLED));
  const timer = setTimeout(() => { controller.abort(new Error('effect timed out')); settle(TIMED_OUT); }, timeoutMs);
  run.signal?.addEventListener('abort', onCancel, { once: true });
  const started = performance.now();
  let raw: unknown;
  try {
    const running = Promise.resolve().then(() => effect.run(prepared.request, {
      idempotencyKey: run.idempotencyKey, signal: controller.signal, timeoutMs, conversation: run.conversation,
    }));
    running.catch(() => {}); // abandoned after a cancel or timeout: its rejection is nobody's
    raw = await Promise.race([running, interrupted]);
  } catch (e) {
    // An effect that rejects because its signal aborted is judged by why it aborted.
    if (controller.signal.aborted) return run.signal?.aborted ? cancelled(name) : timedOut(name, timeoutMs, timeoutMs);
    if (e instanceof StoreUnavailableError) throw e;
    return effectFailed(name, (e as Error)?.message ?? String(e));
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener('abort', onCancel);
  }
  if (raw === CANCELLED) return cancelled(name);
  if (raw === TIMED_OUT) return timedOut(name, timeoutMs, performance.now() - started);
  const parsed = effect.result.safeParse(raw);
  if (!parsed.success) return effectFailed(name, `result does not match its schema: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return { ok: true, effect: { result: parsed.data } };
}

const cancelled = (name: string): Rejection => reject('ACTION_EFFECT_CANCELLED', `effect of ${name} cancelled`);
const timedOut = (name: string, timeoutMs: number, ms: number): Rejection =>
  reject('ACTION_EFFECT_TIMEOUT', `effect of ${name} gave no result within ${timeoutMs} ms (${Math.round(ms)} ms)`);
const effectFailed = (name: string, detail: string): Rejection =>
  reject('ACTION_EFFECT_FAILED', `effect of ${name} failed: ${detail}`.slice(0, 1000));
