import { Hono } from 'hono';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import {
  createA2uiHub, mountA2uiRoutes, type A2uiHub, type A2uiRouteDeps, type A2uiServerMessage, type HubOptions,
} from '../../src/host-a2ui/index.ts';

/** A form surface as the compiler would emit it: closed surfaceUpdate, data, beginRendering. */
export function formSurface(surfaceId = 'main', title = 'Your details'): A2uiServerMessage[] {
  return [
    {
      surfaceUpdate: {
        surfaceId,
        components: [
          { id: 'form.root', component: { Column: { children: { explicitList: ['form.title', 'form.name', 'form.save'] } } } },
          { id: 'form.title', component: { Text: { text: { path: '/ui/title' }, usageHint: 'h2' } } },
          { id: 'form.name', component: { TextField: { label: { literalString: 'Name' }, text: { path: '/draft/name' } } } },
          { id: 'form.save.label', component: { Text: { text: { literalString: 'Save' } } } },
          {
            id: 'form.save',
            component: {
              Button: {
                child: 'form.save.label',
                primary: true,
                action: {
                  name: 'form.submit',
                  context: [
                    { key: 'name', value: { path: '/draft/name' } },
                    { key: 'nonce', value: { literalString: 'n-1' } },
                    { key: 'flag', value: { literalBoolean: false } },
                    { key: 'zero', value: { literalNumber: 0 } },
                  ],
                },
              },
            },
          },
        ],
      },
    },
    {
      dataModelUpdate: {
        surfaceId,
        contents: [
          { key: 'ui', valueMap: [{ key: 'title', valueString: title }] },
          { key: 'draft', valueMap: [{ key: 'name', valueString: '' }] },
        ],
      },
    },
    { beginRendering: { surfaceId, root: 'form.root' } },
  ];
}

export function noteSurface(surfaceId: string, text: string): A2uiServerMessage[] {
  return [
    { surfaceUpdate: { surfaceId, components: [{ id: 'note.text', component: { Text: { text: { literalString: text } } } }] } },
    { beginRendering: { surfaceId, root: 'note.text' } },
  ];
}

export function titleUpdate(surfaceId: string, title: string): A2uiServerMessage {
  return { dataModelUpdate: { surfaceId, path: '/ui', contents: [{ key: 'title', valueString: title }] } };
}

export interface RecordedPost {
  cid: string;
  body: unknown;
  raw: string;
  idempotencyKey: string | undefined;
}

export interface TestServer {
  url: string;
  hub: A2uiHub;
  /** Publishes `messages` as the next log version of `cid` (as a bridge would). */
  publish(cid: string, messages: readonly A2uiServerMessage[]): void;
  /** Drops `cid`'s channel and starts a new stream name: the next reconnect cannot resume. */
  forget(cid: string): void;
  posts: RecordedPost[];
  snapshotCalls: string[];
  /** Replace what snapshot() returns for every conversation. */
  setSnapshot(messages: A2uiServerMessage[]): void;
  close(): Promise<void>;
}

export interface TestServerOptions extends Partial<Omit<A2uiRouteDeps, 'hub'>> {
  hubOptions?: HubOptions;
  snapshotMessages?: A2uiServerMessage[];
  /** Status the fake ingress answers with, per call (default 202). */
  postStatus?: (post: RecordedPost) => number;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const hub = createA2uiHub(options.hubOptions);
  /** Per conversation: its stream generation and log version, standing in for a bridge's. */
  const logs = new Map<string, { generation: number; version: number }>();
  const open = (cid: string): void => {
    const log = logs.get(cid) ?? { generation: 1, version: 0 };
    logs.set(cid, log);
    hub.open(cid, `test${log.generation}`, log.version);
  };
  const posts: RecordedPost[] = [];
  const snapshotCalls: string[] = [];
  let snapshot = options.snapshotMessages ?? formSurface();
  const app = new Hono();
  const { hubOptions: _h, snapshotMessages: _s, postStatus, ...deps } = options;
  mountA2uiRoutes(app, {
    hub,
    open,
    prepare: open,
    snapshot: (cid) => {
      snapshotCalls.push(cid);
      return snapshot;
    },
    // The real app checks the session cookie or bearer token; here: cid "forbidden" is someone else's.
    authorize: (_c, cid) => cid !== 'forbidden',
    postEvent: async (cid, raw, headers) => {
      const post: RecordedPost = { cid, raw, body: JSON.parse(raw) as unknown, idempotencyKey: headers.idempotencyKey };
      posts.push(post);
      const status = postStatus?.(post) ?? 202;
      if (status === 409) {
        return { status, body: { code: 'A2UI_C2S_SURFACE_STALE', message: 'UI is out of date. Please regenerate.' } };
      }
      return { status, body: { accepted: true } };
    },
    clientAssets: async () => {
      const { a2uiClientAssets } = await import('../../src/host-a2ui/index.ts');
      return a2uiClientAssets();
    },
    heartbeatMs: 60_000,
    onError: () => {},
    ...deps,
  });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hub,
    publish(cid, messages) {
      open(cid);
      const log = logs.get(cid)!;
      log.version += 1;
      hub.publish(cid, log.version, messages);
    },
    forget(cid) {
      hub.forget(cid);
      const log = logs.get(cid);
      if (log) log.generation += 1;
      open(cid);
    },
    posts,
    snapshotCalls,
    setSnapshot(messages) {
      snapshot = messages;
    },
    async close() {
      hub.close();
      const http = server as import('node:http').Server;
      http.closeIdleConnections();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      setTimeout(() => http.closeAllConnections(), 200).unref();
      await closed;
    },
  };
}

/** Polls until `check` is true (for effects that land after a socket closes). */
export async function eventually(check: () => boolean, timeoutMs = 3_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
