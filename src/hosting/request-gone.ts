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
  if (!(outgoing instanceof ServerResponse)) return c.req.raw.signal;
  return ((outgoing as Held)[GONE] ??= new ResponseGone(outgoing));
}

const GONE = Symbol('surfacer.requestGone');
type Held = ServerResponse & { [GONE]?: ResponseGone };

/**
 * One module-level 'close' listener, which finds its ResponseGone on the response (`this`): no
 * closure, Map or `once` wrapper per request (each costs more than Node 24's AbortController).
 */
function closed(this: Held): void {
  this[GONE]?.closed();
}

class ResponseGone implements CancelSignal {
  private listeners: Array<() => void> = [];

  constructor(private readonly response: ServerResponse) {}

  get aborted(): boolean {
    return this.response.closed && !this.response.writableFinished;
  }

  get reason(): unknown {
    return this.aborted ? new Error('Client connection prematurely closed.') : undefined;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.listeners.includes(listener)) return;
    if (this.listeners.length === 0) this.response.on('close', closed);
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at < 0) return;
    this.listeners.splice(at, 1);
    if (this.listeners.length === 0) this.response.removeListener('close', closed);
  }

  /** Every listener once (all are `once`: the only event there is happens once). */
  closed(): void {
    this.response.removeListener('close', closed);
    const listeners = this.listeners;
    this.listeners = [];
    if (this.response.writableFinished) return;
    for (const listener of listeners) listener();
  }
}
