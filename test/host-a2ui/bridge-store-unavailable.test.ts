import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createMemoryStore, StoreUnavailableError, type ConversationService } from '../../src/conversation/index.ts';
import { createA2uiBridges, createA2uiHub } from '../../src/host-a2ui/index.ts';
import { createConversationStack } from '../../src/host-html/index.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';

/*
 * A stream for a conversation no bridge follows yet, while the shared store is away: the bridge
 * cannot load it. That is no missing conversation (a 500 "gone" before) and no failure of the
 * bridge's (an error in the log before): prepare rejects with StoreUnavailableError (the route
 * answers 503 with a retry hint), keeps nothing, and the next prepare loads it again.
 */
describe('A2UI bridge, shared store away', () => {
  it('prepare rejects with StoreUnavailableError, logs no error, and works again once the store is back', async () => {
    const real = createConversationStack({ app: createDemoApp(), store: createMemoryStore(), entropy: createSeededSource('bridge-away') });
    const c = await real.create('owner');
    await real.runTurn(c.id, 'create a character card');
    let down = true;
    const service: ConversationService = {
      ...real,
      get: async (cid) => {
        if (down) throw new StoreUnavailableError('redis: connection closed (test)');
        return real.get(cid);
      },
    };
    const errors: string[] = [];
    const logger = { info() {}, warn() {}, error: (message: string) => { errors.push(message); } };
    const hub = createA2uiHub();
    const bridges = createA2uiBridges({ service, hub, logger, autoSweep: false });

    await expect(bridges.prepare(c.id)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(bridges.size).toBe(0);
    expect(errors).toEqual([]);

    down = false;
    expect(await bridges.prepare(c.id)).toBe(true);
    expect(bridges.snapshot(c.id).length).toBeGreaterThan(0);
    expect(hub.checkpoint(c.id).version).toBe(2);
    bridges.close();
  });
});
