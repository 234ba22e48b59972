import { Hono } from 'hono';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { a2uiWire, type A2uiVersion } from '../../src/compiler/index.ts';
import {
  createA2uiHub, mountA2uiRoutes, type A2uiFeed, type A2uiHub, type A2uiRouteDeps, type A2uiServerMessage, type HubOptions,
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
  /** The v0.8 hub. */
  hub: A2uiHub;
  /** The hub of a wire version (each version has its own, with its own stream names). */
  hubOf(version: A2uiVersion): A2uiHub;
  /** Publishes `messages` as the next log version of `cid` (as a bridge would), to the clients of `version` (default v0.8). */
  publish(cid: string, messages: readonly A2uiServerMessage[], version?: A2uiVersion): void;
  /** Drops `cid`'s channel and starts a new stream name: the next reconnect cannot resume. */
  forget(cid: string, version?: A2uiVersion): void;
  posts: RecordedPost[];
  /** Conversations whose snapshot was read (any version). */
  snapshotCalls: string[];
  /** Replace what snapshot() returns for every conversation (of the v0.8 feed, or of `version`'s). */
  setSnapshot(messages: A2uiServerMessage[], version?: A2uiVersion): void;
  close(): Promise<void>;
}

/** Route options, and the v0.8 feed's functions (they replace the fixture's own). */
export interface TestServerOptions extends Partial<Omit<A2uiRouteDeps, 'feed'>>, Partial<Omit<A2uiFeed, 'hub' | 'deleteSurface'>> {
  hubOptions?: HubOptions;
  snapshotMessages?: A2uiServerMessage[];
  /** What the snapshot of a version other than v0.8 returns (default: none, an empty init). */
  snapshotMessagesOf?: (version: A2uiVersion) => A2uiServerMessage[];
  /** Status the fake ingress answers with, per call (default 202). */
  postStatus?: (post: RecordedPost) => number;
}

interface FixtureFeed {
  feed: A2uiFeed;
  hub: A2uiHub;
  open(cid: string): void;
  /** Per conversation: its stream generation and log version, standing in for a bridge's. */
  logs: Map<string, { generation: number; version: number }>;
  snapshot: A2uiServerMessage[];
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const posts: RecordedPost[] = [];
  const snapshotCalls: string[] = [];
  const {
    hubOptions, snapshotMessages, snapshotMessagesOf, postStatus, prepare, open: openOption, catchUp, snapshot: snapshotOption,
    surfaceIds, ...deps
  } = options;
  const feeds = new Map<A2uiVersion, FixtureFeed>();
  const feedOf = (version: A2uiVersion): FixtureFeed => {
    const existing = feeds.get(version);
    if (existing !== undefined) return existing;
    const hub = createA2uiHub(hubOptions);
    const logs = new Map<string, { generation: number; version: number }>();
    const open = (cid: string): void => {
      const log = logs.get(cid) ?? { generation: 1, version: 0 };
      logs.set(cid, log);
      hub.open(cid, `test${log.generation}${version === '0.8' ? '' : `w${version.replaceAll('.', '')}`}`, log.version);
    };
    const made: FixtureFeed = {
      hub, open, logs,
      snapshot: version === '0.8' ? snapshotMessages ?? formSurface() : snapshotMessagesOf?.(version) ?? [],
      feed: {
        hub,
        open,
        prepare: open,
        snapshot: (cid) => {
          snapshotCalls.push(cid);
          return made.snapshot;
        },
        deleteSurface: a2uiWire(version).deleteSurface,
      },
    };
    // The caller's functions replace the fixture's for v0.8 (the version the older tests speak).
    if (version === '0.8') {
      Object.assign(made.feed, {
        ...(prepare ? { prepare } : {}), ...(openOption ? { open: openOption } : {}), ...(catchUp ? { catchUp } : {}),
        ...(snapshotOption ? { snapshot: snapshotOption } : {}), ...(surfaceIds ? { surfaceIds } : {}),
      });
    }
    feeds.set(version, made);
    return made;
  };
  const hub = feedOf('0.8').hub;
  const app = new Hono();
  mountA2uiRoutes(app, {
    feed: (version) => feedOf(version).feed,
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
    clientAssets: async (version) => {
      const { a2uiClientAssets } = await import('../../src/host-a2ui/index.ts');
      return a2uiClientAssets(version);
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
    hubOf: (version) => feedOf(version).hub,
    publish(cid, messages, version = '0.8') {
      const f = feedOf(version);
      f.open(cid);
      const log = f.logs.get(cid)!;
      log.version += 1;
      f.hub.publish(cid, log.version, messages);
    },
    forget(cid, version = '0.8') {
      const f = feedOf(version);
      f.hub.forget(cid);
      const log = f.logs.get(cid);
      if (log) log.generation += 1;
      f.open(cid);
    },
    posts,
    snapshotCalls,
    setSnapshot(messages, version = '0.8') {
      feedOf(version).snapshot = messages;
    },
    async close() {
      for (const f of feeds.values()) f.hub.close();
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
