import type { ServerResponse } from 'node:http';
import type { SSEStreamingApi } from 'hono/streaming';
import { formatEventId, formatInitEventId } from './event-id.ts';
import { HubClosedError, type A2uiHub, type HubEvent, type SubscribeResult } from './hub.ts';
import { initMessages, type A2uiServerMessage } from './messages.ts';

/*
 * The SSE side of one A2UI stream, written for fan-out to thousands of connections:
 * - every published event is framed and UTF-8 encoded once (shared by all connections);
 * - on @hono/node-server the frames go straight to the Node response (cork → writes →
 *   uncork: one syscall per batch), not through a per-connection web-streams pipeline;
 *   elsewhere (app.request in tests, other runtimes) hono's streamSSE carries them;
 * - the connection is driven by the hub's notify callback (no loop, no promise while idle);
 *   one shared timer sends `: ping` to connections idle for `heartbeatMs`.
 */

/** Where one connection's bytes go. `write` returns a promise only under back-pressure. */
export interface SseSink {
  write(chunks: readonly (string | Uint8Array)[]): Promise<void> | undefined;
  /** Normal end of the response. */
  end(): void;
  /** Cut the connection (e.g. a write stuck on a client that stopped reading). */
  abort(): void;
  onClose(listener: () => void): void;
  readonly closed: boolean;
}

