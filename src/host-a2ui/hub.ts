import { formatEventId, parseEventId, type EventPosition } from './event-id.ts';
import { surfaceIdOf, type A2uiServerMessage } from './messages.ts';

/*
 * Fan-out of A2UI messages to SSE subscribers, one channel per conversation. No sockets and no
 * timers here: the transport (routes.ts) drains each subscriber's queue when notified.
 *
 * Memory bounds: per channel a replay buffer (count and bytes); per subscriber a queue (count and
 * bytes) — a subscriber whose queue would overflow is dropped, never blocked; channels without
 * subscribers are kept for resumes in an LRU of bounded size; surface ids remembered for
 * re-initialisation are capped too.
 */

export interface HubEvent {
  /** SSE `id` (see event-id.ts). */
  readonly id: string;
  /** The log version whose change this message sends, and its place among that version's messages. */
  readonly version: number;
  readonly index: number;
  /** The message as one line of JSON, serialised once and shared by every subscriber. */
  readonly data: string;
  readonly bytes: number;
}

export type DropReason = 'slow' | 'forgotten' | 'shutdown';

export interface HubSink {
  /** Events were queued for this subscriber: call `take()` soon. Once per published batch. */
  notify(): void;
  /** The hub let go of this subscriber (its queue is discarded); end the transport. */
  dropped(reason: DropReason): void;
}

export interface HubSubscription {
  /**
   * Everything queued since the last call, oldest first; whole batches only. Often the very
   * array publish() offered every subscriber (one batch since the last take): read it, never
   * change it — the transport may key shared work on it (sse.ts frames a batch once).
   */
  take(): readonly HubEvent[];
  /** Idempotent; call on disconnect. */
  close(): void;
  readonly closed: boolean;
}

/** Why a subscriber must be re-initialised instead of resumed. */
export type InitReason = 'fresh' | 'malformed' | 'other-stream' | 'gap' | 'ahead';

export type SubscribeResult =
  | { readonly mode: 'resume'; readonly missed: readonly HubEvent[]; readonly subscription: HubSubscription }
  | {
      readonly mode: 'init';
      readonly reason: InitReason;
      /** Checkpoint of the init: the snapshot the caller sends is the state as of `version`. */
      readonly stream: string;
      readonly version: number;
      /**
       * The client holds every message up to this version (its id was the last of a version),
       * but the buffer no longer does: a catch-up from that version's IR can replace the init.
       */
      readonly since?: number;
      /** Surfaces the client may hold: send them `deleteSurface` first (messages.ts initMessages). */
      readonly knownSurfaceIds: readonly string[];
      readonly subscription: HubSubscription;
    };

export interface HubLimits {
  /** Replay buffer per conversation. */
  bufferMessages: number;
  bufferBytes: number;
  /** Queue per subscriber; exceeding it drops the subscriber. A lone batch is always accepted. */
  queueMessages: number;
  queueBytes: number;
  /** Conversations without subscribers kept for resumes (least recently used go first). */
  idleChannels: number;
  /** Surface ids remembered per conversation for re-initialisation. */
  knownSurfaces: number;
}

export const DEFAULT_HUB_LIMITS: HubLimits = {
  bufferMessages: 512,
  bufferBytes: 1024 * 1024,
  queueMessages: 256,
  queueBytes: 512 * 1024,
  idleChannels: 1000,
  knownSurfaces: 64,
};

export interface HubStats {
  channels: number;
  subscribers: number;
  bufferedMessages: number;
  bufferedBytes: number;
  queuedMessages: number;
  queuedBytes: number;
  knownSurfaces: number;
}

