import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SSEStreamingApi } from 'hono/streaming';
import { SharedFrame } from './shared-frame.ts';

/*
 * Server-sent events for both hosts (the A2UI stream and the htmx page updates):
 * - on @hono/node-server frames can go straight to the Node response (cork → writes → uncork:
 *   one syscall per batch), not through a per-connection web-streams pipeline; elsewhere (and
 *   where hono's response headers are wanted) hono's streamSSE carries them;
 * - a connection is driven by its source's notify callback (no loop, no promise while idle);
 *   one shared timer per host sends `: ping` to connections idle for `intervalMs`.
 */

/** What a sink writes: text or bytes of this connection, or a frame shared by many (written as is). */
export type SseChunk = string | Uint8Array | SharedFrame;

/** Where one connection's bytes go. `write` returns a promise only under back-pressure. */
export interface SseSink {
  write(chunks: readonly SseChunk[]): Promise<void> | undefined;
  /** Normal end of the response. */
  end(): void;
  /** Cut the connection (e.g. a write stuck on a client that stopped reading). */
  abort(): void;
  onClose(listener: () => void): void;
  readonly closed: boolean;
}

export interface NodeSinkOptions {
  /**
   * Shared frames go straight to the socket, already framed as HTTP chunks (default true).
   * False: every write goes through the ServerResponse, which frames each chunk per connection —
   * the path before issue 23, kept as the baseline bench/a2ui-sse.ts measures in the same run.
   */
  socketWrites?: boolean;
}

/**
 * Writes straight to the Node response (@hono/node-server's `c.env.outgoing`). The first write
 * hands the headers to the socket; from then on a SharedFrame is written to the socket itself,
 * already framed as a chunk: the ServerResponse's per-write work (chunk header and trailer as
 * three buffers, corking, a writev) was about a third of a fan-out's CPU (BENCHMARKS.md, "10,000
 * clients on one instance"). The response stays consistent: its own writes go to the same
 * socket in order, and `end()` adds the last chunk.
 */
