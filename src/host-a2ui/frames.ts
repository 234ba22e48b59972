import { SharedFrame, sseFrame, type SseChunk } from '../hosting/index.ts';
import type { HubEvent } from './hub.ts';

/*
 * SSE bytes of published events, built once per batch and shared by every connection of the
 * conversation. The hub hands each subscriber the very array it published when nothing else
 * was waiting (the fan-out's common case), so that array is the key: the first connection to
 * take it frames the whole batch as one SharedFrame, the other 9,999 find it.
 */

const NONE: readonly SseChunk[] = Object.freeze([]);
const batches = new WeakMap<readonly HubEvent[], readonly SseChunk[]>();

/** What a connection writes for `events` (one `take()`): one shared frame holding them all, in order. */
export function framesOf(events: readonly HubEvent[]): readonly SseChunk[] {
  if (events.length === 0) return NONE;
  let frames = batches.get(events);
  if (frames === undefined) {
    let text = '';
    for (const event of events) text += sseFrame({ id: event.id, data: event.data });
    frames = Object.freeze([SharedFrame.of(text)]);
    batches.set(events, frames);
  }
  return frames;
}
