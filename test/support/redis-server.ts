import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createRedisBackend, type Backend, type RedisBackendOptions } from '../../src/backend/index.ts';

/**
 * A real redis-server (Debian's, installed by .ci/run) for one test file: its own free loopback
 * port, its own directory, AOF on with `appendfsync always` (every acknowledged write is on disk,
 * as in production), no RDB snapshots. Never the system instance on 6379.
 */
export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILL: the server dies as in a crash (the AOF keeps every acknowledged write). */
  kill(): Promise<void>;
  /** SIGSTOP: the server stalls with every connection open (a partition without resets, a swapped out host). */
  pause(): void;
  /** SIGCONT after pause(): it answers everything that waited. */
  resume(): void;
  /** Starts it again on the same port and directory (after kill or stop); `fresh`: with that directory emptied first. */
  start(options?: { fresh?: boolean }): Promise<void>;
  /** Graceful stop, then the directory is removed. */
  stop(): Promise<void>;
  /** The last lines the server logged (every start's), for a failure's message. */
  recentLog(): string;
}

/** How much of a server's log is kept for recentLog(). */
const LOG_TAIL_CHARS = 40_000;

const live = new Set<ChildProcess>();
// A worker that dies must not leave servers behind.
process.once('exit', () => { for (const child of live) child.kill('SIGKILL'); });

/** `args`: more redis-server options (a replica's `--replicaof`, a cluster node's settings). */
export async function startRedis(options: { args?: string[] } = {}): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'surfacer-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';

  async function start(): Promise<void> {
    const proc = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes',
      '--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--protected-mode', 'yes', '--loglevel', 'warning',
      ...(options.args ?? []),
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout?.on('data', (chunk: Buffer) => { log = (log + chunk.toString()).slice(-LOG_TAIL_CHARS); });
    const spawned = new Promise<void>((resolve, reject) => {
      proc.once('spawn', resolve);
      proc.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT'
        ? new Error('redis-server not found: the Redis suites need Debian\'s redis-server (apt-get install redis-server; .ci/run installs it)')
        : error));
    });
    let stderr = '';
    proc.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    live.add(proc);
    proc.once('exit', () => live.delete(proc));
    child = proc;
    await spawned;
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (proc.exitCode !== null) throw new Error(`redis-server exited (${proc.exitCode}): ${stderr}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not start on ${port}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async function halt(signal: NodeJS.Signals): Promise<void> {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    // A paused server would leave SIGTERM pending until it runs again.
    if (signal !== 'SIGKILL') proc.kill('SIGCONT');
    proc.kill(signal);
    // A graceful stop that has not ended within 10 s (its last fsync behind a busy disk) is
    // finished with SIGKILL: every write it acknowledged is on disk already (appendfsync always).
    const late = signal === 'SIGKILL' ? undefined : setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(late);
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start(again = {}) {
      if (again.fresh) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
      }
      await start();
    },
    kill: () => halt('SIGKILL'),
    pause: () => { child?.kill('SIGSTOP'); },
    resume: () => { child?.kill('SIGCONT'); },
    async stop() {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    recentLog: () => log,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** True once the server answers PING. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean): void => { socket.destroy(); resolve(ok); };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** What a test file's Redis gives its tests: the running server (or cluster), and backends on it. */
export interface RedisForTestFile<R> {
  redis(): R;
  backend(options?: Omit<RedisBackendOptions, 'url'>): Backend;
}

/**
 * One redis-server for a test file (started before its tests, stopped after them), or what
 * `start` starts (a Redis Cluster: startRedisCluster), and Redis backends on it, each with its
 * own connections, as separate instances have; closed with it.
 */
export function redisForTestFile(): RedisForTestFile<TestRedis>;
export function redisForTestFile<R extends { url: string; stop(): Promise<void> }>(start: () => Promise<R>): RedisForTestFile<R>;
export function redisForTestFile(start: () => Promise<{ url: string; stop(): Promise<void> }> = startRedis): RedisForTestFile<{ url: string; stop(): Promise<void> }> {
  let redis: { url: string; stop(): Promise<void> } | undefined;
  const backends: Backend[] = [];
  beforeAll(async () => { redis = await start(); });
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.close()));
    await redis?.stop();
  });
  return {
    redis: () => redis!,
    backend(options = {}) {
      const backend = createRedisBackend({ ...options, url: redis!.url });
      backends.push(backend);
      return backend;
    },
  };
}