export function nodeSink(res: ServerResponse, options: NodeSinkOptions = {}): SseSink {
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
  // HEAD has no body (the response drops what it is given; the socket would not).
  const socketWrites = options.socketWrites !== false && res.req?.method !== 'HEAD';
  /** The socket, when a shared frame may go to it directly: nothing of the response queued before it. */
  const direct = (): Socket | undefined => {
    const socket = res.socket;
    return socketWrites && socket !== null && res.writableLength === socket.writableLength ? socket : undefined;
  };
  return {
    write(chunks) {
      if (closed) return undefined;
      const first = !res.headersSent;
      if (first) {
        // Handed to the socket now (corked: they leave with this write's bytes), so that
        // frames may follow them there.
        res.cork();
        head();
        res.flushHeaders();
      }
      const socket = direct();
      // HTTP/1.0 clients get no chunked encoding: the body runs until the connection closes.
      const chunked = res.chunkedEncoding;
      let ok = true;
      if (socket !== undefined && chunks.length === 1 && chunks[0] instanceof SharedFrame) {
        // The fan-out's common case: one shared Buffer, one write, nothing allocated here.
        const frame = chunks[0];
        if (frame.bytes.length > 0) ok = socket.write(chunked ? frame.chunk : frame.bytes);
      } else {
        const target = socket ?? res;
        target.cork();
        for (const chunk of chunks) {
          if (!(chunk instanceof SharedFrame)) ok = res.write(chunk) && ok;
          else if (chunk.bytes.length === 0) continue; // an empty HTTP chunk would end the body
          else if (socket !== undefined) ok = socket.write(chunked ? chunk.chunk : chunk.bytes) && ok;
          else ok = res.write(chunk.bytes) && ok;
        }
        target.uncork();
      }
      if (first) res.uncork();
      if (ok || closed) return undefined;
      // The response re-emits its socket's 'drain' only after a write of its own was refused.
      const emitter = socket ?? res;
      return new Promise((resolve) => {
        const done = (): void => {
          emitter.off('drain', done);
          res.off('close', done);
          resolve();
        };
        emitter.on('drain', done);
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
      for (const chunk of chunks) await stream.write(chunk instanceof SharedFrame ? chunk.bytes : chunk);
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

/**
 * Drains connections once per event-loop turn instead of inside the publish that notified them.
 * The fan-out then runs after the publishing request has had its turn (at 10,000 followers the
 * writes take ~170 ms: the acting client's own answer no longer waits behind them), and every
 * batch published in the same turn leaves in one write per connection. One array and one
 * setImmediate for all connections; nothing per connection.
 */
export interface DrainBatcher {
  schedule(connection: { drain(): void }): void;
}

export function createDrainBatcher(): DrainBatcher {
  let pending: { drain(): void }[] = [];
  const run = (): void => {
    const due = pending;
    pending = [];
    // A connection notified twice in one turn drains twice; the second finds nothing to write.
    for (const connection of due) connection.drain();
  };
  return {
    schedule(connection) {
      if (pending.push(connection) === 1) setImmediate(run);
    },
  };
}

/** One SSE event. `data` may hold newlines: each line becomes its own `data:` line. */
export function sseFrame(event: { id?: string; event?: string; data?: string }): string {
  let text = '';
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.data !== undefined) for (const line of event.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  return `${text}\n`;
}

export const SSE_PING = SharedFrame.of(': ping\n\n');

/**
 * What a stream says when its server shuts down: come back soon. Behind a load balancer the
 * reconnect (with Last-Event-ID) reaches another instance, which resumes the client.
 */
export const SHUTDOWN_RETRY_MS = 500;
export const SSE_SHUTDOWN_FAREWELL = `retry: ${SHUTDOWN_RETRY_MS}\n\n`;

export interface PushConnection {
  /** Writes what `pull` has, unless a write is still waiting for the client (then after it). */
  drain(): void;
  /**
   * Ends the response (or cuts it, if a write is stuck on a client that stopped reading);
   * `farewell` (e.g. a `retry:` hint) goes out last when the client is still reading.
   */
  end(farewell?: string): void;
  /** Resolves once the connection is over. */
  readonly finished: Promise<void>;
}

export interface PushConnectionOptions {
  /** Opening bytes (e.g. `retry:` and an initial state). */
  head: string;
  /** The frames waiting to go out; called whenever the sink can take more. */
  pull(): readonly SseChunk[];
  /** Once, when the connection ends for any reason. */
  onEnd(): void;
}

/**
 * One SSE response fed by a source that calls `drain` when it has something: at most one write
 * in flight (back-pressure stays in the source, which decides what to do with a slow client),
 * `: ping` when idle, and `onEnd` when the client goes away or `end` is called.
 */
export function openPushConnection(sink: SseSink, heartbeat: Heartbeat, options: PushConnectionOptions): PushConnection {
  // The closures below keep only these two: `options.head` (a whole init snapshot, per
  // connection) must not live as long as the connection.
  const { pull, onEnd } = options;
  let over = false;
  let writing = false;
  let lastWrite = performance.now();
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => { finish = resolve; });
  let unregister: () => void = () => {};

  const end = (farewell?: string): void => {
    if (over) return;
    over = true;
    unregister();
    onEnd();
    if (writing) {
      sink.abort();
    } else {
      if (farewell !== undefined) void sink.write([farewell]);
      sink.end();
    }
    finish();
  };

  const write = (chunks: readonly SseChunk[]): void => {
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
    if (over || writing) return;
    const chunks = pull();
    if (chunks.length > 0) write(chunks);
  };

  sink.onClose(end);
  if (!over) {
    unregister = heartbeat.add({
      idleSince: () => (writing ? Number.POSITIVE_INFINITY : lastWrite),
      ping: () => { if (!over && !writing) write([SSE_PING]); },
    });
    write([options.head]);
    drain();
  }
  return { drain, end, finished };
}
