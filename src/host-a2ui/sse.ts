import {
  openPushConnection, SSE_SHUTDOWN_FAREWELL, sseFrame, type DrainBatcher, type Heartbeat, type PushConnection, type SseSink,
} from '../hosting/index.ts';
import { formatEventId, formatInitEventId } from './event-id.ts';
import type { A2uiFeed } from './feed.ts';
import { framesOf } from './frames.ts';
import { HubClosedError, type DropReason, type HubEvent, type SubscribeResult } from './hub.ts';
import { initMessages, type A2uiServerMessage } from './messages.ts';

/*
 * The SSE side of one A2UI stream, written for fan-out to thousands of connections: every
 * published batch is framed and UTF-8 encoded once (frames.ts, shared by all connections), and
 * the connection (src/hosting/sse.ts: sink, shared heartbeat) is driven by the hub's notify callback.
 */

export interface ConnectionParams {
  /** The client's wire version: its hub, snapshot, catch-up (synchronous with the subscription, see A2uiFeed). */
  feed: A2uiFeed;
  cid: string;
  lastEventId: string | undefined;
  retryMs: number;
  heartbeat: Heartbeat;
  /** Where the hub's notifications go: drained once per event-loop turn, after the publisher's. */
  drains: DrainBatcher;
  /** The hub dropped this subscriber (metrics: a client that fell behind). */
  dropped?(reason: DropReason): void;
}

/**
 * One SSE connection: init or resume, then every published batch, pings when idle. Ends when
 * the client goes away or the hub drops the subscriber (slow, forgotten, shutdown) — the client
 * then reconnects with Last-Event-ID and is resumed or re-initialised. Resolves when over.
 * Throws (before writing anything) if the snapshot fails.
 */
export function runConnection(sink: SseSink, p: ConnectionParams): Promise<void> {
  let connection: PushConnection | undefined;
  let droppedEarly = false;
  let result: SubscribeResult;
  const { feed } = p;
  try {
    feed.open?.(p.cid);
    result = feed.hub.subscribe(p.cid, p.lastEventId, {
      notify: () => { if (connection !== undefined) p.drains.schedule(connection); },
      dropped: (reason) => {
        p.dropped?.(reason);
        if (connection) connection.end(reason === 'shutdown' ? SSE_SHUTDOWN_FAREWELL : undefined);
        else droppedEarly = true;
      },
    });
  } catch (error) {
    if (error instanceof HubClosedError) {
      sink.end();
      return Promise.resolve();
    }
    throw error;
  }
  const { subscription } = result;
  let head = `retry: ${p.retryMs}\n\n`;
  if (result.mode === 'init') {
    let init: readonly A2uiServerMessage[];
    try {
      // A client that holds a whole older version gets what changed since; anyone else a full init.
      const catchUp = result.since === undefined ? undefined : feed.catchUp?.(p.cid, result.since);
      if (catchUp !== undefined) {
        init = catchUp;
      } else {
        const known = feed.surfaceIds === undefined ? result.knownSurfaceIds : [...result.knownSurfaceIds, ...feed.surfaceIds(p.cid)];
        init = initMessages(feed.snapshot(p.cid), known, feed.deleteSurface);
      }
    } catch (error) {
      subscription.close();
      throw error;
    }
    for (let i = 0; i < init.length; i += 1) {
      // Only the last message carries the checkpoint: a client cut off inside the init holds
      // a provisional id and is re-initialised, never resumed from a half-applied state.
      const id = i === init.length - 1 ? formatEventId(result.stream, result.version) : formatInitEventId(result.stream, result.version, i);
      head += sseFrame({ id, data: serialise(init[i]!) });
    }
    // An id-only event sets the client's last event id without dispatching anything.
    if (init.length === 0) head += `id: ${formatEventId(result.stream, result.version)}\n\n`;
  } else {
    for (const event of result.missed) head += sseFrame({ id: event.id, data: event.data });
  }
  connection = openPushConnection(sink, p.heartbeat, {
    head, pull: () => framesOf(subscription.take()), onEnd: () => subscription.close(),
  });
  if (droppedEarly) connection.end();
  return connection.finished;
}

/**
 * Snapshot messages are shared by every stream initialised from the same IR (the bridge caches
 * them): serialise each once. (Published events are framed once per batch: frames.ts.)
 */
const serialised = new WeakMap<object, string>();
export function serialise(message: A2uiServerMessage): string {
  let text = serialised.get(message);
  if (text === undefined) {
    text = JSON.stringify(message);
    serialised.set(message, text);
  }
  return text;
}
