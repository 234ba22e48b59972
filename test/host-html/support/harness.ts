import { createDemoApp } from '../../../src/app/index.ts';
import type { AppDefinition } from '../../../src/conversation/app-definition.ts';
import {
  createMemoryStore, type ConversationService, type ConversationStore, type RunDirectives, type ServiceLimits,
} from '../../../src/conversation/index.ts';
import { createApp, createConversationStack, startServer, type HostApp, type HostLimits, type RunningServer } from '../../../src/host-html/index.ts';
import type { Planner } from '../../../src/planner/types.ts';
import { createSeededSource } from '../../../src/ui-ir/index.ts';
import { createFakePlanner, createTestApp, fakeRunDirectives } from '../../conversation/fixtures/demo-app.ts';
import { HttpClient } from '../../support/http-client.ts';

/**
 * `fixture`: the small test app + fake runner (always controllable: slow/failing planners).
 * `demo`: the real product (src/app createDemoApp, its offline planner, the real runner).
 * Flow suites run against both, so the host is checked against the real app too.
 */
export type Wiring = 'fixture' | 'demo';

export interface HarnessOptions {
  wiring?: Wiring;
  planner?: Planner;
  store?: ConversationStore;
  limits?: Partial<HostLimits>;
  serviceLimits?: Partial<ServiceLimits>;
  /** The host's token source (session ids, page ids); default crypto. */
  randomToken?: (bytes: number) => string;
}

export interface Harness {
  url: string;
  app: AppDefinition;
  service: ConversationService;
  host: HostApp;
  server: RunningServer;
  store: ConversationStore;
  client(): HttpClient;
  close(): Promise<void>;
}

/** Values that make the wiring's character card valid, and the name it then shows as saved. */
export const CHARACTER_VALUES: Record<Wiring, Record<string, string>> = {
  fixture: { name: 'Aria', level: '7', traits: 'brave, kind', bio: 'A bard.' },
  demo: { name: 'Aria', personality: 'Brave and kind.', tags: 'brave, kind' },
};

export function wiringParts(wiring: Wiring, planner?: Planner): { app: AppDefinition; runDirectives?: RunDirectives } {
  if (wiring === 'demo') {
    const app = createDemoApp();
    return { app: planner ? { ...app, offlinePlanner: planner } : app };
  }
  return { app: createTestApp(planner ?? createFakePlanner()), runDirectives: fakeRunDirectives };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { app, runDirectives } = wiringParts(options.wiring ?? 'fixture', options.planner);
  const store = options.store ?? createMemoryStore();
  const service = createConversationStack({
    app, store, entropy: createSeededSource('harness'),
    ...(runDirectives ? { runDirectives } : {}),
    ...(options.serviceLimits ? { limits: options.serviceLimits } : {}),
  });
  const host = createApp({
    app, conversations: service, sessionSecret: 'harness-secret-0123456789',
    limits: { sseHeartbeatMs: 500, ...options.limits },
    ...(options.randomToken ? { randomToken: options.randomToken } : {}),
  });
  const server = await startServer(host, { port: 0 });
  return {
    url: server.url, app, service, host, server, store,
    client: () => new HttpClient(server.url),
    close: () => server.close(1000),
  };
}
