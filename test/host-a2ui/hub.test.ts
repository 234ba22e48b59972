import { describe, expect, it } from 'vitest';
import { a2uiWire } from '../../src/compiler/index.ts';
import { createA2uiHub, initMessages, parseEventId, type A2uiHub, type A2uiServerMessage, type HubOptions, type HubSink } from '../../src/host-a2ui/index.ts';
import { formSurface, noteSurface, titleUpdate } from './fixtures.ts';

function recordingSink(): HubSink & { notified: number; drops: string[] } {
  const sink = {
    notified: 0,
    drops: [] as string[],
    notify() { sink.notified += 1; },
    dropped(reason: string) { sink.drops.push(reason); },
  };
  return sink;
}

/**
 * A hub whose `publish(cid, messages)` sends the next log version of `cid`, as a bridge following
 * the log does; each conversation's stream is named after it (`s-<cid>`).
 */
function versionedHub(options: HubOptions = {}): A2uiHub & { send(cid: string, messages: readonly A2uiServerMessage[]): void } {
  const hub = createA2uiHub(options);
  const versions = new Map<string, number>();
  const open = (cid: string): void => hub.open(cid, `s${cid.replace(/[^a-z0-9]/g, '')}`, versions.get(cid) ?? 0);
  const subscribe = hub.subscribe.bind(hub);
  return Object.assign(hub, {
    send(cid: string, messages: readonly A2uiServerMessage[]) {
      open(cid);
      const version = (versions.get(cid) ?? 0) + 1;
      versions.set(cid, version);
      hub.publish(cid, version, messages);
    },
    subscribe: ((cid, lastEventId, sink) => { open(cid); return subscribe(cid, lastEventId, sink); }) as A2uiHub['subscribe'],
  });
}

