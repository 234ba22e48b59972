import { createServer, connect, type Socket } from 'node:net';
import type { TestRedis } from '../../support/redis-server.ts';

/**
 * A TCP proxy in front of a test Redis, through which instances connect, to make the network
 * faults a kill cannot:
 * - `hold()`: a blackhole. Connections are accepted, nothing is forwarded either way; what was
 *   sent waits in the proxy, as it waits in TCP retransmissions during a partition without
 *   resets, and arrives once `pass()` heals it.
 * - `delay(ms)`: every chunk, either way, arrives `ms` later (order kept).
 * - `cutAll()`, `cutAfterNextAppend()`: connections reset, the latter right after a
 *   conversation-log append reached Redis and before its reply reached the instance.
 * - `killAfterNextAppend()`: the same outcome with Redis SIGKILLed (AOF, appendfsync always).
 * One proxy per instance partitions that instance while the others keep Redis.
 */
export interface RedisProxy {
  readonly url: string;
  /**
   * The next conversation-log append passes to Redis; its reply is held back, and once it
   * arrives Redis is SIGKILLed and every proxied connection cut. Resolves when Redis is dead,
   * with the held request as sent (RESP, latin1: the entry's JSON is in it).
   */
  killAfterNextAppend(): Promise<string>;
  /** The same, without the kill: every proxied connection is cut once the append's reply arrives. */
  cutAfterNextAppend(): Promise<string>;
  /** Resets every proxied connection now. */
  cutAll(): void;
  /** Blackhole: forward nothing (held bytes flow again on `pass`). */
  hold(): void;
  /** Forward every chunk `ms` late. */
  delay(ms: number): void;
  /** Back to normal: everything held or delayed is delivered now, in order. */
  pass(): void;
  /** Connections open through the proxy. */
  readonly connections: number;
  close(): Promise<void>;
}

// The append script's first key is the conversation's log (`…{cid}:log`); reads of it use XRANGE.
const APPEND = /EVAL(SHA)?[\s\S]*:log\r\n/i;

/** One direction of one connection: chunks in order, each due at a time, delivered while not held. */
class Pipe {
  private readonly queue: Array<{ chunk: Buffer; due: number }> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly to: Socket, private readonly mode: () => { held: boolean; delayMs: number }) {}

  push(chunk: Buffer): void {
    this.queue.push({ chunk, due: performance.now() + this.mode().delayMs });
    this.pump();
  }

  pump(): void {
    if (this.timer !== undefined) { clearTimeout(this.timer); this.timer = undefined; }
    const { held, delayMs } = this.mode();
    if (held) return;
    const now = performance.now();
    while (this.queue.length > 0 && (delayMs === 0 || this.queue[0]!.due <= now)) {
      if (!this.to.destroyed) this.to.write(this.queue.shift()!.chunk);
      else this.queue.shift();
    }
    if (this.queue.length > 0) this.timer = setTimeout(() => this.pump(), Math.max(1, this.queue[0]!.due - now));
  }

  drop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.queue.length = 0;
  }
}

export async function startRedisProxy(redis: TestRedis): Promise<RedisProxy> {
  const sockets = new Set<Socket>();
  const pipes = new Set<Pipe>();
  let armed: ((request: string) => () => void) | undefined;
  let mode = { held: false, delayMs: 0 };
  const currentMode = (): typeof mode => mode;
  const setMode = (next: typeof mode): void => {
    mode = next;
    for (const pipe of pipes) pipe.pump();
  };
  const server = createServer((client) => {
    const upstream = connect(redis.port, '127.0.0.1');
    const toUpstream = new Pipe(upstream, currentMode);
    const toClient = new Pipe(client, currentMode);
    pipes.add(toUpstream);
    pipes.add(toClient);
    /** Set once this connection carried the armed append: nothing from Redis reaches the instance again. */
    let held: (() => void) | undefined;
    let stalled = false;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        pipes.delete(toUpstream);
        pipes.delete(toClient);
        toUpstream.drop();
        toClient.drop();
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      const text = armed === undefined || stalled ? '' : chunk.toString('latin1');
      if (armed !== undefined && APPEND.test(text)) {
        held = armed(text);
        armed = undefined;
        stalled = true;
      }
      toUpstream.push(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!stalled) {
        toClient.push(chunk);
        return;
      }
      // Redis answered on this connection after the append went out: in practice the append
      // itself, executed and durable (the test's checks hold either way). No reply goes back
      // any more (a later one would answer the wrong command).
      const after = held;
      held = undefined;
      after?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const cutAll = (): void => { for (const socket of [...sockets]) socket.destroy(); };
  const afterNextAppend = (then: () => Promise<void>): Promise<string> => new Promise<string>((resolve, reject) => {
    armed = (request) => () => { then().then(() => { cutAll(); resolve(request); }, reject); };
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    killAfterNextAppend: () => afterNextAppend(() => redis.kill()),
    cutAfterNextAppend: () => afterNextAppend(async () => {}),
    cutAll,
    hold: () => setMode({ held: true, delayMs: 0 }),
    delay: (ms) => setMode({ held: false, delayMs: ms }),
    pass: () => setMode({ held: false, delayMs: 0 }),
    get connections() { return sockets.size / 2; },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
