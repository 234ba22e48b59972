import { randomBytes } from 'node:crypto';
import { TURN_CANCELLED, type TurnGate } from '../../conversation/index.ts';
import { CommandNotSentError, type RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { redisScript } from './script.ts';

export interface RedisTurnGateOptions {
  /** How long a claim lives without renewal: a crashed instance's turn blocks no longer. Default 15 000. */
  leaseMs?: number;
  /** How often a waiting claim tries again. Default 100. */
  pollMs?: number;
}

/** Pause between tries of a release that failed. */
const RELEASE_RETRY_MS = 200;
const SUBSCRIBE_WAIT_MS = 1_000;
/** Only the holder of a claim may renew or end it. */
const RENEW = redisScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`);
const RELEASE = redisScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`);

/**
 * A conversation's running turn is a key holding the claim's token, with a lease the running
 * instance renews (SET NX PX): a second instance's turn waits until the key is gone (or its lease
 * ran out because its holder died). A cancel on any instance publishes the token on one channel
 * every instance listens to; the instance holding that token aborts its turn.
 */
export function createRedisTurnGate(connection: RedisConnection, keys: RedisKeys, options: RedisTurnGateOptions = {}): TurnGate {
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? 100;
  /** Claims held by this process: token → its turn's controller. */
  const held = new Map<string, AbortController>();
  let listening: Promise<unknown> | undefined;
  // A claim waits for the cancel subscription, but only briefly: while Redis is away the
  // subscriber waits for it, and a claim must fail fast instead (its SET does). node-redis
  // re-subscribes after every reconnect.
  const listen = (): Promise<unknown> => {
    listening ??= connection.subscriber('broadcast')
      .then((sub) => sub.subscribe(keys.cancel, (token) => held.get(token)?.abort(TURN_CANCELLED)))
      .catch(() => { listening = undefined; });
    return Promise.race([listening, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  };

  const releaseNow = (cid: string, token: string): Promise<unknown> => connection.call((client) => RELEASE.run(client, [keys.turn(cid)], [token]), { key: keys.turn(cid), span: { name: 'turn.release', command: 'EVALSHA' } });
  /** Tries the release again until it succeeds or the lease is over anyway. */
  const releaseLater = (cid: string, token: string): void => {
    const until = Date.now() + leaseMs;
    const retry = (): void => {
      if (Date.now() + RELEASE_RETRY_MS > until) return;
      setTimeout(() => { releaseNow(cid, token).catch(retry); }, RELEASE_RETRY_MS).unref();
    };
    retry();
  };

  return {
    async claim(cid, controller, waitMs) {
      const token = `${randomBytes(12).toString('base64url')}`;
      const deadline = Date.now() + waitMs;
      for (;;) {
        const set = await connection.call((client) => client.set(keys.turn(cid), token, { condition: 'NX', expiration: { type: 'PX', value: leaseMs } }), { key: keys.turn(cid), span: { name: 'turn.claim', command: 'SET' } })
          .catch((error: unknown) => {
            // Unanswered is not undone: Redis may still set it, and a claim nobody holds would
            // block the conversation's turns for a whole lease.
            if (!(error instanceof CommandNotSentError)) releaseLater(cid, token);
            throw error;
          });
        if (set === 'OK') break;
        if (controller.signal.aborted || Date.now() + pollMs > deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
      held.set(token, controller);
      // A cancel sent from another instance from now on must reach this one.
      await listen();
      const renew = setInterval(() => {
        connection.call((client) => RENEW.run(client, [keys.turn(cid)], [token, String(leaseMs)]), { key: keys.turn(cid), span: { name: 'turn.renew', command: 'EVALSHA' } }).catch(() => {
          // Redis is away: the turn goes on; its log append will fail or conflict, never double-apply.
        });
      }, Math.max(10, Math.floor(leaseMs / 3)));
      renew.unref();
      return {
        async release() {
          clearInterval(renew);
          held.delete(token);
          try {
            await releaseNow(cid, token);
          } catch (error) {
            // Redis stalled or away: the claim would block this conversation's next turns (they
            // wait for it) until its lease ran out. Released as soon as Redis answers again.
            releaseLater(cid, token);
            throw error;
          }
        },
      };
    },

    async cancel(cid) {
      const token = await connection.call((client) => client.get(keys.turn(cid)), { key: keys.turn(cid), span: { name: 'turn.holder', command: 'GET' } });
      if (token === null) return false;
      const local = held.get(token);
      if (local) local.abort(TURN_CANCELLED);
      else await connection.call((client) => client.publish(keys.cancel, token), { key: keys.cancel, span: { name: 'turn.cancel', command: 'PUBLISH' } });
      return true;
    },

    async running(cid) {
      return (await connection.call((client) => client.exists(keys.turn(cid)), { key: keys.turn(cid), span: { name: 'turn.running', command: 'EXISTS' } })) === 1;
    },
  };
}
