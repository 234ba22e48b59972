import { afterAll, beforeAll } from 'vitest';
import type { Cluster } from './cluster.ts';

type Store = { url: string; stop(): Promise<void> };

/** The instances of a file (or describe block) of multi-instance tests, and the streams its tests open. */
export interface ClusterSuite<R extends Store, S extends { close(): void }> {
  /** The running instances (from the first test on). */
  readonly cluster: Cluster<R>;
  /** Streams a test opens and leaves open: closed after the last test, before the cluster stops. */
  readonly streams: S[];
}

/**
 * Registers the hooks every multi-instance suite needs: `start` (startCluster or
 * startOnRedisCluster) runs before the first test, with a minute for it (a Redis Cluster takes
 * a while); after the last, the streams are closed and the cluster stopped. Call at the top
 * level of a test file or describe block.
 */
export function clusterSuite<R extends Store, S extends { close(): void } = { close(): void }>(
  start: () => Promise<Cluster<R>>,
): ClusterSuite<R, S> {
  let cluster: Cluster<R> | undefined;
  const streams: S[] = [];
  beforeAll(async () => { cluster = await start(); }, 60_000);
  afterAll(async () => {
    for (const s of streams.splice(0)) s.close();
    await cluster?.stop();
  });
  return {
    get cluster() {
      if (cluster === undefined) throw new Error('the cluster suite is not started (use it inside a test)');
      return cluster;
    },
    streams,
  };
}
