import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBackend, type Backend } from '../../src/backend/index.ts';
import { NotReplicatedError } from '../../src/backend/redis/connection.ts';
import { StoreUnavailableError, type LogEntry } from '../../src/conversation/index.ts';
import { LOG_VERSION } from '../../src/conversation/log.ts';
import { startRedis, type TestRedis } from '../support/redis-server.ts';

/*
 * One Redis with a replica (the small deployment), as real redis-server processes: an append is
 * acknowledged only once the replica holds it (WAIT after the append script). A replica that
 * does not answer makes appends fail as unavailable (503) within the ack timeout instead of
 * succeeding silently; the write stays on the primary, and appends succeed again once the
 * replica is back.
 */
let primary: TestRedis;
let replica: TestRedis;
const backends: Backend[] = [];
beforeAll(async () => {
  primary = await startRedis();
  replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  await waitFor(async () => /^slave0:.*state=online/m.test(await info(primary)), 'replica online');
});
afterAll(async () => {
  await Promise.all(backends.map((b) => b.close()));
  await replica?.stop();
  await primary?.stop();
});

function backend(options: { ackReplicas?: number; ackTimeoutMs?: number; prefix: string }): Backend {
  const b = createRedisBackend({ url: primary.url, ...options });
  backends.push(b);
  return b;
}

const created = (cid: string): LogEntry => ({ type: 'created', v: LOG_VERSION, cid, ownerSessionId: 'owner', a2uiToken: 'a-token-of-16-chars-or-more', at: new Date(0).toISOString() });

describe('one Redis with a replica', () => {
  it('by default an append waits for the replica once one is seen; while the replica is paused it fails as unavailable within the ack timeout, and is not undone', async () => {
    // 1 s: long enough for a replica resumed from SIGSTOP to acknowledge again on a busy machine.
    const b = backend({ prefix: 'auto:', ackTimeoutMs: 1_000 });
    await b.store.append('c1', created('c1'), 0);
    await waitFor(async () => (await b.health()).ok, 'backend ready');
    // Learned from the primary's INFO replication at connection.
    await waitFor(async () => {
      await b.store.append(`c${Date.now()}`, created(`c${Date.now()}`), 0);
      return replicaWaited(b);
    }, 'ack replicas learned');

    replica.pause();
    try {
      const started = Date.now();
      const failed = await b.store.append('c2', created('c2'), 0).then(() => undefined, (error: unknown) => error);
      expect(failed).toBeInstanceOf(NotReplicatedError);
      expect(failed).toBeInstanceOf(StoreUnavailableError);
      expect((failed as Error).message).toMatch(/0 of 1 replicas within 1000 ms/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      // On the primary all the same: a retry of the same version conflicts, the caller re-reads.
      expect(await b.store.read('c2')).toHaveLength(1);
    } finally {
      replica.resume();
    }
    await b.store.append('c3', created('c3'), 0);
    expect(await b.store.read('c3')).toHaveLength(1);
  });

  it('a primary without the append script (a promoted replica, a restarted server) gets it again after NOSCRIPT, and the WAIT that counts is the one sent after it', async () => {
    const b = backend({ prefix: 'noscript:', ackReplicas: 1 });
    await b.store.append('c1', created('c1'), 0);
    await command(primary, ['SCRIPT', 'FLUSH']);
    // The order the primary ran them in. A WAIT sent with the failing EVALSHA counts only what was
    // there before it (it answers as soon as the replica has that), not the EVAL that follows.
    const { createClient } = await import('redis');
    const monitor = createClient({ url: primary.url });
    monitor.on('error', () => {});
    await monitor.connect();
    const ran: string[] = [];
    await monitor.monitor((line: string) => {
      const name = /"(\w+)"/.exec(line)?.[1]?.toUpperCase();
      if (name === 'EVALSHA' || name === 'EVAL' || name === 'WAIT') ran.push(name);
    });
    try {
      await b.store.append('c2', created('c2'), 0);
      await waitFor(async () => ran.length >= 4, 'the commands seen by MONITOR', 2_000).catch(() => {});
    } finally {
      monitor.destroy();
    }
    expect(ran).toEqual(['EVALSHA', 'WAIT', 'EVAL', 'WAIT']);
    expect(await b.store.read('c2')).toHaveLength(1);
  });

  it('with SURFACER_REDIS_ACK_REPLICAS=0 nothing waits for the replica (an append succeeds while it is paused)', async () => {
    const b = backend({ prefix: 'none:', ackReplicas: 0 });
    replica.pause();
    try {
      await b.store.append('c1', created('c1'), 0);
      expect(await b.store.read('c1')).toHaveLength(1);
    } finally {
      replica.resume();
    }
  });

  it('asking for more replicas than exist: every append answers unavailable, never a silent success', async () => {
    const b = backend({ prefix: 'two:', ackReplicas: 2, ackTimeoutMs: 200 });
    await expect(b.store.append('c1', created('c1'), 0)).rejects.toBeInstanceOf(NotReplicatedError);
    // The replica that exists holds it: it was written, only not acknowledged.
    await waitFor(async () => Number(await command(replica, ['XLEN', 'two:{c1}:log'])) === 1, 'on the replica');
  });
});

/** True once the backend's appends wait for a replica: paused replica → the append fails. */
async function replicaWaited(b: Backend): Promise<boolean> {
  replica.pause();
  try {
    return await b.store.append(`p${Date.now()}`, created(`p${Date.now()}`), 0).then(() => false, (error: unknown) => error instanceof NotReplicatedError);
  } finally {
    replica.resume();
  }
}

async function info(node: TestRedis): Promise<string> {
  return String(await command(node, ['INFO', 'replication']));
}

/** The commands one after the other on one new connection; the last one's answer. */
async function command(node: TestRedis, ...commands: string[][]): Promise<unknown> {
  const { createClient } = await import('redis');
  const client = createClient({ url: node.url });
  client.on('error', () => {});
  await client.connect();
  try {
    let answer: unknown;
    for (const args of commands) answer = await client.sendCommand(args);
    return answer;
  } finally { client.destroy(); }
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
