import { createServer, connect, type Socket } from 'node:net';
import type { TestRedis } from '../../support/redis-server.ts';

/**
 * A TCP proxy in front of a test Redis, through which instances connect, to make the one
 * outcome a kill can hardly hit by timing: an append Redis executed and made durable
 * (appendfsync always: fsynced before the reply is written), whose reply never reached the
 * instance. The instance has acknowledged nothing; the entry is in the log.
 */
export interface RedisProxy {
  readonly url: string;
  /**
   * The next conversation-log append passes to Redis; its reply is held back, and once it
   * arrives Redis is SIGKILLed and every proxied connection cut. Resolves when Redis is dead,
   * with the held request as sent (RESP, latin1: the entry's JSON is in it).
   */
  killAfterNextAppend(): Promise<string>;
  close(): Promise<void>;
}

// The append script's first key is the conversation's log (`…{cid}:log`); reads of it use XRANGE.
const APPEND = /EVAL(SHA)?[\s\S]*:log\r\n/i;

export async function startRedisProxy(redis: TestRedis): Promise<RedisProxy> {
  const sockets = new Set<Socket>();
  let armed: ((request: string) => () => void) | undefined;
  const server = createServer((client) => {
    const upstream = connect(redis.port, '127.0.0.1');
    /** Set once this connection carried the armed append: nothing from Redis reaches the instance again. */
    let held: (() => void) | undefined;
    let stalled = false;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
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
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!stalled) {
        client.write(chunk);
        return;
      }
      // Redis answered on this connection after the append went out: in practice the append
      // itself, executed and durable (the test's checks hold either way). No reply goes back
      // any more (a later one would answer the wrong command).
      const kill = held;
      held = undefined;
      kill?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const cutAll = (): void => { for (const socket of [...sockets]) socket.destroy(); };
  return {
    url: `redis://127.0.0.1:${port}`,
    killAfterNextAppend() {
      return new Promise<string>((resolve, reject) => {
        armed = (request) => () => {
          redis.kill().then(() => { cutAll(); resolve(request); }, reject);
        };
      });
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
