import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisConnection } from '../../src/backend/redis/connection.ts';
import { StoreUnavailableError } from '../../src/conversation/index.ts';
import { surfacerMetrics } from '../../src/telemetry/metrics.ts';
import { redisForTestFile } from '../support/redis-server.ts';

/*
 * Redis command latency and errors against a real redis-server: answered commands are timed;
 * a paused server (SIGSTOP) makes a command time out, and the next one is refused unsent while
 * the connection counts as stalled. Each failure is counted by its type.
 */

class InMemoryReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const r = redisForTestFile();
const reader = new InMemoryReader();
const provider = new MeterProvider({ readers: [reader] });
afterAll(async () => { await provider.shutdown(); });

async function points(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name)?.dataPoints ?? [];
}

describe('Redis command metrics', () => {
  it('times answered commands; a stall counts one timeout, then refusals as not sent', async () => {
    const connection = createRedisConnection({ urls: [r.redis().url], commandTimeoutMs: 300, metrics: surfacerMetrics(provider) });
    try {
      for (let i = 0; i < 5; i += 1) await connection.call((c) => c.set(`k${i}`, 'v'));
      expect(await connection.ping(1000)).toMatchObject({ ok: true }); // a probe: not counted
      let durations = await points('surfacer.redis.command.duration');
      expect(durations).toHaveLength(1);
      expect(durations[0]!.attributes).toEqual({});
      expect((durations[0]!.value as Histogram).count).toBe(5);
      expect(await points('surfacer.redis.command.errors')).toEqual([]);

      r.redis().pause();
      try {
        await expect(connection.call((c) => c.get('k0'))).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(connection.call((c) => c.get('k1'))).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        r.redis().resume();
      }
      const errors = (await points('surfacer.redis.command.errors')).map((p) => [p.attributes['error.type'], p.value]);
      expect(errors.sort()).toEqual([['not_sent', 1], ['timeout', 1]]);
      durations = await points('surfacer.redis.command.duration');
      const timedOut = durations.find((p) => p.attributes['error.type'] === 'timeout')!;
      expect((timedOut.value as Histogram).count).toBe(1);
      expect((timedOut.value as Histogram).sum).toBeGreaterThanOrEqual(0.29);
    } finally {
      await connection.close();
    }
  });
});