export interface A2uiHub {
  /**
   * Names `cid`'s stream (the same on every instance, see event-id.ts) and where its log stands.
   * Called before the first publish; a different stream starts the channel over.
   */
  open(cid: string, stream: string, version: number): void;
  /**
   * Appends the messages of log version `version` atomically (all serialised first; a throw
   * changes nothing). Versions skipped between two publishes are versions that sent nothing.
   * `lines`, when given, are the messages already serialised (the compiler's), one per message.
   */
  publish(cid: string, version: number, messages: readonly A2uiServerMessage[], lines?: readonly string[]): void;
  /** `lastEventId`: the client's Last-Event-ID, if any. Throws HubClosedError after close(). */
  subscribe(cid: string, lastEventId: string | undefined, sink: HubSink): SubscribeResult;
  /** Where the stream of `cid` stands now (for snapshot readers that want to resume later). */
  /**
   * The checkpoint (`version`: the last version that sent messages, and its event `id`), and
   * `published`: the last version the hub was given, whether or not it sent anything.
   */
  checkpoint(cid: string): { stream: string; version: number; id: string; published: number };
  /** False when a client whose last event id is `lastEventId` can be resumed from the buffer (or needs nothing). */
  needsCatchUp(cid: string, lastEventId: string | undefined): boolean;
  subscriberCount(cid: string): number;
  stats(cid?: string): HubStats;
  /** Drops a conversation: its subscribers ('forgotten') and buffer. */
  forget(cid: string): void;
  /** Drops every subscriber ('shutdown'); later subscribes throw, later publishes are ignored. */
  close(): void;
}

export class HubClosedError extends Error {
  constructor() {
    super('A2UI hub is closed');
    this.name = 'HubClosedError';
  }
}

export interface HubOptions {
  limits?: Partial<HubLimits>;
}

interface Channel {
  readonly stream: string;
  /** The last version published (or opened at). */
  version: number;
  /**
   * The checkpoint: the last version that sent messages (or the one opened at). A version that
   * sent nothing changed nothing a client holds, so a client at the checkpoint is current; and
   * the checkpoint is an id clients really receive.
   */
  sent: number;
  /** The buffer holds every message of the versions after this one. */
  coveredAfter: number;
  /** Events in (version, index) order from `buffer[head]`; compacted lazily. */
  buffer: HubEvent[];
  head: number;
  bufferBytes: number;
  readonly subscribers: Set<Subscriber>;
  /** Insertion order = recency. */
  readonly knownSurfaces: Set<string>;
}

const NOTHING: readonly HubEvent[] = Object.freeze([]);

class Subscriber implements HubSubscription {
  /** Shared with the other subscribers (the published batch) until `owned`: copied before a push. */
  queue: readonly HubEvent[] = NOTHING;
  owned = false;
  bytes = 0;
  closed = false;

  constructor(
    private readonly detach: (sub: Subscriber) => void,
    readonly sink: HubSink,
  ) {}

  take(): readonly HubEvent[] {
    const events = this.queue;
    this.queue = NOTHING;
    this.owned = false;
    this.bytes = 0;
    return events;
  }

  /** Adds a published batch: shared as is when nothing waits (the fan-out's case), else appended to an own copy. */
  enqueue(events: readonly HubEvent[], bytes: number): void {
    if (this.queue.length === 0) {
      this.queue = events;
      this.owned = false;
    } else {
      const own = this.owned ? (this.queue as HubEvent[]) : this.queue.slice();
      for (const event of events) own.push(event);
      this.queue = own;
      this.owned = true;
    }
    this.bytes += bytes;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = NOTHING;
    this.owned = false;
    this.bytes = 0;
    this.detach(this);
  }
}

