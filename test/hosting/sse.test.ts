import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDrainBatcher, createHeartbeat, openPushConnection, SharedFrame, sseFrame, type SseSink } from '../../src/hosting/index.ts';

/** A sink whose writes complete when the test says so (a client reading slowly). */
function slowSink() {
  const written: string[] = [];
  const waiting: Array<() => void> = [];
  const closeListeners: Array<() => void> = [];
  let ended = false;
  let aborted = false;
  const sink: SseSink = {
    write(chunks) {
      written.push(chunks.map((c) => (typeof c === 'string' ? c : c instanceof SharedFrame ? c.bytes.toString() : Buffer.from(c).toString())).join(''));
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    end() { ended = true; },
    abort() { aborted = true; },
    onClose(listener) { closeListeners.push(listener); },
    get closed() { return ended || aborted; },
  };
  return {
    sink, written,
    /** Lets the oldest write complete, then the connection's follow-up microtasks run. */
    async complete() { waiting.shift()?.(); await new Promise((r) => setImmediate(r)); },
    clientGone() { for (const l of closeListeners.splice(0)) l(); },
    get ended() { return ended; },
    get aborted() { return aborted; },
  };
}

/** Parses SSE text the way EventSource does (fields per line, blank line ends an event). */
function parseEvents(text: string): Array<{ event?: string; id?: string; data?: string }> {
  return text.split('\n\n').filter((b) => b !== '').map((block) => {
    const out: { event?: string; id?: string; data?: string } = {};
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      const [field, value] = [line.slice(0, colon), line.slice(colon + 2)];
      if (field === 'data') out.data = out.data === undefined ? value : `${out.data}\n${value}`;
      else if (field === 'event' || field === 'id') out[field] = value;
    }
    return out;
  });
}

describe('sseFrame', () => {
  it('property: any event text survives framing (one event, data lines joined back with \\n)', () => {
    const token = fc.string({ unit: fc.constantFrom('a', 'b', '<', '>', ' ', ':', 'é') });
    fc.assert(fc.property(token, fc.array(token, { minLength: 1, maxLength: 5 }), fc.nat(1000), (event, lines, id) => {
      const data = lines.join('\n');
      const framed = sseFrame({ event: `e${event.replace(/[:\s]/g, '')}`, id: String(id), data });
      expect(framed.endsWith('\n\n')).toBe(true);
      expect(framed.slice(0, -2)).not.toContain('\n\n');
      expect(parseEvents(framed)).toEqual([{ event: `e${event.replace(/[:\s]/g, '')}`, id: String(id), data }]);
    }));
  });

  it('turns CR and CRLF into separate data lines too, and an id-only event carries no data', () => {
    expect(sseFrame({ data: 'a\r\nb\rc' })).toBe('data: a\ndata: b\ndata: c\n\n');
    expect(sseFrame({ id: '7' })).toBe('id: 7\n\n');
  });
});

describe('openPushConnection', () => {
  it('keeps one write in flight and sends what queued meanwhile in one batch after it', async () => {
    const s = slowSink();
    const queue: string[] = [];
    const connection = openPushConnection(s.sink, createHeartbeat(60_000), { head: 'retry: 1\n\n', pull: () => queue.splice(0), onEnd: () => {} });
    queue.push('a\n\n');
    connection.drain();
    queue.push('b\n\n');
    connection.drain();
    expect(s.written).toEqual(['retry: 1\n\n']);
    await s.complete();
    expect(s.written).toEqual(['retry: 1\n\n', 'a\n\nb\n\n']);
    await s.complete();
    connection.end();
    expect(s.ended).toBe(true);
  });

  it('ends once when the client goes away: onEnd runs once, a stuck write is cut, finished resolves', async () => {
    const s = slowSink();
    let ends = 0;
    const connection = openPushConnection(s.sink, createHeartbeat(60_000), { head: 'x', pull: () => [], onEnd: () => { ends += 1; } });
    s.clientGone();
    connection.end();
    await connection.finished;
    expect(ends).toBe(1);
    expect(s.aborted).toBe(true);
  });

  it('pings a connection idle for the heartbeat interval, and stops after it ended', async () => {
    const s = slowSink();
    const heartbeat = createHeartbeat(20);
    const connection = openPushConnection(s.sink, heartbeat, { head: 'h', pull: () => [], onEnd: () => {} });
    await s.complete();
    await new Promise((r) => setTimeout(r, 80));
    expect(s.written).toContain(': ping\n\n');
    await s.complete();
    connection.end();
    const count = s.written.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(s.written.length).toBe(count);
    heartbeat.stop();
  });
});

describe('createDrainBatcher', () => {
  it('drains after the current turn, not inside the notifying call: every connection scheduled in one turn, in order, then again next turn', async () => {
    const batcher = createDrainBatcher();
    const drained: string[] = [];
    const connection = (name: string) => ({ drain: () => { drained.push(name); } });
    const [a, b] = [connection('a'), connection('b')];
    batcher.schedule(a);
    batcher.schedule(b);
    batcher.schedule(a);
    expect(drained).toEqual([]);
    await Promise.resolve();
    expect(drained).toEqual([]); // not a microtask: after the publishing request's own continuation
    await new Promise((r) => setImmediate(r));
    expect(drained).toEqual(['a', 'b', 'a']);
    batcher.schedule(b);
    await new Promise((r) => setImmediate(r));
    expect(drained).toEqual(['a', 'b', 'a', 'b']);
  });
});