/** Writes straight to the Node response (@hono/node-server's `c.env.outgoing`). */
export function nodeSink(res: ServerResponse): SseSink {
  let closed = res.destroyed;
  const listeners: (() => void)[] = [];
  res.once('close', () => {
    closed = true;
    for (const l of listeners.splice(0)) l();
  });
  // Headers go with the first write, so a failure before it can still answer with an error.
  const head = (): void => {
    if (!res.headersSent) res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  };
  return {
    write(chunks) {
      if (closed) return undefined;
      let ok = true;
      head();
      res.cork();
      for (const chunk of chunks) ok = res.write(chunk) && ok;
      res.uncork();
      if (ok || closed) return undefined;
      return new Promise((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    end() {
      if (closed) return;
      head();
      res.end();
    },
    abort() {
      res.destroy();
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
    get closed() {
      return closed;
    },
  };
}

/** hono's streamSSE; `done` resolves when the caller may let the stream close. */
export function webSink(stream: SSEStreamingApi): SseSink & { done: Promise<void> } {
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => { finish = resolve; });
  const listeners: (() => void)[] = [];
  stream.onAbort(() => {
    for (const l of listeners.splice(0)) l();
    finish();
  });
  return {
    done,
    async write(chunks) {
      for (const chunk of chunks) await stream.write(chunk);
    },
    end() {
      finish();
    },
    abort() {
      stream.abort();
      finish();
    },
    onClose(listener) {
      if (stream.aborted) listener();
      else listeners.push(listener);
    },
    get closed() {
      return stream.aborted || stream.closed;
    },
  };
}

/** Sends `: ping` to connections that wrote nothing for `intervalMs`; one timer for all. */
export interface Heartbeat {
  add(connection: { idleSince(): number; ping(): void }): () => void;
  stop(): void;
}

export function createHeartbeat(intervalMs: number): Heartbeat {
  const connections = new Set<{ idleSince(): number; ping(): void }>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const tick = (): void => {
    const now = performance.now();
    for (const c of connections) if (now - c.idleSince() >= intervalMs) c.ping();
  };
  return {
    add(connection) {
      connections.add(connection);
      if (timer === undefined) {
        timer = setInterval(tick, Math.max(5, Math.floor(intervalMs / 4)));
        timer.unref();
      }
      return () => {
        connections.delete(connection);
        if (connections.size === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    stop() {
      connections.clear();
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}

export interface ConnectionParams {
  hub: A2uiHub;
  cid: string;
  lastEventId: string | undefined;
  retryMs: number;
  heartbeat: Heartbeat;
  /** Synchronous with the subscription (see A2uiRouteDeps.snapshot). */
  snapshot(cid: string): readonly A2uiServerMessage[];
  surfaceIds: ((cid: string) => Iterable<string>) | undefined;
}

const PING = Buffer.from(': ping\n\n');

/**
 * One SSE connection: init or resume, then every published batch, pings when idle. Ends when
 * the client goes away or the hub drops the subscriber (slow, forgotten, shutdown) — the client
 * then reconnects with Last-Event-ID and is resumed or re-initialised. Resolves when over.
 * Throws (before writing anything) if the snapshot fails.
 */
export function runConnection(sink: SseSink, p: ConnectionParams): Promise<void> {
  let over = false;
  let writing = false;
  let lastWrite = performance.now();
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => { finish = resolve; });
  let unregister: () => void = () => {};

  const end = (): void => {
    if (over) return;
    over = true;
    subscription?.close();
    unregister();
    // A write stuck on a client that stopped reading would never return: cut it.
    if (writing) sink.abort();
    else sink.end();
    finish();
  };

  const write = (chunks: readonly (string | Uint8Array)[]): void => {
    lastWrite = performance.now();
    const pending = sink.write(chunks);
    if (pending === undefined) return;
    writing = true;
    void pending.then(() => {
      writing = false;
      lastWrite = performance.now();
      if (!over) drain();
    });
  };

  const drain = (): void => {
    if (over || writing || subscription === undefined) return;
    const events = subscription.take();
    if (events.length > 0) write(events.map(frameOf));
  };

  let result: SubscribeResult;
  let subscription: SubscribeResult['subscription'] | undefined;
  try {
    result = p.hub.subscribe(p.cid, p.lastEventId, { notify: drain, dropped: end });
  } catch (error) {
    if (error instanceof HubClosedError) {
      sink.end();
      return Promise.resolve();
    }
    throw error;
  }
  subscription = result.subscription;
  let head = `retry: ${p.retryMs}\n\n`;
  if (result.mode === 'init') {
    let init: A2uiServerMessage[];
    try {
      const known = p.surfaceIds === undefined ? result.knownSurfaceIds : [...result.knownSurfaceIds, ...p.surfaceIds(p.cid)];
      init = initMessages(p.snapshot(p.cid), known);
    } catch (error) {
      subscription.close();
      throw error;
    }
    for (let i = 0; i < init.length; i += 1) {
      // Only the last message carries the checkpoint: a client cut off inside the init holds
      // a provisional id and is re-initialised, never resumed from a half-applied state.
      const id = i === init.length - 1 ? formatEventId(result.stream, result.seq) : formatInitEventId(result.stream, result.seq, i);
      head += frame(id, serialise(init[i]!));
    }
    // An id-only event sets the client's last event id without dispatching anything.
    if (init.length === 0) head += `id: ${formatEventId(result.stream, result.seq)}\n\n`;
  } else {
    for (const event of result.missed) head += frame(event.id, event.data);
  }

  sink.onClose(end);
  if (over) return finished;
  unregister = p.heartbeat.add({
    idleSince: () => (writing ? Number.POSITIVE_INFINITY : lastWrite),
    ping: () => { if (!over && !writing) write([PING]); },
  });
  write([head]);
  drain();
  return finished;
}

/**
 * Events are shared by every subscriber of a conversation: frame and encode each once.
 * Snapshot messages are shared by every stream initialised from the same IR (the bridge caches
 * them): serialise each once.
 */
const frames = new WeakMap<HubEvent, Buffer>();
function frameOf(event: HubEvent): Buffer {
  let bytes = frames.get(event);
  if (bytes === undefined) {
    bytes = Buffer.from(frame(event.id, event.data));
    frames.set(event, bytes);
  }
  return bytes;
}

const serialised = new WeakMap<object, string>();
export function serialise(message: A2uiServerMessage): string {
  let text = serialised.get(message);
  if (text === undefined) {
    text = JSON.stringify(message);
    serialised.set(message, text);
  }
  return text;
}

/** One A2UI message per event; JSON.stringify never emits a raw newline, so one `data:` line. */
function frame(id: string, data: string): string {
  return `id: ${id}\ndata: ${data}\n\n`;
}
