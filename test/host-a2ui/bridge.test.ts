import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createClientSim } from '../../src/clientsim/index.ts';
import { hashAll } from '../../src/clientsim/snapshot.ts';
import { compileA2uiUpdate, compileConversationToA2ui } from '../../src/compiler/index.ts';
import {
  createMemoryStore, type Conversation, type ConversationEvent, type ConversationListener, type ConversationService,
} from '../../src/conversation/index.ts';
import { createA2uiBridges, createA2uiHub, type HubEvent, type HubSink } from '../../src/host-a2ui/index.ts';
import { createConversationStack } from '../../src/host-html/index.ts';
import { createSeededSource, type ConversationIr } from '../../src/ui-ir/index.ts';

const sink: HubSink = { notify() {}, dropped() {} };
const parse = (events: readonly HubEvent[]): unknown[] => events.map((e) => JSON.parse(e.data) as unknown);

function realService(): ConversationService {
  return createConversationStack({ app: createDemoApp(), store: createMemoryStore(), entropy: createSeededSource('bridge') });
}

async function turnIr(service: ConversationService, cid: string, text: string): Promise<{ prev: ConversationIr; next: ConversationIr }> {
  const result = await service.runTurn(cid, text);
  if (!result.ok) throw new Error(result.error.message);
  return { prev: result.prev, next: result.next };
}

/** A service double whose `get` resolves when the test says so, and whose events the test emits. */
function fakeService(conversation: Partial<Conversation> & { ir: ConversationIr; version: number }) {
  const listeners = new Set<ConversationListener>();
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => { release = resolve; });
  const resets: Array<{ cid: string; surfaceId: string }> = [];
  const service = {
    async get(cid: string) {
      await gate;
      return { id: cid, ownerSessionId: 'o', a2uiToken: 't', createdAt: '', turnCount: 0, busy: false, ...conversation } as Conversation;
    },
    subscribe(_cid: string, listener: ConversationListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async irAt() {
      return undefined;
    },
    async resetSurfaceEpoch(cid: string, surfaceId: string) {
      resets.push({ cid, surfaceId });
      return { ok: false as const, error: { code: 'IR_SURFACE_NOT_FOUND' } as never };
    },
  };
  return {
    service, resets, release,
    emit: (event: ConversationEvent) => { for (const l of listeners) l(event); },
    get listeners() { return listeners.size; },
  };
}