export function createA2uiHub(options: HubOptions = {}): A2uiHub {
  const limits: HubLimits = { ...DEFAULT_HUB_LIMITS, ...options.limits };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`hub limit ${key} must be a positive integer`);
  }

  const channels = new Map<string, Channel>();
  /** Channels without subscribers, least recently used first. */
  const idle = new Map<string, Channel>();
  const owner = new WeakMap<Subscriber, string>();
  let closed = false;

  function channel(cid: string): Channel {
    const ch = channels.get(cid);
    if (ch === undefined) throw new Error(`A2UI hub: conversation ${cid} was not opened`);
    if (ch.subscribers.size === 0) markIdle(cid, ch);
    return ch;
  }

  function markIdle(cid: string, ch: Channel): void {
    idle.delete(cid);
    idle.set(cid, ch);
    while (idle.size > limits.idleChannels) {
      const oldest = idle.keys().next().value as string;
      idle.delete(oldest);
      channels.delete(oldest);
    }
  }

  function bufferLength(ch: Channel): number {
    return ch.buffer.length - ch.head;
  }

  function trimBuffer(ch: Channel): void {
    while (bufferLength(ch) > 0 && (bufferLength(ch) > limits.bufferMessages || ch.bufferBytes > limits.bufferBytes)) {
      const dropped = ch.buffer[ch.head]!;
      ch.bufferBytes -= dropped.bytes;
      // Part of that version is gone: only the versions after it are still whole.
      ch.coveredAfter = Math.max(ch.coveredAfter, dropped.version);
      ch.head += 1;
    }
    if (ch.head > 64 && ch.head * 2 > ch.buffer.length) {
      ch.buffer = ch.buffer.slice(ch.head);
      ch.head = 0;
    }
  }

  function rememberSurface(ch: Channel, surfaceId: string): void {
    ch.knownSurfaces.delete(surfaceId);
    ch.knownSurfaces.add(surfaceId);
    if (ch.knownSurfaces.size > limits.knownSurfaces) {
      ch.knownSurfaces.delete(ch.knownSurfaces.values().next().value as string);
    }
  }

  function detach(sub: Subscriber): void {
    const cid = owner.get(sub);
    if (cid === undefined) return;
    owner.delete(sub);
    const ch = channels.get(cid);
    if (ch === undefined || !ch.subscribers.delete(sub)) return;
    if (ch.subscribers.size === 0) markIdle(cid, ch);
  }

  function drop(sub: Subscriber, reason: DropReason): void {
    sub.close();
    sub.sink.dropped(reason);
  }

  function offer(sub: Subscriber, events: readonly HubEvent[], bytes: number): void {
    const overflows = sub.queue.length + events.length > limits.queueMessages || sub.bytes + bytes > limits.queueBytes;
    if (overflows && sub.queue.length > 0) {
      drop(sub, 'slow');
      return;
    }
    sub.enqueue(events, bytes);
    sub.sink.notify();
  }

  function channelStats(ch: Channel): HubStats {
    let queuedMessages = 0;
    let queuedBytes = 0;
    for (const sub of ch.subscribers) {
      queuedMessages += sub.queue.length;
      queuedBytes += sub.bytes;
    }
    return {
      channels: 1, subscribers: ch.subscribers.size,
      bufferedMessages: bufferLength(ch), bufferedBytes: ch.bufferBytes,
      queuedMessages, queuedBytes, knownSurfaces: ch.knownSurfaces.size,
    };
  }

  function forgetChannel(cid: string): void {
    const ch = channels.get(cid);
    if (ch === undefined) return;
    for (const sub of [...ch.subscribers]) drop(sub, 'forgotten');
    channels.delete(cid);
    idle.delete(cid);
  }

  /** Where a client that holds everything up to `lastEventId` resumes in the buffer; undefined: it cannot. */
  function resumeFrom(ch: Channel, position: EventPosition): number | undefined {
    if (position.version > ch.version) return undefined;
    if (position.index === undefined) {
      if (position.version === ch.version) return ch.buffer.length;
      if (position.version < ch.coveredAfter) return undefined;
      let i = ch.head;
      while (i < ch.buffer.length && ch.buffer[i]!.version <= position.version) i += 1;
      return i;
    }
    // Inside a version's messages: only where this buffer holds that very message (and its whole version).
    if (position.version <= ch.coveredAfter) return undefined;
    for (let i = ch.head; i < ch.buffer.length; i += 1) {
      const event = ch.buffer[i]!;
      if (event.version === position.version && event.index === position.index) return i + 1;
      if (event.version > position.version) break;
    }
    return undefined;
  }

  function classify(ch: Channel, lastEventId: string | undefined):
    { resume: number } | { reason: InitReason; since?: number } {
    if (lastEventId === undefined || lastEventId === '') return { reason: 'fresh' };
    const position = parseEventId(lastEventId);
    if (position === undefined) return { reason: 'malformed' };
    if (position.stream !== ch.stream) return { reason: 'other-stream' };
    if (position.version > ch.version) return { reason: 'ahead' };
    const from = resumeFrom(ch, position);
    if (from !== undefined) return { resume: from };
    return position.index === undefined ? { reason: 'gap', since: position.version } : { reason: 'gap' };
  }

  return {
    open(cid, stream, version) {
      const existing = channels.get(cid);
      if (existing !== undefined && existing.stream === stream) {
        // Versions it did not see (it was not following): the buffer does not cover them.
        if (version > existing.version) Object.assign(existing, { version, coveredAfter: version, sent: version });
        return;
      }
      if (existing !== undefined) forgetChannel(cid);
      const ch: Channel = {
        stream, version, sent: version, coveredAfter: version, buffer: [], head: 0, bufferBytes: 0,
        subscribers: new Set(), knownSurfaces: new Set(),
      };
      channels.set(cid, ch);
      markIdle(cid, ch);
    },

    publish(cid, version, messages, lines) {
      if (closed) return;
      if (lines !== undefined && lines.length !== messages.length) throw new RangeError('one serialised line per message');
      const ch = channel(cid);
      if (version <= ch.version) return; // already sent
      const serialised = messages.map((message, i) => {
        const data = lines?.[i] ?? JSON.stringify(message);
        if (typeof data !== 'string') throw new TypeError('A2UI message is not JSON-serialisable');
        return { data, bytes: Buffer.byteLength(data), surfaceId: surfaceIdOf(message) };
      });
      ch.version = version;
      if (serialised.length === 0) return;
      ch.sent = version;
      let batchBytes = 0;
      const last = serialised.length - 1;
      const events = serialised.map(({ data, bytes, surfaceId }, index): HubEvent => {
        batchBytes += bytes;
        if (surfaceId !== undefined) rememberSurface(ch, surfaceId);
        return { id: formatEventId(ch.stream, version, index === last ? undefined : index), version, index, data, bytes };
      });
      // Every subscriber's queue may be this very array (Subscriber.enqueue): frozen, never changed.
      Object.freeze(events);
      ch.buffer.push(...events);
      ch.bufferBytes += batchBytes;
      trimBuffer(ch);
      for (const sub of ch.subscribers) offer(sub, events, batchBytes);
    },

    subscribe(cid, lastEventId, sink) {
      if (closed) throw new HubClosedError();
      const ch = channel(cid);
      const sub = new Subscriber(detach, sink);
      owner.set(sub, cid);
      ch.subscribers.add(sub);
      idle.delete(cid);
      const verdict = classify(ch, lastEventId);
      if ('resume' in verdict) return { mode: 'resume', missed: ch.buffer.slice(verdict.resume), subscription: sub };
      return {
        mode: 'init', reason: verdict.reason, stream: ch.stream, version: ch.sent,
        ...(verdict.since !== undefined ? { since: verdict.since } : {}),
        knownSurfaceIds: [...ch.knownSurfaces], subscription: sub,
      };
    },

    needsCatchUp(cid, lastEventId) {
      const ch = channels.get(cid);
      return ch === undefined || !('resume' in classify(ch, lastEventId));
    },

    checkpoint(cid) {
      const ch = channel(cid);
      return { stream: ch.stream, version: ch.sent, id: formatEventId(ch.stream, ch.sent), published: ch.version };
    },

    subscriberCount(cid) {
      return channels.get(cid)?.subscribers.size ?? 0;
    },

    stats(cid) {
      if (cid !== undefined) {
        const ch = channels.get(cid);
        return ch === undefined
          ? { channels: 0, subscribers: 0, bufferedMessages: 0, bufferedBytes: 0, queuedMessages: 0, queuedBytes: 0, knownSurfaces: 0 }
          : channelStats(ch);
      }
      const total: HubStats = { channels: 0, subscribers: 0, bufferedMessages: 0, bufferedBytes: 0, queuedMessages: 0, queuedBytes: 0, knownSurfaces: 0 };
      for (const ch of channels.values()) {
        const s = channelStats(ch);
        for (const key of Object.keys(total) as (keyof HubStats)[]) total[key] += s[key];
      }
      return total;
    },

    forget: forgetChannel,

    close() {
      if (closed) return;
      closed = true;
      for (const ch of channels.values()) {
        for (const sub of [...ch.subscribers]) drop(sub, 'shutdown');
      }
    },
  };
}
