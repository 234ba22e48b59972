import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeSink, SharedFrame, type NodeSinkOptions, type SseSink } from '../../src/hosting/index.ts';

/*
 * nodeSink over real HTTP: shared frames go straight to the socket, pre-framed as HTTP chunks,
 * between writes the response frames itself. Whatever the mix, the client must read one valid
 * response (checked byte for byte on a raw socket, and by fetch's own decoder).
 */

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server whose one route hands its response to `drive` as a nodeSink. */
async function serve(drive: (sink: SseSink, res: http.ServerResponse) => void | Promise<void>, options?: NodeSinkOptions): Promise<number> {
  server = http.createServer((_req, res) => { void drive(nodeSink(res, options), res); });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** Sends `request` on a raw socket; resolves with every byte the server sent until it closed or `until` matched. */
function raw(port: number, request: string, until?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (until !== undefined && text.endsWith(until)) { socket.destroy(); resolve(text); }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

/** Decodes a chunked body strictly: every chunk's length must match, and the last chunk must end it. */
function dechunk(body: string): { chunks: string[]; ended: boolean } {
  const chunks: string[] = [];
  let at = 0;
  while (at < body.length) {
    const eol = body.indexOf('\r\n', at);
    expect(eol).toBeGreaterThan(at);
    const size = Number.parseInt(body.slice(at, eol), 16);
    expect(body.slice(at, eol)).toMatch(/^[0-9a-f]+$/);
    if (size === 0) {
      expect(body.slice(eol)).toBe('\r\n\r\n');
      return { chunks, ended: true };
    }
    chunks.push(body.slice(eol + 2, eol + 2 + size));
    expect(body.slice(eol + 2 + size, eol + 4 + size)).toBe('\r\n');
    at = eol + 4 + size;
  }
  return { chunks, ended: false };
}

const frame = (text: string): SharedFrame => SharedFrame.of(text);

/** Mixed writes: own text, one shared frame alone, a batch of both, an empty frame (must not end the body). */
function mixed(sink: SseSink): void {
  sink.write(['retry: 5\n\n']);
  sink.write([frame('data: one\n\n')]);
  sink.write(['data: two\n\n', frame('data: three é\n\n'), frame(''), frame('data: four\n\n')]);
  sink.write([frame('')]);
  sink.write([frame(': ping\n\n')]);
  sink.end();
}
const MIXED = 'retry: 5\n\ndata: one\n\ndata: two\n\ndata: three é\n\ndata: four\n\n: ping\n\n';

describe('nodeSink', () => {
  for (const socketWrites of [true, false]) {
    it(`socketWrites ${socketWrites}: one valid chunked response, bytes in order, ended by the last chunk`, async () => {
      let responseWrites = 0;
      const port = await serve((sink, res) => {
        const write = res.write.bind(res) as (chunk: unknown) => boolean;
        res.write = ((chunk: unknown) => { responseWrites += 1; return write(chunk); }) as typeof res.write;
        mixed(sink);
      }, { socketWrites });
      const text = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', '0\r\n\r\n');
      const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
      expect(head).toMatch(/^HTTP\/1\.1 200/);
      expect(head.toLowerCase()).toContain('transfer-encoding: chunked');
      expect(head.toLowerCase()).toContain('content-type: text/event-stream');
      const { chunks, ended } = dechunk(body);
      expect(ended).toBe(true);
      expect(Buffer.from(chunks.join(''), 'latin1').toString('utf8')).toBe(MIXED);
      // Only the connection's own text went through the response; the four shared frames went to the socket.
      expect(responseWrites).toBe(socketWrites ? 2 : 6);
      // fetch's decoder agrees.
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(await res.text()).toBe(MIXED);
    });
  }

  it('an HTTP/1.0 client gets the bytes unframed, the body ending with the connection', async () => {
    const port = await serve(mixed);
    const text = await raw(port, 'GET / HTTP/1.0\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text.toLowerCase()).not.toContain('transfer-encoding');
    expect(Buffer.from(text.slice(text.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8')).toBe(MIXED);
  });

  it('HEAD: headers only, no frame reaches the socket', async () => {
    const port = await serve(mixed);
    const text = await raw(port, 'HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text.endsWith('\r\n\r\n')).toBe(true);
    expect(text).not.toContain('data:');
  });

  it('back-pressure: a client that stops reading gets a pending write, which resolves once it reads again; nothing is lost', async () => {
    const big = frame(`data: ${'x'.repeat(64 * 1024)}\n\n`);
    let refusedAfter = -1;
    let resumed = false;
    const port = await serve(async (sink) => {
      sink.write(['retry: 5\n\n']);
      for (let i = 0; i < 1000; i += 1) {
        const pending = sink.write([big]);
        if (pending !== undefined) {
          refusedAfter = i;
          await pending;
          resumed = true;
          break;
        }
      }
      sink.write([frame('data: end\n\n')]);
      sink.end();
    });
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.pause();
    // Not reading: the kernel buffers fill and the socket refuses more.
    const deadline = Date.now() + 10_000;
    while (refusedAfter < 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(refusedAfter).toBeGreaterThanOrEqual(0);
    expect(resumed).toBe(false);
    let text = '';
    const done = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.endsWith('0\r\n\r\n')) resolve();
      });
    });
    socket.resume();
    await done;
    socket.destroy();
    expect(resumed).toBe(true);
    const { chunks, ended } = dechunk(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(ended).toBe(true);
    expect(chunks.join('')).toBe(`retry: 5\n\n${big.bytes.toString('latin1').repeat(refusedAfter + 1)}data: end\n\n`);
  });
});
