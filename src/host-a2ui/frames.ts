import { SharedFrame, sseFrame, type SseChunk } from '../hosting/index.ts';
import type { HubEvent } from './hub.ts';

/*
 * SSE bytes of published events, built once and shared by every connection of the
 * conversation. The hub hands each subscriber the very array it published when nothing else
 * was waiting (the fan-out's common case), so that array is the key: the first connection to
 * take it frames the whole batch as one SharedFrame, the other 9,999 find it.
 *
 * When several batches were queued before a take (published in one event-loop turn, or behind
 * a slow write), each subscriber holds its own copy. A queue is always a contiguous run of the
 * conversation's events, so its first and last event name its contents: connections drained in
 * the same turn with the same run share one frame through a cache that lives for that turn only
 * (it must not keep a slow client's large backlog alive).
 */

const NONE: readonly SseChunk[] = Object.freeze([]);
const batches = new WeakMap<readonly HubEvent[], readonly SseChunk[]>();
let runs: Map<HubEvent, Map<HubEvent, readonly SseChunk[]>> | undefined;

function frame(events: readonly HubEvent[]): readonly SseChunk[] {
  let text = '';
  for (const event of events) text += sseFrame({ id: event.id, data: event.data });
  return Object.freeze([SharedFrame.of(text)]);
}

function runCache(): Map<HubEvent, Map<HubEvent, readonly SseChunk[]>> {
  if (runs === undefined) {
    runs = new Map();
    setImmediate(() => { runs = undefined; });
  }
  return runs;
}

/** What a connection writes for `events` (one `take()`): one shared frame holding them all, in order. */
export function framesOf(events: readonly HubEvent[]): readonly SseChunk[] {
  if (events.length === 0) return NONE;
  let frames = batches.get(events);
  if (frames !== undefined) return frames;
  if (Object.isFrozen(events)) {
    // A batch as published (frozen by the hub), shared by every subscriber that takes it.
    frames = frame(events);
    batches.set(events, frames);
    return frames;
  }
  const cache = runCache();
  const first = events[0]!;
  const last = events[events.length - 1]!;
  let byLast = cache.get(first);
  if (byLast === undefined) cache.set(first, (byLast = new Map()));
  frames = byLast.get(last);
  if (frames === undefined) byLast.set(last, (frames = frame(events)));
  return frames;
}
