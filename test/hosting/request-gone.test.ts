import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CancelSignal } from '../../src/ingress/index.ts';
import { requestGone } from '../../src/hosting/request-gone.ts';

/** What a route saw of its request's cancel: read when the route ends and after the response closed. */
interface Seen { kind: string; abortedAtStart: boolean; fired: number; abortedAfter?: boolean; reason?: unknown }

describe('requestGone', () => {
  const seen: Seen[] = [];
  let release: () => void = () => {};
  const app = new Hono();
  const watch = (signal: CancelSignal, record: Seen): void => {
    signal.addEventListener('abort', () => { record.fired += 1; record.abortedAfter = signal.aborted; record.reason = signal.reason; }, { once: true });
  };
  // Waits until the test releases it (the client may have gone by then).
  app.post('/slow', async (c) => {
    const signal = requestGone(c);
    const record: Seen = { kind: signal instanceof AbortSignal ? 'abort-signal' : 'node-response', abortedAtStart: signal.aborted, fired: 0 };
    seen.push(record);
    watch(signal, record);
    await new Promise<void>((resolve) => { release = resolve; });
    return c.text('late');
  });
  app.post('/quick', (c) => {
    const signal = requestGone(c);
    const record: Seen = { kind: signal instanceof AbortSignal ? 'abort-signal' : 'node-response', abortedAtStart: signal.aborted, fired: 0 };
    seen.push(record);
    watch(signal, record);
    const removed = (): void => { record.fired += 100; };
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    return c.text('ok');
  });
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => { server.close(() => resolve()); }));

  it('fires once, and reads aborted, when the client goes away before its answer', async () => {
    seen.length = 0;
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`);
    await expect.poll(() => seen.length).toBe(1);
    socket.destroy();
    await expect.poll(() => seen[0]!.fired).toBe(1);
    release();
    expect(seen[0]).toMatchObject({ kind: 'node-response', abortedAtStart: false, fired: 1, abortedAfter: true });
    expect(String(seen[0]!.reason)).toContain('prematurely closed');
  });

  it('never fires for a request answered in full, and a removed listener never runs', async () => {
    seen.length = 0;
    const response = await fetch(`http://127.0.0.1:${port}/quick`, { method: 'POST' });
    expect(await response.text()).toBe('ok');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([{ kind: 'node-response', abortedAtStart: false, fired: 0 }]);
  });

  it('is the request\'s own signal without a Node response (app.request)', async () => {
    seen.length = 0;
    const controller = new AbortController();
    const pending = app.request('/slow', { method: 'POST', signal: controller.signal });
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]!.kind).toBe('abort-signal');
    release();
    await pending;
  });
});
