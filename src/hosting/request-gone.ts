import { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { CancelSignal } from '../ingress/index.ts';

/**
 * Aborted when the client goes away before its answer is written: the response closed
 * unfinished, as @hono/node-server itself decides it for `c.req.raw.signal`. Read from the Node
 * response where there is one, so an action that never looks at its cancel costs no
 * AbortController (Node 20: ~5 µs each, ~1 % of an htmx action); elsewhere (app.request in
 * tests, other runtimes) the request's own signal.
 */
export function requestGone(c: Context): CancelSignal {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? new ResponseGone(outgoing) : c.req.raw.signal;
}

class ResponseGone implements CancelSignal {
  private readonly listeners = new Map<() => void, () => void>();

  constructor(private readonly response: ServerResponse) {}

  get aborted(): boolean {
    return this.response.closed && !this.response.writableFinished;
  }

  get reason(): unknown {
    return this.aborted ? new Error('Client connection prematurely closed.') : undefined;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.listeners.has(listener)) return;
    const onClose = (): void => {
      this.listeners.delete(listener);
      if (!this.response.writableFinished) listener();
    };
    this.listeners.set(listener, onClose);
    this.response.once('close', onClose);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const onClose = this.listeners.get(listener);
    if (onClose === undefined) return;
    this.listeners.delete(listener);
    this.response.removeListener('close', onClose);
  }
}
