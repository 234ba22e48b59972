import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SharedFrame, sseFrame, type SseChunk } from '../../src/hosting/index.ts';
import { createA2uiHub, type DropReason, type HubSubscription } from '../../src/host-a2ui/index.ts';
import { framesOf } from '../../src/host-a2ui/frames.ts';

/*
 * The fan-out shares work between subscribers: the hub hands every subscriber whose queue was
 * empty the very array it published (copied only when a second batch lands before a take), and
 * framesOf frames that array once for all of them. These properties check that sharing never
 * shows: every subscriber receives exactly the frames of the batches published while it was
 * subscribed, in order, whatever the interleaving of subscribe / publish / take / close.
 */

type Command =
  | { kind: 'subscribe' }
  | { kind: 'publish'; messages: number }
  | { kind: 'take'; who: number }
  | { kind: 'close'; who: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant<Command>({ kind: 'subscribe' }),
  fc.record({ kind: fc.constant('publish' as const), messages: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('take' as const), who: fc.nat(20) }),
  fc.record({ kind: fc.constant('close' as const), who: fc.nat(20) }),
);

interface Client {
  subscription: HubSubscription;
  /** What its connection wrote: the bytes of every framesOf(take()). */
  received: string;
  /** The model: the frames its takes must have returned, in order… */
  expected: string;
  /** …and those published since its last take (a take delivers them; a close or drop discards them). */
  pending: string;
  /** The model's verdict that the hub drops it as slow. */
  slow: boolean;
  /** Messages queued and not yet taken, as the hub counts them (the model of the slow-client rule). */
  queued: number;
  drops: DropReason[];
  closed: boolean;
}

function textOf(chunks: readonly SseChunk[]): string {
  return chunks.map((c) => (typeof c === 'string' ? c : Buffer.from(c instanceof SharedFrame ? c.bytes : c).toString())).join('');
}

function run(commands: readonly Command[], queueMessages: number): Client[] {
  const hub = createA2uiHub({ limits: { queueMessages } });
  hub.open('c', 'sc', 0);
  const clients: Client[] = [];
  let version = 0;
  let surface = 0;
  for (const cmd of commands) {
    if (cmd.kind === 'subscribe') {
      // From the checkpoint: resumed with nothing missed, then live.
      const client: Partial<Client> = { received: '', expected: '', pending: '', slow: false, queued: 0, drops: [], closed: false };
      const result = hub.subscribe('c', hub.checkpoint('c').id, {
        notify() {},
        dropped(reason) { client.drops!.push(reason); },
      });
      expect(result.mode).toBe('resume');
      if (result.mode === 'resume') expect(result.missed).toEqual([]);
      client.subscription = result.subscription;
      clients.push(client as Client);
    } else if (cmd.kind === 'publish') {
      version += 1;
      const messages = Array.from({ length: cmd.messages }, () => ({ deleteSurface: { surfaceId: `s${(surface += 1)}` } }));
      hub.publish('c', version, messages);
      if (messages.length === 0) continue;
      const ids = messages.map((_, i) => (i === messages.length - 1 ? `sc-${version}` : `sc-${version}.${i}`));
      const frames = messages.map((m, i) => sseFrame({ id: ids[i], data: JSON.stringify(m) })).join('');
      for (const client of clients) {
        if (client.closed) continue;
        if (client.queued > 0 && client.queued + messages.length > queueMessages) {
          client.closed = true; // the model's drop; the hub must agree (checked below)
          client.slow = true;
          client.pending = '';
          continue;
        }
        client.queued += messages.length;
        client.pending += frames;
      }
    } else if (clients.length > 0) {
      const client = clients[cmd.who % clients.length]!;
      if (cmd.kind === 'take') {
        client.received += textOf(framesOf(client.subscription.take()));
        client.expected += client.pending;
        client.pending = '';
        client.queued = 0;
      } else {
        client.subscription.close();
        client.closed = true;
        client.pending = '';
      }
    }
  }
  for (const client of clients) {
    // What is still queued reaches a live client with its next take.
    if (!client.subscription.closed) {
      client.received += textOf(framesOf(client.subscription.take()));
      client.expected += client.pending;
    }
  }
  return clients;
}

describe('shared batches and frames (hub + frames.ts)', () => {
  it('property: every subscriber receives exactly the frames published while it was subscribed, in order', () => {
    fc.assert(fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
      for (const client of run(commands, 10_000)) {
        expect(client.slow).toBe(false);
        expect(client.drops).toEqual([]);
        expect(client.received).toBe(client.expected);
      }
    }), { numRuns: 300 });
  });

  it('property: with a small queue, a subscriber that falls behind is dropped as slow — and only it; the others are unaffected', () => {
    fc.assert(fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
      for (const client of run(commands, 4)) {
        expect(client.drops).toEqual(client.slow ? ['slow'] : []);
        expect(client.received).toBe(client.expected);
      }
    }), { numRuns: 300 });
  });

  it('frames a published batch once: every subscriber that takes it gets the same Buffer', () => {
    const hub = createA2uiHub();
    hub.open('c', 'sc', 0);
    const subs = Array.from({ length: 3 }, () => hub.subscribe('c', undefined, { notify() {}, dropped() {} }).subscription);
    hub.publish('c', 1, [{ deleteSurface: { surfaceId: 'a' } }, { deleteSurface: { surfaceId: 'b' } }]);
    const written = subs.map((s) => framesOf(s.take()));
    expect(written[0]).toHaveLength(1);
    expect(written[1]![0]).toBe(written[0]![0]);
    expect(written[2]![0]).toBe(written[0]![0]);
    // Two batches before a take: the subscriber's own copy, both batches in order, the published arrays untouched.
    hub.publish('c', 2, [{ deleteSurface: { surfaceId: 'c' } }]);
    hub.publish('c', 3, [{ deleteSurface: { surfaceId: 'd' } }]);
    expect(subs[0]!.take().map((e) => e.id)).toEqual(['sc-2', 'sc-3']);
    expect(subs[1]!.take().map((e) => e.id)).toEqual(['sc-2', 'sc-3']);
    // Subscribers holding the same run of batches (published in one turn) share one frame too.
    hub.publish('c', 4, [{ deleteSurface: { surfaceId: 'e' } }]);
    hub.publish('c', 5, [{ deleteSurface: { surfaceId: 'f' } }]);
    const runs = [framesOf(subs[0]!.take()), framesOf(subs[1]!.take())];
    expect(runs[1]![0]).toBe(runs[0]![0]);
    expect(textOf(runs[0]!)).toBe(['sc-4', 'sc-5'].map((id, i) => sseFrame({ id, data: JSON.stringify({ deleteSurface: { surfaceId: 'ef'[i] } }) })).join(''));
    expect(subs[2]!.take().map((e) => e.id)).toEqual(['sc-2', 'sc-3', 'sc-4', 'sc-5']);
    const again = hub.subscribe('c', 'sc-1', { notify() {}, dropped() {} });
    expect(again.mode === 'resume' && again.missed.map((e) => e.id)).toEqual(['sc-2', 'sc-3', 'sc-4', 'sc-5']);
  });
});
