/*
 * A small Server-Sent Events client for tests: a spec-following parser (WHATWG HTML §9.2.6:
 * CR/LF/CRLF line ends, BOM, comments, `data` joining, id-only events that set the last event
 * id without dispatching) and a fetch-based reader with awaitable events.
 */

export interface SseEvent {
  /** `message` unless an `event:` field named it. */
  type: string;
  data: string;
  /** The stream's last event id when this event was dispatched (as EventSource reports it). */
  lastEventId: string;
}

export interface SseParserHandlers {
  onEvent(event: SseEvent): void;
  onComment?(text: string): void;
  onRetry?(ms: number): void;
}

export class SseParser {
  lastEventId = '';
  private pending = '';
  private sawFirstChunk = false;
  private data: string[] = [];
  private type = '';
  private idBuffer: string | undefined;

  constructor(private readonly handlers: SseParserHandlers) {}

  feed(chunk: string): void {
    let text = this.pending + chunk;
    if (!this.sawFirstChunk && text.length > 0) {
      this.sawFirstChunk = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    let start = 0;
    for (let i = 0; i < text.length; i += 1) {
      const ch = text[i];
      if (ch !== '\n' && ch !== '\r') continue;
      // A CR at the very end may be the first half of a CRLF: wait for more input.
      if (ch === '\r' && i === text.length - 1) break;
      this.line(text.slice(start, i));
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      start = i + 1;
    }
    this.pending = text.slice(start);
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) {
      this.handlers.onComment?.(line.slice(1).replace(/^ /, ''));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.type = value;
    else if (field === 'id' && !value.includes('\0')) this.idBuffer = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.handlers.onRetry?.(Number(value));
  }

  private dispatch(): void {
    if (this.idBuffer !== undefined) this.lastEventId = this.idBuffer;
    const data = this.data;
    const type = this.type;
    this.data = [];
    this.type = '';
    if (data.length === 0) return;
    this.handlers.onEvent({ type: type === '' ? 'message' : type, data: data.join('\n'), lastEventId: this.lastEventId });
  }
}

export interface SseConnection {
  readonly response: Response;
  readonly parser: SseParser;
  /** Every event so far, in order. */
  readonly events: SseEvent[];
  /** performance.now() when each of `events` was parsed (benches stop their clocks there). */
  readonly arrivals: number[];
  readonly comments: string[];
  readonly retries: number[];
  /** Resolves with the next event not yet returned by next(); rejects on timeout or end. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Reads `count` events. */
  take(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves once `predicate` holds for the comments seen. */
  waitForComments(predicate: (comments: string[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

/** The server sent no answer (not even its headers) to a stream request within the time given. */
export class SseNoAnswerError extends Error {
  override name = 'SseNoAnswerError';
}

/** `answerWithinMs`: give up (SseNoAnswerError) when no response has begun by then; a renderer would wait forever. */
export async function openSse(url: string, init: { headers?: Record<string, string>; answerWithinMs?: number } = {}): Promise<SseConnection> {
  const controller = new AbortController();
  let noAnswer: NodeJS.Timeout | undefined;
  if (init.answerWithinMs !== undefined) noAnswer = setTimeout(() => controller.abort(new SseNoAnswerError(`no answer to GET ${url} within ${init.answerWithinMs} ms`)), init.answerWithinMs);
  const response = await fetch(url, { headers: { Accept: 'text/event-stream', ...init.headers }, signal: controller.signal })
    .finally(() => clearTimeout(noAnswer));
  const events: SseEvent[] = [];
  const arrivals: number[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  let cursor = 0;
  let done = false;
  let wakers: (() => void)[] = [];
  const wakeAll = (): void => {
    const w = wakers;
    wakers = [];
    for (const f of w) f();
  };
  const parser = new SseParser({
    onEvent: (e) => { events.push(e); arrivals.push(performance.now()); wakeAll(); },
    onComment: (t) => { comments.push(t); wakeAll(); },
    onRetry: (ms) => { retries.push(ms); },
  });

  const ended = (async () => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done: finished, value } = await reader.read();
        if (finished) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      wakeAll();
    }
  })();

  const waitUntil = (ready: () => boolean, timeoutMs: number, what: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (ready()) {
          clearTimeout(timer);
          resolve();
        } else if (done) {
          clearTimeout(timer);
          reject(new Error(`SSE stream ended while waiting for ${what}`));
        } else {
          wakers.push(check);
        }
      };
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
      check();
    });

  const connection: SseConnection = {
    response, parser, events, arrivals, comments, retries, ended,
    async next(timeoutMs = 5_000) {
      await waitUntil(() => cursor < events.length, timeoutMs, 'an event');
      return events[cursor++]!;
    },
    async take(count, timeoutMs = 5_000) {
      const out: SseEvent[] = [];
      for (let i = 0; i < count; i += 1) out.push(await connection.next(timeoutMs));
      return out;
    },
    waitForComments(predicate, timeoutMs = 5_000) {
      return waitUntil(() => predicate(comments), timeoutMs, 'comments');
    },
    close() {
      controller.abort();
    },
  };
  return connection;
}