describe('A2UI hub', () => {
  it('names every message by its log version: the last of a version <stream>-<v>, the others <stream>-<v>.<k>', () => {
    const hub = versionedHub();
    const sink = recordingSink();
    const { subscription } = hub.subscribe('a', undefined, sink);
    hub.send('a', formSurface());
    hub.send('b', [titleUpdate('main', 'x')]);
    hub.send('a', [titleUpdate('main', 'y')]);
    hub.send('a', []); // a version that sends nothing changes nothing a client holds
    expect(subscription.take().map((e) => [e.id, e.version, e.index])).toEqual([
      ['sa-1.0', 1, 0], ['sa-1.1', 1, 1], ['sa-1', 1, 2], ['sa-2', 2, 0],
    ]);
    // The checkpoint is the last id sent, and a client holding it is current; `published` is the last version given (3 sent nothing).
    expect(hub.checkpoint('a')).toEqual({ stream: 'sa', version: 2, id: 'sa-2', published: 3 });
    const current = hub.subscribe('a', 'sa-2', recordingSink());
    expect(current.mode === 'resume' && current.missed).toEqual([]);
    expect(hub.checkpoint('b').id).toBe('sb-1');
    expect(parseEventId('sa-1.1')).toEqual({ stream: 'sa', version: 1, index: 1 });
    expect(parseEventId('sa-3')).toEqual({ stream: 'sa', version: 3 });
    // A version already sent (another event for it, or a replay) is not sent twice.
    hub.publish('a', 2, [titleUpdate('main', 'again')]);
    expect(subscription.take()).toEqual([]);
  });

  it('queues a published batch whole, serialised once, and notifies once per batch', () => {
    const hub = versionedHub();
    const sink = recordingSink();
    const result = hub.subscribe('c', undefined, sink);
    expect(result.mode).toBe('init');
    hub.send('c', formSurface());
    expect(sink.notified).toBe(1);
    const events = result.subscription.take();
    expect(events.map((e) => e.index)).toEqual([0, 1, 2]);
    expect(events.map((e) => JSON.parse(e.data) as unknown)).toEqual(formSurface());
    expect(result.subscription.take()).toEqual([]);
  });

  it('leaves everything unchanged when a batch cannot be serialised', () => {
    const hub = versionedHub();
    const sink = recordingSink();
    const { subscription } = hub.subscribe('c', undefined, sink);
    const cyclic: Record<string, unknown> = { surfaceUpdate: { surfaceId: 'main' } };
    (cyclic.surfaceUpdate as Record<string, unknown>).self = cyclic;
    expect(() => hub.publish('c', 1, [titleUpdate('main', 'ok'), cyclic])).toThrow();
    expect(hub.checkpoint('c').version).toBe(0);
    expect(subscription.take()).toEqual([]);
    expect(sink.notified).toBe(0);
  });

  it('resumes from the buffer after the last message of a version, and from inside one', () => {
    const hub = versionedHub();
    hub.send('c', formSurface()); // version 1: sc-1.0 sc-1.1 sc-1
    hub.send('c', [titleUpdate('main', 'two')]); // version 2: sc-2
    const result = hub.subscribe('c', 'sc-1', recordingSink());
    expect(result.mode === 'resume' && result.missed.map((e) => e.id)).toEqual(['sc-2']);
    const inside = hub.subscribe('c', 'sc-1.0', recordingSink());
    expect(inside.mode === 'resume' && inside.missed.map((e) => e.id)).toEqual(['sc-1.1', 'sc-1', 'sc-2']);
    // Up to date: nothing missed, still a resume.
    const current = hub.subscribe('c', 'sc-2', recordingSink());
    expect(current.mode === 'resume' && current.missed).toEqual([]);
    expect(hub.needsCatchUp('c', 'sc-1')).toBe(false);
  });

  it('asks for a re-init when the gap is older than the buffer, or the id is not ours; a whole older version may be caught up', () => {
    const hub = versionedHub({ limits: { bufferMessages: 5 } });
    for (let i = 0; i < 10; i += 1) hub.send('c', [titleUpdate('main', `t${i}`)]);
    expect(hub.stats('c').bufferedMessages).toBe(5);
    // Buffer holds versions 6..10: resuming after 5 is still possible, after 4 is not.
    expect(hub.subscribe('c', 'sc-5', recordingSink()).mode).toBe('resume');
    const cases: [string | undefined, string, number | undefined][] = [
      ['sc-4', 'gap', 4],
      [undefined, 'fresh', undefined],
      ['', 'fresh', undefined],
      ['garbage', 'malformed', undefined],
      ['sc-3-i0', 'malformed', undefined],
      ['other-5', 'other-stream', undefined],
      ['sc-99', 'ahead', undefined],
    ];
    for (const [lastEventId, reason, since] of cases) {
      const result = hub.subscribe('c', lastEventId, recordingSink());
      expect(result.mode === 'init' && result.reason).toBe(reason);
      if (result.mode === 'init') {
        expect(result.version).toBe(10);
        expect(result.since).toBe(since);
        expect(result.knownSurfaceIds).toEqual(['main']);
      }
    }
    expect(hub.needsCatchUp('c', 'sc-4')).toBe(true);
  });

  it('resumes inside a version only when the buffer still holds that whole version', () => {
    const hub = versionedHub({ limits: { bufferMessages: 4 } });
    hub.send('c', formSurface()); // version 1: 3 messages
    hub.send('c', [titleUpdate('main', 'a'), titleUpdate('main', 'b')]); // version 2: 2 messages; 1.0 is trimmed
    expect(hub.subscribe('c', 'sc-1.1', recordingSink()).mode).toBe('init');
    expect(hub.subscribe('c', 'sc-2.0', recordingSink()).mode).toBe('resume');
    // The whole version 1 is gone from the buffer, but a client holding all of it is resumed from 2.
    const afterOne = hub.subscribe('c', 'sc-1', recordingSink());
    expect(afterOne.mode === 'resume' && afterOne.missed.map((e) => e.id)).toEqual(['sc-2.0', 'sc-2']);
  });

  it('opens a channel where the log stands: earlier versions were never in its buffer', () => {
    const hub = createA2uiHub();
    hub.open('c', 'sc', 7);
    expect(hub.subscribe('c', 'sc-7', recordingSink()).mode).toBe('resume');
    const older = hub.subscribe('c', 'sc-6', recordingSink());
    expect(older.mode === 'init' && [older.reason, older.since]).toEqual(['gap', 6]);
    // Re-opened further on (it stopped following): the versions in between are not covered either.
    hub.publish('c', 8, [titleUpdate('main', 'eight')]);
    hub.open('c', 'sc', 12);
    expect(hub.subscribe('c', 'sc-8', recordingSink()).mode).toBe('init');
    expect(() => hub.subscribe('unopened', undefined, recordingSink())).toThrow(/not opened/);
  });

  it('builds a re-init that deletes every surface the client may hold before the snapshot', () => {
    const snapshot = [...formSurface('main'), ...noteSurface('side', 'hi')];
    const messages = initMessages(snapshot, ['closed-while-away', 'main'], a2uiWire('0.8').deleteSurface);
    expect(messages.slice(0, 3)).toEqual([
      { deleteSurface: { surfaceId: 'closed-while-away' } },
      { deleteSurface: { surfaceId: 'main' } },
      { deleteSurface: { surfaceId: 'side' } },
    ]);
    expect(messages.slice(3)).toEqual(snapshot);
  });

  it('drops a slow subscriber whose queue would overflow, and frees its queue', () => {
    const hub = versionedHub({ limits: { queueMessages: 4 } });
    const slow = recordingSink();
    const fast = recordingSink();
    const slowSub = hub.subscribe('c', undefined, slow).subscription;
    const fastSub = hub.subscribe('c', undefined, fast).subscription;
    hub.send('c', formSurface()); // 3 queued
    fastSub.take();
    hub.send('c', [titleUpdate('main', 'a')]); // 4 queued: at the bound
    fastSub.take();
    expect(slow.drops).toEqual([]);
    hub.send('c', [titleUpdate('main', 'b')]); // would be 5: dropped, batch not half-queued
    expect(slow.drops).toEqual(['slow']);
    expect(slowSub.closed).toBe(true);
    expect(slowSub.take()).toEqual([]);
    expect(fastSub.take().map((e) => e.version)).toEqual([3]);
    expect(hub.subscriberCount('c')).toBe(1);
  });

  it('drops on the byte bound too, but always accepts one batch into an empty queue', () => {
    const hub = versionedHub({ limits: { queueBytes: 300 } });
    const sink = recordingSink();
    const { subscription } = hub.subscribe('c', undefined, sink);
    hub.send('c', formSurface()); // > 300 bytes, but the queue was empty
    expect(sink.drops).toEqual([]);
    expect(subscription.take()).toHaveLength(3);
    hub.send('c', formSurface());
    hub.send('c', [titleUpdate('main', 'x')]);
    expect(sink.drops).toEqual(['slow']);
  });

  it('keeps memory bounded under many publishes with no subscribers', () => {
    const limits = { bufferMessages: 100, bufferBytes: 20_000, idleChannels: 10, knownSurfaces: 8 };
    const hub = versionedHub({ limits });
    for (let i = 0; i < 20_000; i += 1) {
      hub.send(`conv-${i % 50}`, [titleUpdate(`s${i % 20}`, `title ${i} ${'x'.repeat(i % 200)}`)]);
    }
    const stats = hub.stats();
    expect(stats.channels).toBeLessThanOrEqual(limits.idleChannels);
    expect(stats.subscribers).toBe(0);
    expect(stats.bufferedMessages).toBeLessThanOrEqual(limits.idleChannels * limits.bufferMessages);
    expect(stats.bufferedBytes).toBeLessThanOrEqual(limits.idleChannels * limits.bufferBytes);
    expect(stats.knownSurfaces).toBeLessThanOrEqual(limits.idleChannels * limits.knownSurfaces);
    for (let i = 0; i < 50; i += 1) {
      const s = hub.stats(`conv-${i}`);
      expect(s.bufferedMessages).toBeLessThanOrEqual(limits.bufferMessages);
      expect(s.bufferedBytes).toBeLessThanOrEqual(limits.bufferBytes);
    }
  });

  it('keeps memory bounded with a stalled subscriber: it is dropped, the buffer stays capped', () => {
    const limits = { bufferMessages: 50, bufferBytes: 10_000, queueMessages: 20, queueBytes: 5_000 };
    const hub = versionedHub({ limits });
    const stalled = recordingSink();
    const live = recordingSink();
    hub.subscribe('c', undefined, stalled); // never takes
    const liveSub = hub.subscribe('c', undefined, live).subscription;
    let maxQueued = 0;
    for (let i = 0; i < 5_000; i += 1) {
      hub.send('c', [titleUpdate('main', `t${i}`), titleUpdate('side', `u${i}`)]);
      maxQueued = Math.max(maxQueued, hub.stats('c').queuedMessages);
      liveSub.take();
    }
    expect(stalled.drops).toEqual(['slow']);
    expect(live.drops).toEqual([]);
    expect(maxQueued).toBeLessThanOrEqual(limits.queueMessages + 2);
    const stats = hub.stats('c');
    expect(stats.subscribers).toBe(1);
    expect(stats.queuedMessages).toBe(0);
    expect(stats.bufferedMessages).toBeLessThanOrEqual(limits.bufferMessages);
    expect(stats.bufferedBytes).toBeLessThanOrEqual(limits.bufferBytes);
  });

  it('evicts idle conversations least-recently-used first; a re-opened one resumes only what it saw', () => {
    const hub = versionedHub({ limits: { idleChannels: 2 } });
    hub.send('a', [titleUpdate('main', 'a')]);
    hub.send('a', [titleUpdate('main', 'a2')]);
    hub.send('b', [titleUpdate('main', 'b')]);
    hub.send('c', [titleUpdate('main', 'c')]); // evicts a
    expect(hub.stats().channels).toBe(2);
    expect(hub.stats('a').channels).toBe(0);
    // Opened again where its log stands (version 2): the client at 2 needs nothing, at 1 a catch-up.
    expect(hub.subscribe('a', 'sa-2', recordingSink()).mode).toBe('resume');
    const result = hub.subscribe('a', 'sa-1', recordingSink());
    expect(result.mode === 'init' && [result.reason, result.since]).toEqual(['gap', 1]);
  });

  it('never evicts a conversation that has subscribers', () => {
    const hub = versionedHub({ limits: { idleChannels: 1 } });
    const { subscription } = hub.subscribe('watched', undefined, recordingSink());
    for (let i = 0; i < 10; i += 1) hub.send(`other-${i}`, [titleUpdate('main', 'x')]);
    hub.send('watched', [titleUpdate('main', 'still here')]);
    expect(subscription.take()).toHaveLength(1);
    subscription.close();
    expect(hub.subscriberCount('watched')).toBe(0);
  });

  it('cleans up on unsubscribe (idempotent) and on forget/close', () => {
    const hub = versionedHub();
    const a = recordingSink();
    const b = recordingSink();
    const subA = hub.subscribe('c', undefined, a).subscription;
    hub.subscribe('d', undefined, b);
    hub.send('c', formSurface());
    subA.close();
    subA.close();
    expect(hub.subscriberCount('c')).toBe(0);
    expect(hub.stats('c').queuedMessages).toBe(0);
    expect(a.drops).toEqual([]);
    hub.forget('d');
    expect(b.drops).toEqual(['forgotten']);
    expect(hub.stats('d').channels).toBe(0);
    const e = recordingSink();
    hub.subscribe('e', undefined, e);
    hub.close();
    expect(e.drops).toEqual(['shutdown']);
    expect(hub.stats().subscribers).toBe(0);
    expect(() => hub.subscribe('e', undefined, recordingSink())).toThrow(/closed/);
    expect(() => hub.publish('e', 9, [titleUpdate('main', 'late')])).not.toThrow();
  });

  it('remembers a bounded set of surface ids for re-initialisation', () => {
    const hub = versionedHub({ limits: { knownSurfaces: 3 } });
    for (const id of ['s1', 's2', 's3', 's1', 's4']) hub.send('c', [titleUpdate(id, id)]);
    const result = hub.subscribe('c', undefined, recordingSink());
    expect(result.mode === 'init' && result.knownSurfaceIds).toEqual(['s3', 's1', 's4']);
  });
});
