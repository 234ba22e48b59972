import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDemoApp, createFileCardLibrary } from '../../app/index.ts';
import type { AppDefinition } from '../../conversation/app-definition.ts';
import { createLocalBackend, createRedisBackend, type Backend } from '../../backend/index.ts';
import { createJsonlStore, type Logger } from '../../conversation/index.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../../ingress/index.ts';
import { directiveJsonSchema, renderSystemPrompt } from '../../directives/index.ts';
import { createA2uiHost, type A2uiHost, type A2uiHostOptions } from '../../host-a2ui/index.ts';
import { createApp, createConversationStack, startServer, type RunningServer } from '../../host-html/index.ts';
import type { ConversationService } from '../../conversation/index.ts';
import { createConfiguredPlanner, plannerConfigFromEnv, PlannerError, PlannerKind } from '../../llm/index.ts';
import type { Planner } from '../../planner/types.ts';
import { createSystemSource } from '../../ui-ir/index.ts';
import type { CliIo } from '../main.ts';

const USAGE = 'usage: surfacer serve [--port N] [--planner offline|ollama|openai|replay] [--data DIR] [--host ADDR] [--redis URL]\n';

export interface ServeOptions {
  port: number;
  hostname: string;
  /**
   * A planner kind (see Language models in the README), or a planner of the caller's own (tests,
   * embedding: e.g. one that holds a turn until cancelled).
   */
  planner: PlannerKind | Planner;
  dataDir: string;
  /** Shared state on Redis (several instances); absent: the JSONL log in `dataDir`, this process only. */
  redisUrl?: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Tests and benches: A2UI host settings (hub limits, heartbeat, …). */
  a2ui?: Omit<A2uiHostOptions, 'service' | 'logger'>;
  /** Tests and benches: no fsync per log append. */
  fsync?: boolean;
}

export interface ServeHandle extends RunningServer {
  plannerLabel: string;
  conversations: ConversationService;
  a2ui: A2uiHost;
  backend: Backend;
}

/** A setting `surfacer serve` cannot start with. */
export class ServeConfigError extends Error {
  override name = 'ServeConfigError';
}

