import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createLocalBackend, type Backend } from '../../src/backend/index.ts';
import { ServeConfigError, startServe } from '../../src/cli/commands/serve.ts';
import { createMemoryStore } from '../../src/conversation/index.ts';
import { createSurfacer } from '../../src/server/index.ts';

/*
 * Issue 24: the probes never wait on the backend longer than they may. /healthz (liveness)
 * answers from the process alone; /readyz (readiness) within its own deadline, not ready when
 * the backend does not answer in time or the instance is draining.
 */
function backendThatNeverAnswers(): Backend {
  const local = createLocalBackend(createMemoryStore());
  return {
    ...local,
    status: () => ({ ok: false, engine: 'local', state: 'stalled' }),
    health: () => new Promise(() => {}),
  };
}

async function timed(run: () => Promise<Response>): Promise<{ ms: number; status: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const res = await run();
  const body = await res.json() as Record<string, unknown>;
  return { ms: performance.now() - started, status: res.status, body };
}

describe('liveness and readiness probes', () => {
  it('/healthz answers at once with the last known state; /readyz answers 503 within its deadline', async () => {
    const s = createSurfacer({ app: createDemoApp(), backend: backendThatNeverAnswers(), hostLimits: { readyTimeoutMs: 200 } });
    try {
      const live = await timed(async () => s.fetch(new Request('http://127.0.0.1/healthz')));
      expect(live).toMatchObject({ status: 200, body: { ok: true, store: { ok: false, state: 'stalled' } } });
      expect(live.ms).toBeLessThan(100);
      const ready = await timed(async () => s.fetch(new Request('http://127.0.0.1/readyz')));
      expect(ready).toMatchObject({ status: 503, body: { ok: false, draining: false, store: { ok: false } } });
      expect(ready.ms).toBeGreaterThanOrEqual(100);
      expect(ready.ms).toBeLessThan(200);
    } finally {
      await s.close();
    }
  });

  it('/readyz is 200 while the backend answers and 503 at once while draining', async () => {
    const s = createSurfacer({ app: createDemoApp() });
    const ready = await timed(async () => s.fetch(new Request('http://127.0.0.1/readyz')));
    expect(ready).toMatchObject({ status: 200, body: { ok: true, draining: false, store: { ok: true, engine: 'local' } } });
    s.closeStreams();
    const draining = await timed(async () => s.fetch(new Request('http://127.0.0.1/readyz')));
    expect(draining).toMatchObject({ status: 503, body: { ok: false, draining: true } });
    await s.close();
  });

  it('the deadlines are settings: anything but a whole number of at least 1 cannot start', async () => {
    for (const [name, value] of [['SURFACER_READY_TIMEOUT_MS', 'soon'], ['SURFACER_REDIS_COMMAND_TIMEOUT_MS', '0'], ['SURFACER_REDIS_MAX_IN_FLIGHT', '-5']]) {
      await expect(startServe({
        port: 0, hostname: '127.0.0.1', planner: 'offline', dataDir: '/nonexistent-surfacer-probes', logger: { info() {}, warn() {}, error() {} },
        env: { [name!]: value },
      })).rejects.toThrow(ServeConfigError);
    }
  });

  it('the Redis replica settings: ACK_REPLICAS a whole number (0 allowed), ACK_TIMEOUT_MS at least 1, ACK_MODE available or strict, CLUSTER 0 or 1; anything else cannot start', async () => {
    for (const [name, value] of [
      ['SURFACER_REDIS_ACK_REPLICAS', 'one'], ['SURFACER_REDIS_ACK_REPLICAS', '-1'], ['SURFACER_REDIS_ACK_TIMEOUT_MS', '0'], ['SURFACER_REDIS_CLUSTER', 'yes'],
      ['SURFACER_REDIS_ACK_MODE', 'lenient'],
    ]) {
      await expect(startServe({
        port: 0, hostname: '127.0.0.1', planner: 'offline', dataDir: '/nonexistent-surfacer-probes', logger: { info() {}, warn() {}, error() {} },
        env: { [name!]: value },
      }), `${name}=${value}`).rejects.toThrow(ServeConfigError);
    }
  });
});
