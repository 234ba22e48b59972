import { describe, expect, it } from 'vitest';
import { createA2uiHub, initMessages, parseEventId, type HubSink } from '../../src/host-a2ui/index.ts';
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

describe('A2UI hub', () => {
  it('numbers messages per conversation, monotonically, one id per message', () => {
    const hub = createA2uiHub({ epoch: 'e1' });
    expect(hub.publish('a', formSurface())).toEqual({ firstSeq: 1, lastSeq: 3 });
    expect(hub.publish('b', [titleUpdate('main', 'x')])).toEqual({ firstSeq: 1, lastSeq: 1 });
    expect(hub.publish('a', [titleUpdate('main', 'y')])).toEqual({ firstSeq: 4, lastSeq: 4 });
    expect(hub.publish('a', [])).toBeUndefined();
    const a = hub.checkpoint('a');
    const b = hub.checkpoint('b');
    expect(a.seq).toBe(4);
    expect(a.stream).not.toBe(b.stream);
    expect(parseEventId(a.id)).toEqual({ stream: a.stream, seq: 4 });
  });

  it('queues a published batch whole, serialised once, and notifies once per batch', () => {
    const hub = createA2uiHub({ epoch: 'e1' });
    const sink = recordingSink();
    const result = hub.subscribe('c', undefined, sink);
    expect(result.mode).toBe('init');
    hub.publish('c', formSurface());
    expect(sink.notified).toBe(1);
    const events = result.subscription.take();
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(events.map((e) => JSON.parse(e.data) as unknown)).toEqual(formSurface());
    expect(events[0]!.id).toBe(`${hub.checkpoint('c').stream}-1`);
    expect(result.subscription.take()).toEqual([]);
  });

  it('leaves everything unchanged when a batch cannot be serialised', () => {
    const hub = createA2uiHub({ epoch: 'e1' });
    const sink = recordingSink();
    const { subscription } = hub.subscribe('c', undefined, sink);
    const cyclic: Record<string, unknown> = { surfaceUpdate: { surfaceId: 'main' } };
    (cyclic.surfaceUpdate as Record<string, unknown>).self = cyclic;
    expect(() => hub.publish('c', [titleUpdate('main', 'ok'), cyclic])).toThrow();
    expect(hub.checkpoint('c').seq).toBe(0);
    expect(subscription.take()).toEqual([]);
    expect(sink.notified).toBe(0);
  });

  it('resumes from the replay buffer after a Last-Event-ID', () => {
    const hub = createA2uiHub({ epoch: 'e1' });
    hub.publish('c', formSurface());
    hub.publish('c', [titleUpdate('main', 'two')]);
    const stream = hub.checkpoint('c').stream;
    const result = hub.subscribe('c', `${stream}-2`, recordingSink());
    expect(result.mode).toBe('resume');
    if (result.mode !== 'resume') return;
    expect(result.missed.map((e) => e.seq)).toEqual([3, 4]);
    // Up to date: nothing missed, still a resume.
    const current = hub.subscribe('c', `${stream}-4`, recordingSink());
    expect(current.mode).toBe('resume');
    expect(current.mode === 'resume' && current.missed).toEqual([]);
  });

  it('asks for a re-init when the gap is older than the buffer, or the id is not ours', () => {
    const hub = createA2uiHub({ epoch: 'e1', limits: { bufferMessages: 5 } });
    for (let i = 0; i < 10; i += 1) hub.publish('c', [titleUpdate('main', `t${i}`)]);
    const { stream } = hub.checkpoint('c');
    expect(hub.stats('c').bufferedMessages).toBe(5);
    // Buffer holds 6..10: resuming after 5 is still possible, after 4 is not.
    expect(hub.subscribe('c', `${stream}-5`, recordingSink()).mode).toBe('resume');
    const cases: [string | undefined, string][] = [
      [`${stream}-4`, 'gap'],
      [undefined, 'fresh'],
      ['', 'fresh'],
      ['garbage', 'malformed'],
      [`${stream}-3-i0`, 'malformed'],
      ['othere1c1-5', 'other-stream'],
      [`${stream}-99`, 'ahead'],
    ];
    for (const [lastEventId, reason] of cases) {
      const result = hub.subscribe('c', lastEventId, recordingSink());
      expect(result.mode === 'init' && result.reason).toBe(reason);
      if (result.mode === 'init') {
        expect(result.seq).toBe(10);
        expect(result.knownSurfaceIds).toEqual(['main']);
      }
    }
  });

  it('builds a re-init that deletes every surface the client may hold before the snapshot', () => {
    const snapshot = [...formSurface('main'), ...noteSurface('side', 'hi')];
    const messages = initMessages(snapshot, ['closed-while-away', 'main']);
    expect(messages.slice(0, 3)).toEqual([
      { deleteSurface: { surfaceId: 'closed-while-away' } },
      { deleteSurface: { surfaceId: 'main' } },
      { deleteSurface: { surfaceId: 'side' } },
    ]);
    expect(messages.slice(3)).toEqual(snapshot);
  });

  it('drops a slow subscriber whose queue would overflow, and frees its queue', () => {
    const hub = createA2uiHub({ epoch: 'e1', limits: { queueMessages: 4 } });
    const slow = recordingSink();
    const fast = recordingSink();
    const slowSub = hub.subscribe('c', undefined, slow).subscription;
    const fastSub = hub.subscribe('c', undefined, fast).subscription;
    hub.publish('c', formSurface()); // 3 queued
    fastSub.take();
    hub.publish('c', [titleUpdate('main', 'a')]); // 4 queued: at the bound
    fastSub.take();
    expect(slow.drops).toEqual([]);
    hub.publish('c', [titleUpdate('main', 'b')]); // would be 5: dropped, batch not half-queued
    expect(slow.drops).toEqual(['slow']);
    expect(slowSub.closed).toBe(true);
    expect(slowSub.take()).toEqual([]);
    expect(fastSub.take().map((e) => e.seq)).toEqual([5]);
    expect(hub.subscriberCount('c')).toBe(1);
  });

  it('drops on the byte bound too, but always accepts one batch into an empty queue', () => {
    const hub = createA2uiHub({ epoch: 'e1', limits: { queueBytes: 300 } });
    const sink = recordingSink();
    const { subscription } = hub.subscribe('c', undefined, sink);
    hub.publish('c', formSurface()); // > 300 bytes, but the queue was empty
    expect(sink.drops).toEqual([]);
    expect(subscription.take()).toHaveLength(3);
    hub.publish('c', formSurface());
    hub.publish('c', [titleUpdate('main', 'x')]);
    expect(sink.drops).toEqual(['slow']);
  });

  it('keeps memory bounded under many publishes with no subscribers', () => {
    const limits = { bufferMessages: 100, bufferBytes: 20_000, idleChannels: 10, knownSurfaces: 8 };
    const hub = createA2uiHub({ epoch: 'e1', limits });
    for (let i = 0; i < 20_000; i += 1) {
      hub.publish(`conv-${i % 50}`, [titleUpdate(`s${i % 20}`, `title ${i} ${'x'.repeat(i % 200)}`)]);
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
    const hub = createA2uiHub({ epoch: 'e1', limits });
    const stalled = recordingSink();
    const live = recordingSink();
    hub.subscribe('c', undefined, stalled); // never takes
    const liveSub = hub.subscribe('c', undefined, live).subscription;
    let maxQueued = 0;
    for (let i = 0; i < 5_000; i += 1) {
      hub.publish('c', [titleUpdate('main', `t${i}`), titleUpdate('side', `u${i}`)]);
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

  it('evicts idle conversations least-recently-used first; an evicted stream id re-inits', () => {
    const hub = createA2uiHub({ epoch: 'e1', limits: { idleChannels: 2 } });
    hub.publish('a', [titleUpdate('main', 'a')]);
    const oldA = hub.checkpoint('a').id;
    hub.publish('b', [titleUpdate('main', 'b')]);
    hub.publish('c', [titleUpdate('main', 'c')]); // evicts a
    expect(hub.stats().channels).toBe(2);
    const result = hub.subscribe('a', oldA, recordingSink());
    expect(result.mode === 'init' && result.reason).toBe('other-stream');
  });

  it('never evicts a conversation that has subscribers', () => {
    const hub = createA2uiHub({ epoch: 'e1', limits: { idleChannels: 1 } });
    const { subscription } = hub.subscribe('watched', undefined, recordingSink());
    for (let i = 0; i < 10; i += 1) hub.publish(`other-${i}`, [titleUpdate('main', 'x')]);
    hub.publish('watched', [titleUpdate('main', 'still here')]);
    expect(subscription.take()).toHaveLength(1);
    subscription.close();
    expect(hub.subscriberCount('watched')).toBe(0);
  });

  it('cleans up on unsubscribe (idempotent) and on forget/close', () => {
    const hub = createA2uiHub({ epoch: 'e1' });
    const a = recordingSink();
    const b = recordingSink();
    const subA = hub.subscribe('c', undefined, a).subscription;
    hub.subscribe('d', undefined, b);
    hub.publish('c', formSurface());
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
    expect(hub.publish('e', [titleUpdate('main', 'late')])).toBeUndefined();
  });

  it('remembers a bounded set of surface ids for re-initialisation', () => {
    const hub = createA2uiHub({ epoch: 'e1', limits: { knownSurfaces: 3 } });
    for (const id of ['s1', 's2', 's3', 's1', 's4']) hub.publish('c', [titleUpdate(id, id)]);
    const result = hub.subscribe('c', undefined, recordingSink());
    expect(result.mode === 'init' && result.knownSurfaceIds).toEqual(['s3', 's1', 's4']);
  });
});
