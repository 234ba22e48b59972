import { afterEach, describe, expect, it } from 'vitest';
import { createClusterDriver } from '../../src/backend/redis/cluster-driver.ts';

/*
 * node-redis 6.3.1 re-sends a departed node's sharded subscriptions through the cluster's own
 * sSubscribe and drops the promise; in a failover whose slot has no primary yet that promise
 * rejects, and an unhandled rejection ends a Node process (seen in the cluster failover suite).
 * The driver guards the sSubscribe node-redis calls: the failure is reported and tried again.
 */
describe('the cluster driver, a sharded re-subscription that fails', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason); };
  afterEach(() => { process.off('unhandledRejection', onUnhandled); });

  const resend = {
    // Through the object createCluster returns.
    'its sSubscribe': (commands: unknown) => {
      void (commands as { sSubscribe(channel: string, listener: () => void): Promise<void> }).sSubscribe('surfacer:{c1}:changes', () => {});
    },
    // What node-redis really runs on a topology change: its listener, bound to the cluster
    // instance behind that object (its prototype), calls this.sSubscribe and does not await it.
    'node-redis\'s own re-subscription': (commands: unknown) => {
      const instance = (commands as { _self: { resubscribeAllPubSubListeners(listeners: unknown): void } })._self;
      instance.resubscribeAllPubSubListeners({ SHARDED: new Map([['surfacer:{c1}:changes', { buffers: new Set(), strings: new Set([() => {}]) }]]) });
    },
  };
  it.each(Object.keys(resend))('sent by %s: reported as an error and retried, never left as an unhandled rejection', async (way) => {
    process.on('unhandledRejection', onUnhandled);
    const driver = createClusterDriver(['redis://127.0.0.1:1'], { reconnectDelay: () => 1_000 });
    const errors: Error[] = [];
    driver.onError((e) => { errors.push(e); });
    try {
      resend[way as keyof typeof resend](driver.commands);
      await expect.poll(() => errors.length, { timeout: 2_000 }).toBeGreaterThanOrEqual(2); // the first try and a retry
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      driver.destroy();
    }
  });
});
