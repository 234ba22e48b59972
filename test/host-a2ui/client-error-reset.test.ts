import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createMemoryStore, type ConversationService } from '../../src/conversation/index.ts';
import { makeError } from '../../src/errors/index.ts';
import { createA2uiHost } from '../../src/host-a2ui/index.ts';
import { createConversationStack } from '../../src/host-html/index.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';

describe('a client error report whose epoch reset failed', () => {
  it('is retried when the report is replayed under its key, and only while the surface is still broken', async () => {
    const real = createConversationStack({ app: createDemoApp(), store: createMemoryStore(), entropy: createSeededSource('reset') });
    let failNext = true;
    const service: ConversationService = {
      ...real,
      async resetSurfaceEpoch(cid, surfaceId, options) {
        if (failNext) {
          failNext = false;
          return { ok: false, error: makeError('STORE_UNAVAILABLE', 'a blip') };
        }
        return real.resetSurfaceEpoch(cid, surfaceId, options);
      },
    };
    const host = createA2uiHost({ service, bridgeIdleMs: 60_000 });
    const app = new Hono();
    host.mount(app);
    const c = await real.create('owner');
    await real.runTurn(c.id, 'create a character card');
    const report = async (): Promise<{ reset: string; replayed: boolean; surface: { epoch: number } }> => {
      const res = await app.request(`/a2ui/c/${c.id}/events`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${c.a2uiToken}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'report-1' },
        body: JSON.stringify({ error: { code: 'VALIDATION_FAILED', surfaceId: 'main--e0', message: 'cannot render' } }),
      });
      expect(res.status).toBe(202);
      return await res.json() as never;
    };
    try {
      expect(await report()).toMatchObject({ reset: 'failed', replayed: false, surface: { epoch: 0 } });
      // The client retries its report (same key): the surface is still broken, so the reset is tried again.
      expect(await report()).toMatchObject({ reset: 'done', replayed: true, surface: { epoch: 1 } });
      // Once more: the reset happened, nothing to do.
      expect(await report()).toMatchObject({ reset: 'skipped', replayed: true, surface: { epoch: 1 } });
    } finally {
      host.close();
    }
  });
});
