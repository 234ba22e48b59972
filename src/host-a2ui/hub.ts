import { randomBytes } from 'node:crypto';
import { formatEventId, parseEventId } from './event-id.ts';
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
  readonly seq: number;
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
  /** Everything queued since the last call, oldest first; whole batches only. */
  take(): HubEvent[];
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
      /** Checkpoint of the init: the snapshot the caller sends reflects at least `seq`. */
      readonly stream: string;
      readonly seq: number;
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
   * Appends a batch atomically (all serialised first; a throw changes nothing). `lines`, when
   * given, are the messages already serialised (the compiler's batch lines), one per message.
   */
  publish(cid: string, messages: readonly A2uiServerMessage[], lines?: readonly string[]): { firstSeq: number; lastSeq: number } | undefined;
  /** `lastEventId`: the client's Last-Event-ID, if any. Throws HubClosedError after close(). */
  subscribe(cid: string, lastEventId: string | undefined, sink: HubSink): SubscribeResult;
  /** Where the stream of `cid` stands now (for snapshot readers that want to resume later). */
  checkpoint(cid: string): { stream: string; seq: number; id: string };
  subscriberCount(cid: string): number;
  stats(cid?: string): HubStats;
  /** Drops a conversation: its subscribers ('forgotten'), buffer and sequence. */
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
  /** Names this hub's streams in event ids ([a-z0-9], ≤ 24); random by default. */
  epoch?: string;
}

interface Channel {
  readonly stream: string;
  seq: number;
  /** Consecutive seqs from `buffer[head]`; compacted lazily. */
  buffer: HubEvent[];
  head: number;
  bufferBytes: number;
  readonly subscribers: Set<Subscriber>;
  /** Insertion order = recency. */
  readonly knownSurfaces: Set<string>;
}

class Subscriber implements HubSubscription {
  queue: HubEvent[] = [];
  bytes = 0;
  closed = false;

  constructor(
    private readonly detach: (sub: Subscriber) => void,
    readonly sink: HubSink,
  ) {}

  take(): HubEvent[] {
    const events = this.queue;
    this.queue = [];
    this.bytes = 0;
    return events;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.bytes = 0;
    this.detach(this);
  }
}

export function createA2uiHub(options: HubOptions = {}): A2uiHub {
  const limits: HubLimits = { ...DEFAULT_HUB_LIMITS, ...options.limits };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`hub limit ${key} must be a positive integer`);
  }
  const epoch = options.epoch ?? randomBytes(4).toString('hex');
  if (!/^[a-z0-9]{1,24}$/.test(epoch)) throw new RangeError('hub epoch must match [a-z0-9]{1,24}');

  const channels = new Map<string, Channel>();
  /** Channels without subscribers, least recently used first. */
  const idle = new Map<string, Channel>();
  const owner = new WeakMap<Subscriber, string>();
  let channelCounter = 0;
  let closed = false;

  function channel(cid: string): Channel {
    let ch = channels.get(cid);
    if (ch === undefined) {
      channelCounter += 1;
      ch = {
        stream: `${epoch}c${channelCounter.toString(36)}`,
        seq: 0, buffer: [], head: 0, bufferBytes: 0,
        subscribers: new Set(), knownSurfaces: new Set(),
      };
      channels.set(cid, ch);
    }
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
      ch.bufferBytes -= ch.buffer[ch.head]!.bytes;
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
    sub.queue.push(...events);
    sub.bytes += bytes;
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

  return {
    publish(cid, messages, lines) {
      if (closed || messages.length === 0) return undefined;
      if (lines !== undefined && lines.length !== messages.length) throw new RangeError('one serialised line per message');
      const serialised = messages.map((message, i) => {
        const data = lines?.[i] ?? JSON.stringify(message);
        if (typeof data !== 'string') throw new TypeError('A2UI message is not JSON-serialisable');
        return { data, bytes: Buffer.byteLength(data), surfaceId: surfaceIdOf(message) };
      });
      const ch = channel(cid);
      const firstSeq = ch.seq + 1;
      let batchBytes = 0;
      const events = serialised.map(({ data, bytes, surfaceId }) => {
        ch.seq += 1;
        batchBytes += bytes;
        if (surfaceId !== undefined) rememberSurface(ch, surfaceId);
        return { id: formatEventId(ch.stream, ch.seq), seq: ch.seq, data, bytes };
      });
      ch.buffer.push(...events);
      ch.bufferBytes += batchBytes;
      trimBuffer(ch);
      for (const sub of ch.subscribers) offer(sub, events, batchBytes);
      return { firstSeq, lastSeq: ch.seq };
    },

    subscribe(cid, lastEventId, sink) {
      if (closed) throw new HubClosedError();
      const ch = channel(cid);
      const sub = new Subscriber(detach, sink);
      owner.set(sub, cid);
      ch.subscribers.add(sub);
      idle.delete(cid);

      const init = (reason: InitReason): SubscribeResult => ({
        mode: 'init', reason, stream: ch.stream, seq: ch.seq,
        knownSurfaceIds: [...ch.knownSurfaces], subscription: sub,
      });
      if (lastEventId === undefined || lastEventId === '') return init('fresh');
      const parsed = parseEventId(lastEventId);
      if (parsed === undefined) return init('malformed');
      if (parsed.stream !== ch.stream) return init('other-stream');
      if (parsed.seq > ch.seq) return init('ahead');
      const firstSeq = ch.seq - bufferLength(ch) + 1;
      if (parsed.seq < firstSeq - 1) return init('gap');
      const from = ch.head + (parsed.seq + 1 - firstSeq);
      return { mode: 'resume', missed: ch.buffer.slice(from), subscription: sub };
    },

    checkpoint(cid) {
      const ch = channel(cid);
      return { stream: ch.stream, seq: ch.seq, id: formatEventId(ch.stream, ch.seq) };
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

    forget(cid) {
      const ch = channels.get(cid);
      if (ch === undefined) return;
      for (const sub of [...ch.subscribers]) drop(sub, 'forgotten');
      channels.delete(cid);
      idle.delete(cid);
    },

    close() {
      if (closed) return;
      closed = true;
      for (const ch of channels.values()) {
        for (const sub of [...ch.subscribers]) drop(sub, 'shutdown');
      }
    },
  };
}
