import { createServer } from 'node:net';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { createRedisBackend } from '../../src/backend/index.ts';
import { StoreUnavailableError, type LogEntry } from '../../src/conversation/index.ts';
import { redisForTestFile } from '../support/redis-server.ts';

const r = redisForTestFile();
const created = (cid: string): LogEntry => ({ type: 'created', v: 1, cid, ownerSessionId: 'o', a2uiToken: 'x'.repeat(24), at: '2026-01-01T00:00:00.000Z' });

/** Resolves once `check` holds (polled), or fails the test. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The conversation the deadline tests read, written with the default deadline: on a loaded
 * machine (CI runs the suite twice at once) a first command can take longer than their short one.
 */
async function written(prefix: string): Promise<void> {
  await r.backend({ prefix }).store.append('c1', created('c1'), 0);
}

/** Once `backend` has read the conversation (retried past loaded-machine timeouts): connected and ready. */
async function connected(backend: ReturnType<typeof r.backend>): Promise<void> {
  await expect.poll(() => backend.store.read('c1').then((e) => e?.length, () => -1), { timeout: 10_000 }).toBe(1);
}

describe('Redis backend connections', () => {
  it('a watcher that comes back while the last one is still leaving keeps getting notified', async () => {
    const store = r.backend({ prefix: 'rewatch:' }).store;
    await store.append('c1', created('c1'), 0);
    let first = 0;
    const leave = store.watch!('c1', () => { first += 1; });
    await until(() => first > 0, 'the first subscription'); // its one look after subscribing
    leave(); // UNSUBSCRIBE goes out …
    let second = 0;
    store.watch!('c1', () => { second += 1; }); // … and a new watcher arrives before its answer
    await until(() => second > 0, 'the second subscription');
    const seen = second;
    const publisher = createClient({ url: r.redis().url });
    await publisher.connect();
    try {
      // What an append on another instance publishes (the second watcher's own look above came
      // after its SUBSCRIBE was answered, so it is subscribed now).
      await publisher.publish('rewatch:{c1}:changed', '2');
      await until(() => second > seen, 'the notification');
    } finally {
      publisher.destroy();
    }
  });

  it('a command Redis does not answer fails as unavailable after the deadline, and the next one works', async () => {
    await written('paused:');
    const backend = r.backend({ prefix: 'paused:', commandTimeoutMs: 300 });
    await connected(backend);
    const admin = createClient({ url: r.redis().url });
    await admin.connect();
    try {
      await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL']);
      await expect(backend.store.read('c1')).rejects.toBeInstanceOf(StoreUnavailableError);
      await connected(backend);
    } finally {
      admin.destroy();
    }
  });

  it('a stalled Redis: the first command fails at its deadline, the next ones at once, the probe within its own; all back once it answers', async () => {
    await written('stalled:');
    const backend = r.backend({ prefix: 'stalled:', commandTimeoutMs: 200 });
    await connected(backend);
    expect(backend.status()).toMatchObject({ ok: true, state: 'ready' });
    const admin = createClient({ url: r.redis().url });
    await admin.connect();
    try {
      await admin.sendCommand(['CLIENT', 'PAUSE', '1500', 'ALL']);
      const timed = async (run: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> => {
        const started = performance.now();
        const error = await run().then(() => undefined, (e: unknown) => e);
        return { ms: performance.now() - started, error };
      };
      const first = await timed(() => backend.store.read('c1'));
      expect(first.error).toBeInstanceOf(StoreUnavailableError);
      expect(first.ms).toBeGreaterThanOrEqual(150);
      expect(first.ms).toBeLessThan(1_000);
      expect(backend.status()).toMatchObject({ ok: false, state: 'stalled' });
      const next = await timed(() => backend.store.read('c1'));
      expect(next.error).toBeInstanceOf(StoreUnavailableError);
      expect(String(next.error)).toMatch(/stalled/);
      expect(next.ms).toBeLessThan(50);
      const started = performance.now();
      expect(await backend.health(100)).toMatchObject({ ok: false, engine: 'redis', state: 'stalled' });
      expect(performance.now() - started).toBeLessThan(150);
      // The stalled command's late answer ends the stall.
      await expect.poll(() => backend.status().state, { timeout: 5_000, interval: 20 }).toBe('ready');
      expect(await backend.store.read('c1')).toHaveLength(1);
      expect(await backend.health(500)).toMatchObject({ ok: true, state: 'ready' });
    } finally {
      admin.destroy();
    }
  });

  it('past maxInFlight unanswered commands, new ones fail at once instead of piling up', async () => {
    const backend = r.backend({ prefix: 'capped:', commandTimeoutMs: 5_000, maxInFlight: 3 });
    await backend.store.append('c1', created('c1'), 0);
    const admin = createClient({ url: r.redis().url });
    await admin.connect();
    try {
      await admin.sendCommand(['CLIENT', 'PAUSE', '800', 'ALL']);
      const waiting = [1, 2, 3].map(() => backend.store.read('c1'));
      const started = performance.now();
      await expect(backend.store.read('c1')).rejects.toThrow(/3 commands waiting/);
      expect(performance.now() - started).toBeLessThan(50);
      expect(backend.status()).toMatchObject({ inFlight: 3 });
      // The pause ends: the three are answered.
      for (const read of waiting) expect(await read).toHaveLength(1);
      expect(backend.status()).toMatchObject({ inFlight: 0, state: 'ready' });
    } finally {
      admin.destroy();
    }
  });

  it('a write whose own connection was just lost (as after a Redis restart, while the commands connection and readiness are back) waits for it instead of failing', async () => {
    const backend = r.backend({ prefix: 'pool-lost:' });
    const admin = createClient({ url: r.redis().url });
    await admin.connect();
    try {
      for (let round = 0; round < 3; round += 1) {
        await backend.store.append(`c${round}`, created(`c${round}`), 0);
        // The durable-write connections are the ones whose last command was the append script.
        const list = String(await admin.sendCommand(['CLIENT', 'LIST', 'TYPE', 'normal']));
        const ids = [...list.matchAll(/^id=(\d+) .* cmd=(\S+)/gm)].filter((m) => /^(evalsha|eval|wait)$/.test(m[2]!)).map((m) => m[1]!);
        expect(ids.length).toBeGreaterThan(0);
        for (const id of ids) await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]);
        expect((await backend.health()).ok).toBe(true);
        await backend.store.append(`d${round}`, created(`d${round}`), 0);
        expect(await backend.store.read(`d${round}`)).toHaveLength(1);
      }
    } finally {
      admin.destroy();
    }
  });

  it('closes while Redis cannot be reached (a server shutting down during an outage still exits)', async () => {
    // A port where nothing listens.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const backend = createRedisBackend({ url: `redis://127.0.0.1:${port}`, prefix: 'nowhere:' });
    expect((await backend.health()).ok).toBe(false);
    const subscribing = backend.store.watch!('c1', () => {}); // the subscriber connection is being made too
    await backend.close();
    subscribing();
  });
});
