import { SseParser, type SseEvent } from '../../support/sse-client.ts';

/**
 * An SSE client whose connection is cut after a chosen number of bytes (anywhere: inside an
 * event, inside a UTF-8 sequence, inside an init) and that reconnects with Last-Event-ID, as
 * EventSource does. Only complete events are dispatched (an event cut before its blank line is
 * lost, per the SSE spec), and every dispatched event goes to `onEvent`, in order, across
 * connections.
 */
export interface CutSession {
  /** Events dispatched on this connection. */
  events: SseEvent[];
  /** True when the budget ran out (we cut); false when stopped or the server ended the stream. */
  cut: boolean;
}

export interface CutClient {
  /** The last event id received (sent as Last-Event-ID on the next connection). */
  readonly lastEventId: string;
  /**
   * One connection: reads until `budget` bytes arrived (then cuts), the server ends it, or
   * `stop()` is called.
   */
  session(budget: number): Promise<CutSession>;
  /** Ends the current session (if any) without counting it as a cut. */
  stop(): void;
}

export function createCutClient(url: string, headers: Record<string, string>, onEvent: (event: SseEvent) => void): CutClient {
  let lastEventId = '';
  let current: AbortController | undefined;
  let stopped = false;
  return {
    get lastEventId() {
      return lastEventId;
    },
    async session(budget) {
      stopped = false;
      const controller = new AbortController();
      current = controller;
      const events: SseEvent[] = [];
      const parser = new SseParser({
        onEvent: (event) => {
          lastEventId = event.lastEventId;
          events.push(event);
          onEvent(event);
        },
      });
      parser.lastEventId = lastEventId;
      let cut = false;
      try {
        const response = await fetch(url, {
          headers: { Accept: 'text/event-stream', ...headers, ...(lastEventId !== '' ? { 'Last-Event-ID': lastEventId } : {}) },
          signal: controller.signal,
        });
        if (response.status !== 200 || response.body === null) throw new Error(`stream answered ${response.status}`);
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let used = 0;
        while (!stopped) {
          const { done, value } = await reader.read();
          if (done) break;
          if (used + value.byteLength >= budget) {
            parser.feed(decoder.decode(value.subarray(0, budget - used), { stream: true }));
            lastEventId = parser.lastEventId;
            cut = true;
            break;
          }
          used += value.byteLength;
          parser.feed(decoder.decode(value, { stream: true }));
          // An id-only event (empty init) moves the id without dispatching anything.
          lastEventId = parser.lastEventId;
        }
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      } finally {
        controller.abort();
        if (current === controller) current = undefined;
      }
      return { events, cut };
    },
    stop() {
      stopped = true;
      current?.abort();
    },
  };
}

/** mulberry32: a small seeded PRNG, so a failing run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
