import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend/index.ts';
import { NotReplicatedError } from '../../src/backend/redis/connection.ts';
import { LogRewrittenError, StoreUnavailableError, type ConversationService } from '../../src/conversation/index.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import { formAction, makeService } from '../conversation/fixtures/service.ts';
import { createdEntry, redisCommand, redisWithReplica, waitFor } from './support.ts';

/*
 * One Redis with a replica (the small deployment), as real redis-server processes: an append is
 * acknowledged only once the replica holds it (WAIT after the append script). A replica that
 * does not answer makes appends fail as unavailable (503) within the ack timeout instead of
 * succeeding silently; the write stays on the primary, and appends succeed again once the
 * replica is back.
 */
const pair = redisWithReplica();
const backend = (options: { ackReplicas?: number; ackTimeoutMs?: number; ackMode?: 'available' | 'strict'; prefix: string }): Backend => pair.backend(options);

describe('one Redis with a replica', () => {
  it('by default an append waits for the replica once one is seen; while the replica is paused it fails as unavailable within the ack timeout, and is not undone', async () => {
    // 1 s: long enough for a replica resumed from SIGSTOP to acknowledge again on a busy machine.
    const b = backend({ prefix: 'auto:', ackTimeoutMs: 1_000 });
    await b.store.append('c1', createdEntry('c1'), 0);
    await waitFor(async () => (await b.health()).ok, 'backend ready');
    // Learned from the primary's INFO replication at connection.
    await waitFor(async () => {
      await b.store.append(`c${Date.now()}`, createdEntry(`c${Date.now()}`), 0);
      return replicaWaited(b);
    }, 'ack replicas learned');

    pair.replica.pause();
    try {
      const started = Date.now();
      const failed = await b.store.append('c2', createdEntry('c2'), 0).then(() => undefined, (error: unknown) => error);
      expect(failed).toBeInstanceOf(NotReplicatedError);
      expect(failed).toBeInstanceOf(StoreUnavailableError);
      expect((failed as Error).message).toMatch(/0 of 1 replicas within 1000 ms/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      // On the primary all the same: a retry of the same version conflicts, the caller re-reads.
      expect(await b.store.read('c2')).toHaveLength(1);
    } finally {
      pair.replica.resume();
    }
    await b.store.append('c3', createdEntry('c3'), 0);
    expect(await b.store.read('c3')).toHaveLength(1);
  });

  it('a primary without the append script (a promoted replica, a restarted server) gets it again after NOSCRIPT, and the WAIT that counts is the one sent after it', async () => {
    const b = backend({ prefix: 'noscript:', ackReplicas: 1 });
    await b.store.append('c1', createdEntry('c1'), 0);
    await redisCommand(pair.primary, ['SCRIPT', 'FLUSH']);
    // The order the primary ran them in. A WAIT sent with the failing EVALSHA counts only what was
    // there before it (it answers as soon as the replica has that), not the EVAL that follows.
    const { createClient } = await import('redis');
    const monitor = createClient({ url: pair.primary.url });
    monitor.on('error', () => {});
    await monitor.connect();
    // MONITOR sees every client of the primary (a loaded CI machine once showed another one's
    // EVALSHA and WAIT after these): only the connection that carried this append counts.
    const seen: { name: string; client: string; line: string }[] = [];
    await monitor.monitor((line: string) => {
      const name = /"(\w+)"/.exec(line)?.[1]?.toUpperCase();
      const client = /\[\d+ ([^\]]+)\]/.exec(line)?.[1] ?? '';
      if (name === 'EVALSHA' || name === 'EVAL' || name === 'WAIT') seen.push({ name, client, line });
    });
    const ran = (): string[] => {
      const client = seen.find((command) => command.line.includes('noscript:{c2}:log'))?.client;
      return seen.filter((command) => command.client === client).map((command) => command.name);
    };
    try {
      await b.store.append('c2', createdEntry('c2'), 0);
      await waitFor(async () => ran().length >= 4, 'the commands seen by MONITOR', 2_000).catch(() => {});
    } finally {
      monitor.destroy();
    }
    expect(ran()).toEqual(['EVALSHA', 'WAIT', 'EVAL', 'WAIT']);
    expect(await b.store.read('c2')).toHaveLength(1);
  });

  it('confirm: what a reader read is confirmed once the replica holds it; not while it does not; and a log that no longer holds it is said to be rewritten', async () => {
    const writer = backend({ prefix: 'confirm:', ackReplicas: 1, ackTimeoutMs: 300 });
    const reader = backend({ prefix: 'confirm:', ackReplicas: 1, ackTimeoutMs: 300 });
    await writer.store.append('c1', createdEntry('c1'), 0);
    expect(await reader.store.read('c1')).toHaveLength(1);
    await reader.store.confirm!('c1', 1);
    pair.replica.pause();
    try {
      await expect(writer.store.append('c1', createdEntry('c1'), 1)).rejects.toBeInstanceOf(NotReplicatedError);
      // Read in the moment before it is acknowledged (or, as here, never).
      expect(await reader.store.read('c1', 1)).toHaveLength(1);
      await expect(reader.store.confirm!('c1', 2)).rejects.toBeInstanceOf(NotReplicatedError);
    } finally {
      pair.replica.resume();
    }
    await dropLastEntry('confirm:{c1}:log');
    await expect(reader.store.confirm!('c1', 2)).rejects.toBeInstanceOf(LogRewrittenError);
  });

  it('change notices: sent once the replica holds the entry; an append it acknowledged too late (503) is announced once it does', async () => {
    const writer = backend({ prefix: 'notice:', ackReplicas: 1, ackTimeoutMs: 300 });
    const reader = backend({ prefix: 'notice:', ackReplicas: 1, ackTimeoutMs: 300 });
    await writer.store.append('c1', createdEntry('c1'), 0);
    let notices = 0;
    const off = reader.store.watch!('c1', () => { notices += 1; });
    try {
      // The watch looks once when its subscription is made.
      await waitFor(async () => notices >= 1, 'the first look');
      const before = notices;
      await writer.store.append('c1', createdEntry('c1'), 1);
      await waitFor(async () => notices > before, 'the notice of an acknowledged append');
      pair.replica.pause();
      const paused = notices;
      try {
        await expect(writer.store.append('c1', createdEntry('c1'), 2)).rejects.toBeInstanceOf(NotReplicatedError);
        await new Promise((resolve) => setTimeout(resolve, 500));
        // Not announced while the replica lacks it.
        expect(notices).toBe(paused);
      } finally {
        pair.replica.resume();
      }
      // No retry, no other change: announced all the same once the replica has it.
      await waitFor(async () => notices > paused, 'the late notice');
    } finally {
      off();
    }
  });

  it('a retry that another instance would replay from an entry the replica lacks is not acknowledged (unavailable, 503); once that entry is lost, the retry is applied anew, exactly once', async () => {
    const [onA, onB] = [backend({ prefix: 'replay:', ackReplicas: 1, ackTimeoutMs: 300 }), backend({ prefix: 'replay:', ackReplicas: 1, ackTimeoutMs: 300 })];
    const [a, b] = [onA, onB].map((on, name) => makeService(on.store, {
      entropy: createSeededSource(`replay-${name}`),
    }).service) as [ConversationService, ConversationService];
    const c = await a.create('owner');
    const turn = await a.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error(turn.error.message);
    await b.get(c.id);
    const submit = formAction(turn.next, 'main', { name: 'Aria', personality: 'Brave.' }, { idempotencyKey: 'k1' });
    pair.replica.pause();
    try {
      // Written on the primary, not acknowledged.
      expect(await a.applyAction(c.id, submit)).toMatchObject({ ok: false, error: { code: 'STORE_UNAVAILABLE' } });
      // The other instance reads it (a page load, in the moment before an acknowledgement).
      expect((await b.get(c.id))?.version).toBe(3);
      // The retry reaches that instance, which finds the key in the log: not a replay until the replica has it.
      expect(await b.applyAction(c.id, submit)).toMatchObject({ ok: false, error: { code: 'STORE_UNAVAILABLE' } });
    } finally {
      pair.replica.resume();
    }
    // A failover to a replica that never received it: the entry is gone.
    await dropLastEntry(`replay:{${c.id}}:log`);
    expect(await b.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: false });
    expect(await a.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: true });
    const log = (await onA.store.read(c.id)) ?? [];
    expect(log.flatMap((e) => (e.type === 'action' ? [e.request.idempotencyKey] : []))).toEqual(['k1']);
  });

  it('a shared idempotency record (an agent message marked answered) is acknowledged once the replica holds it, like a log entry', async () => {
    const b = backend({ prefix: 'answered:', ackReplicas: 1, ackTimeoutMs: 300 });
    const answered = b.idempotency<{ runId: string }>('agui-answered', { ttlMs: 60_000 });
    await answered.set('thread\nmessage-1', { runId: 'r1' });
    expect(await answered.get('thread\nmessage-1')).toEqual({ runId: 'r1' });
    pair.replica.pause();
    try {
      await expect(answered.set('thread\nmessage-2', { runId: 'r2' })).rejects.toBeInstanceOf(NotReplicatedError);
    } finally {
      pair.replica.resume();
    }
    // The first record stays the one kept (SET NX), whoever answers the same key later.
    await answered.set('thread\nmessage-1', { runId: 'other' });
    expect(await answered.get('thread\nmessage-1')).toEqual({ runId: 'r1' });
  });

  it('with SURFACER_REDIS_ACK_REPLICAS=0 nothing waits for the replica (an append succeeds while it is paused)', async () => {
    const b = backend({ prefix: 'none:', ackReplicas: 0 });
    pair.replica.pause();
    try {
      await b.store.append('c1', createdEntry('c1'), 0);
      expect(await b.store.read('c1')).toHaveLength(1);
    } finally {
      pair.replica.resume();
    }
  });

  it('asking for more replicas than exist: strict mode answers unavailable, never a silent success; the default waits for the one there is', async () => {
    const b = backend({ prefix: 'two:', ackReplicas: 2, ackTimeoutMs: 200, ackMode: 'strict' });
    await expect(b.store.append('c1', createdEntry('c1'), 0)).rejects.toBeInstanceOf(NotReplicatedError);
    // The replica that exists holds it: it was written, only not acknowledged.
    await waitFor(async () => Number(await redisCommand(pair.replica, ['XLEN', 'two:{c1}:log'])) === 1, 'on the replica');
    const available = backend({ prefix: 'two-available:', ackReplicas: 2, ackTimeoutMs: 200 });
    await available.store.append('c1', createdEntry('c1'), 0);
    // Acknowledged once the replica it has held it.
    expect(Number(await redisCommand(pair.replica, ['XLEN', 'two-available:{c1}:log']))).toBe(1);
  });
});

/** True once the backend's appends wait for a replica: paused replica → the append fails. */
async function replicaWaited(b: Backend): Promise<boolean> {
  pair.replica.pause();
  try {
    return await b.store.append(`p${Date.now()}`, createdEntry(`p${Date.now()}`), 0).then(() => false, (error: unknown) => error instanceof NotReplicatedError);
  } finally {
    pair.replica.resume();
  }
}

/** The log as a failover to a replica that lacked its last entry leaves it (on the primary; the replica follows). */
async function dropLastEntry(key: string): Promise<void> {
  const { createClient } = await import('redis');
  const client = createClient({ url: pair.primary.url });
  client.on('error', () => {});
  await client.connect();
  try {
    const entries = (await client.xRange(key, '-', '+')) ?? [];
    await client.del(key);
    for (const e of entries.slice(0, -1)) await client.xAdd(key, e.id, e.message);
  } finally { client.destroy(); }
}