describe('A2UI bridge (conversation service → hub)', () => {
  it('publishes each change as compileA2uiUpdate(lastIr, next), one hub batch per surface, serialised by the compiler', async () => {
    const service = realService();
    const hub = createA2uiHub();
    const bridges = createA2uiBridges({ service, hub, autoSweep: false });
    const { id: cid } = await service.create('owner');
    expect(await bridges.prepare(cid)).toBe(true);
    const { subscription } = hub.subscribe(cid, undefined, sink);

    const first = await turnIr(service, cid, 'create a character card');
    const expected = compileA2uiUpdate(first.prev, first.next);
    expect(parse(subscription.take())).toEqual(expected.batches.flatMap((b) => b.messages));
    expect(bridges.snapshot(cid)).toEqual(compileConversationToA2ui(first.next).batches.flatMap((b) => b.messages));

    const second = await turnIr(service, cid, 'open my persona');
    expect(parse(subscription.take())).toEqual(compileA2uiUpdate(first.next, second.next).batches.flatMap((b) => b.messages));
    // Cached per IR: the same objects until the IR changes.
    expect(bridges.snapshot(cid)).toBe(bridges.snapshot(cid));
    bridges.close();
  });

  it('a snapshot plus the batches after its checkpoint always rebuild the live state', async () => {
    const service = realService();
    const hub = createA2uiHub();
    const bridges = createA2uiBridges({ service, hub, autoSweep: false });
    const { id: cid } = await service.create('owner');
    await bridges.prepare(cid);
    const live = createClientSim();
    live.applyAll(bridges.snapshot(cid));
    const { subscription } = hub.subscribe(cid, undefined, sink);
    const late: Array<{ sim: ReturnType<typeof createClientSim>; take: () => readonly HubEvent[] }> = [];
    for (const text of ['create a character card', 'scene settings', 'hello', 'create a character card', 'close it', 'open my persona']) {
      // A client that joins now: checkpoint and snapshot in one tick, then only what follows.
      const joined = hub.subscribe(cid, undefined, sink);
      const sim = createClientSim();
      sim.applyAll(bridges.snapshot(cid));
      late.push({ sim, take: () => joined.subscription.take() });
      await service.runTurn(cid, text);
      live.applyAll(parse(subscription.take()));
    }
    const fresh = createClientSim();
    fresh.applyAll(bridges.snapshot(cid));
    const semantic = { reachableOnly: true, sortDataKeys: true };
    for (const { sim, take } of late) {
      sim.applyAll(parse(take()));
      expect(hashAll(sim.state(), semantic)).toEqual(hashAll(live.state(), semantic));
    }
    expect(hashAll(fresh.state(), semantic)).toEqual(hashAll(live.state(), semantic));
    bridges.close();
  });

  it('a rewritten log (an append lost in a failover after clients were sent it): every client starts again from the log as it is, and no id of the lost entry resumes', async () => {
    const service = realService();
    const { id: cid } = await service.create('owner');
    const a = await turnIr(service, cid, 'create a character card');
    const lost = await turnIr(service, cid, 'open my persona');
    const kept = await turnIr(service, cid, 'scene settings');
    const fake = fakeService({ ir: a.next, version: 2 });
    const hub = createA2uiHub();
    const bridges = createA2uiBridges({ service: fake.service as never, hub, autoSweep: false });
    fake.release();
    expect(await bridges.prepare(cid)).toBe(true);
    const before = hub.checkpoint(cid).stream;
    const dropped: string[] = [];
    hub.subscribe(cid, undefined, { notify: () => {}, dropped: (reason) => dropped.push(reason) });
    fake.emit({ cid, prev: a.next, next: lost.next, cause: { kind: 'turn' }, version: 3 });
    expect(hub.checkpoint(cid).version).toBe(3);
    // Version 3 is now another entry: the bridge goes back to it, on a stream of its own.
    fake.emit({ cid, prev: lost.next, next: kept.next, cause: { kind: 'turn' }, version: 3, rewritten: true });
    expect(dropped).toEqual(['forgotten']);
    const after = hub.checkpoint(cid);
    expect(after.version).toBe(3);
    expect(after.stream).not.toBe(before);
    expect(hub.subscribe(cid, `${before}-3`, sink).mode).not.toBe('resume');
    expect(bridges.snapshot(cid)).toEqual(compileConversationToA2ui(kept.next).batches.flatMap((x) => x.messages));
    // A second loss at the same version names the stream the same way on every instance.
    fake.emit({ cid, prev: kept.next, next: kept.next, cause: { kind: 'turn' }, version: 3, rewritten: true });
    expect(hub.checkpoint(cid).stream).toBe(after.stream);
    bridges.close();
  });

  it('keeps events that land while the IR loads, and drops those the loaded IR already holds', async () => {
    const service = realService();
    const { id: cid } = await service.create('owner');
    const a = await turnIr(service, cid, 'create a character card');
    const b = await turnIr(service, cid, 'open my persona');
    const fake = fakeService({ ir: a.next, version: 2 });
    const hub = createA2uiHub();
    const bridges = createA2uiBridges({ service: fake.service as never, hub, autoSweep: false });
    const ready = bridges.prepare(cid);
    expect(fake.listeners).toBe(1); // subscribed before loading
    fake.emit({ cid, prev: a.prev, next: a.next, cause: { kind: 'turn' }, version: 2 }); // already in the loaded IR
    fake.emit({ cid, prev: a.next, next: b.next, cause: { kind: 'turn' }, version: 3 });
    expect(hub.stats(cid).channels).toBe(0); // nothing opened, nothing published while loading
    fake.release();
    expect(await ready).toBe(true);
    expect(hub.checkpoint(cid).version).toBe(3);
    const resumed = hub.subscribe(cid, `${hub.checkpoint(cid).stream}-2`, sink);
    if (resumed.mode !== 'resume') throw new Error('expected a resume');
    const { missed } = resumed;
    expect(parse(missed)).toEqual(compileA2uiUpdate(a.next, b.next).batches.flatMap((x) => x.messages));
    expect(bridges.snapshot(cid)).toEqual(compileConversationToA2ui(b.next).batches.flatMap((x) => x.messages));
    bridges.close();
    expect(fake.listeners).toBe(0);
  });

  it('answers false for an unknown conversation and keeps nothing', async () => {
    const service = realService();
    const bridges = createA2uiBridges({ service, hub: createA2uiHub(), autoSweep: false });
    expect(await bridges.prepare('nope')).toBe(false);
    expect(bridges.size).toBe(0);
    expect(() => bridges.snapshot('nope')).toThrow(/not prepared/);
  });

  it('drops idle bridges with their hub channel; a later resume gets what changed since its version; ids are remembered', async () => {
    const service = realService();
    const hub = createA2uiHub();
    let now = 0;
    const bridges = createA2uiBridges({ service, hub, autoSweep: false, idleMs: 1000, now: () => now });
    const { id: cid } = await service.create('owner');
    await bridges.prepare(cid);
    await service.runTurn(cid, 'create a character card');
    const before = hub.checkpoint(cid);
    const watcher = hub.subscribe(cid, before.id, sink);
    now = 5_000;
    bridges.sweep();
    expect(bridges.size).toBe(1); // a subscriber keeps it
    watcher.subscription.close();
    now = 5_500;
    bridges.sweep();
    expect(bridges.size).toBe(1);
    now = 6_100;
    bridges.sweep();
    expect(bridges.size).toBe(0);
    expect(hub.stats(cid).channels).toBe(0);
    const held = (await service.get(cid))!.ir;
    const reset = await service.resetSurfaceEpoch(cid, 'main'); // nobody bridges it: nothing published
    if (!reset.ok) throw new Error('reset failed');
    expect(bridges.surfaceIds(cid)).toContain('main--e0');
    // The client comes back with the id of the last version it holds: the buffer never saw what
    // followed, so it gets the update from that version's IR to the current one.
    expect(await bridges.prepare(cid, before.id)).toBe(true);
    const after = hub.subscribe(cid, before.id, sink);
    expect(after).toMatchObject({ mode: 'init', reason: 'gap', since: before.version });
    expect(bridges.catchUp(cid, before.version)).toEqual(compileA2uiUpdate(held, reset.next).batches.flatMap((x) => x.messages));
    expect(bridges.catchUp(cid, before.version)).toBeUndefined(); // prepared once, used once
    expect(bridges.surfaceIds(cid)).toEqual(expect.arrayContaining(['main--e0', 'main--e1']));
    expect(JSON.stringify(bridges.snapshot(cid))).toContain('main--e1');
    bridges.close();
  });

  it('drops the oldest idle bridges beyond the cap', async () => {
    const service = realService();
    let now = 0;
    const bridges = createA2uiBridges({ service, hub: createA2uiHub(), autoSweep: false, maxIdleBridges: 2, now: () => now });
    for (let i = 0; i < 4; i += 1) {
      now += 1;
      await bridges.prepare((await service.create('o')).id);
    }
    bridges.sweep();
    expect(bridges.size).toBe(2);
    bridges.close();
  });

  it('asks the service for an epoch reset when the compiler says so, once per surface epoch', async () => {
    const service = realService();
    const { id: cid } = await service.create('owner');
    const a = await turnIr(service, cid, 'create a character card');
    const b = await turnIr(service, cid, 'open my persona');
    const fake = fakeService({ ir: a.next, version: 2 });
    fake.release();
    const hub = createA2uiHub();
    const bridges = createA2uiBridges({
      service: fake.service as never, hub, autoSweep: false,
      compiler: {
        init: compileConversationToA2ui,
        update: () => ({ ok: true, batches: [], epochResets: ['main'] }),
      },
    });
    await bridges.prepare(cid);
    fake.emit({ cid, prev: a.next, next: b.next, cause: { kind: 'turn' }, version: 3 });
    fake.emit({ cid, prev: b.next, next: b.next, cause: { kind: 'turn' }, version: 4 });
    await new Promise((r) => setImmediate(r));
    expect(fake.resets).toEqual([{ cid, surfaceId: 'main' }]);
    expect(hub.checkpoint(cid).version).toBe(2); // versions 3 and 4 sent nothing
    expect(hub.stats(cid).bufferedMessages).toBe(0);
    bridges.close();
  });

  it('re-initialises a surface the clients hold as a fallback with the next batch', async () => {
    const service = realService();
    const hub = createA2uiHub();
    const calls: Array<readonly string[] | undefined> = [];
    let fail = true;
    const bridges = createA2uiBridges({
      service, hub, autoSweep: false,
      compiler: {
        init: compileConversationToA2ui,
        update: (prev, next, options = {}) => {
          calls.push(options.reinit);
          const result = compileA2uiUpdate(prev, next, options);
          if (!fail || !result.ok) return result;
          fail = false;
          return { ...result, batches: result.batches.map((x) => ({ ...x, kind: 'fallback' as const })) };
        },
      },
    });
    const { id: cid } = await service.create('owner');
    await bridges.prepare(cid);
    await service.runTurn(cid, 'create a character card');
    await service.runTurn(cid, 'hello');
    expect(calls).toEqual([undefined, ['main']]);
    bridges.close();
  });

  it('forgets the hub channel when an update cannot be compiled (every client re-initialises)', async () => {
    const service = realService();
    const hub = createA2uiHub();
    const bridges = createA2uiBridges({
      service, hub, autoSweep: false,
      compiler: { init: compileConversationToA2ui, update: () => { throw new Error('boom'); } },
    });
    const { id: cid } = await service.create('owner');
    await bridges.prepare(cid);
    const drops: string[] = [];
    hub.subscribe(cid, undefined, { notify() {}, dropped: (reason) => drops.push(reason) });
    await service.runTurn(cid, 'create a character card');
    expect(drops).toEqual(['forgotten']);
    expect(bridges.snapshot(cid).length).toBeGreaterThan(0);
    bridges.close();
  });
});