/** Builds and starts everything `npm start` runs: the htmx host and the A2UI host on one port. Exported for tests (port 0). */
export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  // The demo app's own store, outside the conversation logs (see README, Actions with side effects).
  const cards = createFileCardLibrary({
    file: options.env.SURFACER_CARD_LIBRARY ?? join(options.dataDir, 'card-library', 'cards.jsonl'),
    ...(options.fsync === false ? { fsync: false } : {}),
  });
  const app = createDemoApp({ cards });
  const { planner, repairAttempts } = choosePlanner(app, options);
  const secret = options.env.SURFACER_SESSION_SECRET;
  if (options.redisUrl !== undefined && (secret === undefined || secret.length < 16)) {
    // Each instance would sign sessions with its own random secret: behind a load balancer users
    // would lose their session (and see 404 for their own conversations) on every other request.
    throw new ServeConfigError('with --redis every instance needs the same SURFACER_SESSION_SECRET (16 characters or more)');
  }
  if (secret === undefined || secret.length < 16) {
    options.logger.warn('SURFACER_SESSION_SECRET not set (or under 16 characters): using a random one; sessions end when the server stops');
  }
  // The one place the engine is chosen: everything below sees only the Backend's interfaces.
  const backend = options.redisUrl !== undefined
    ? createRedisBackend({
      url: options.redisUrl, logger: options.logger,
      ...(options.env.SURFACER_REDIS_PREFIX ? { prefix: options.env.SURFACER_REDIS_PREFIX } : {}),
    })
    : createLocalBackend(createJsonlStore({ dir: options.dataDir, ...(options.fsync === false ? { fsync: false } : {}) }));
  const conversations = createConversationStack({
    app, planner, store: backend.store, turns: backend.turns,
    idempotency: backend.idempotency('client-errors', { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
    entropy: createSystemSource(), logger: options.logger,
    mode: options.env.SURFACER_STRICT === '1' ? 'strict' : 'best-effort',
    limits: { maxRepairAttempts: repairAttempts },
  });
  const rateLimiter = backend.rateLimiter.bind(backend);
  // Same conversations in both hosts: a change made in one shows live in the other.
  const a2ui = createA2uiHost({ rateLimiter, ...options.a2ui, service: conversations, logger: options.logger });
  const host = createApp({
    app, conversations, logger: options.logger, extend: (hono) => a2ui.mount(hono), rateLimiter, health: () => backend.health(),
    sessionSecret: secret !== undefined && secret.length >= 16 ? secret : randomBytes(32).toString('base64url'),
    secureCookies: options.env.SURFACER_SECURE_COOKIES === '1',
    ...(options.env.SURFACER_TRUSTED_ORIGINS ? { trustedOrigins: options.env.SURFACER_TRUSTED_ORIGINS.split(',').map((o) => o.trim()) } : {}),
  });
  // Shutdown: the A2UI hub first (its streams end, no new ones start), then the htmx streams.
  const closeStreams = (): void => {
    a2ui.close();
    host.closeStreams();
  };
  const server = await startServer({ fetch: host.fetch, closeStreams }, { port: options.port, hostname: options.hostname });
  // After the last connection: wait for appends still in flight, then close the log files.
  const close = async (...args: Parameters<RunningServer['close']>): Promise<void> => {
    await server.close(...args);
    await backend.close();
    await cards.close();
  };
  return { ...server, close, plannerLabel: planner.label, conversations, a2ui, backend };
}

/** Throws an LLM_CONFIG_INVALID PlannerError on a bad planner configuration. */
function choosePlanner(app: AppDefinition, options: ServeOptions): { planner: Planner; repairAttempts: number } {
  const config = plannerConfigFromEnv(options.env, typeof options.planner === 'string' ? options.planner : 'offline');
  if (typeof options.planner !== 'string') return { planner: options.planner, repairAttempts: config.repairAttempts };
  const planner = createConfiguredPlanner(config, {
    offline: app.offlinePlanner, systemPrompt: renderSystemPrompt(app.directives), envelopeSchema: directiveJsonSchema(app.directives),
    readFile: (path) => readFileSync(path, 'utf8'),
  });
  return { planner, repairAttempts: config.repairAttempts };
}

function consoleLogger(io: CliIo): Logger {
  const line = (level: string) => (message: string, fields?: Record<string, unknown>): void => {
    io.stderr.write(`${level} ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);
  };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

/** `surfacer serve`: runs until SIGINT/SIGTERM (or `stop` aborts), then shuts down gracefully. */
export async function run(args: string[], io: CliIo, stop?: AbortSignal): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args, allowPositionals: false, strict: true,
      options: {
        port: { type: 'string' }, planner: { type: 'string' }, data: { type: 'string' }, host: { type: 'string' },
        redis: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    io.stderr.write(`surfacer serve: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) { io.stdout.write(USAGE); return 0; }
  const portText = values.port ?? io.env.PORT ?? '8787';
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65535) {
    io.stderr.write(`surfacer serve: invalid port "${portText}"\n${USAGE}`);
    return 2;
  }
  const planner = PlannerKind.safeParse(values.planner ?? io.env.SURFACER_PLANNER ?? 'offline');
  if (!planner.success) {
    io.stderr.write(`surfacer serve: --planner must be one of ${PlannerKind.options.join(', ')}\n${USAGE}`);
    return 2;
  }
  const redisUrl = values.redis ?? io.env.SURFACER_REDIS_URL;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    io.stderr.write(`surfacer serve: --redis / SURFACER_REDIS_URL must be a redis:// or rediss:// URL\n${USAGE}`);
    return 2;
  }
  const logger = consoleLogger(io);
  let server: ServeHandle;
  try {
    server = await startServe({
      port, planner: planner.data, hostname: values.host ?? io.env.HOST ?? '127.0.0.1', ...(redisUrl ? { redisUrl } : {}),
      dataDir: values.data ?? io.env.SURFACER_DATA_DIR ?? '.data/conversations', env: io.env, logger,
    });
  } catch (error) {
    if (error instanceof ServeConfigError) {
      io.stderr.write(`surfacer serve: ${error.message}\n`);
      return 2;
    }
    if (!(error instanceof PlannerError)) throw error;
    io.stderr.write(`surfacer serve: ${error.error.message} ${error.error.technical_detail}\n`);
    return 2;
  }
  io.stdout.write(`Surfacer listening on ${server.url} (${server.plannerLabel}; ${server.backend.engine === 'redis' ? 'shared state on Redis' : 'JSONL log'})\n`);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    stop?.addEventListener('abort', done, { once: true });
    if (stop?.aborted) done();
  });
  io.stdout.write('Shutting down…\n');
  await server.close();
  return 0;
}
