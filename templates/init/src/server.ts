import { parseArgs } from 'node:util';
import { createJsonlStore, createSurfacer, PlannerKind, type Logger } from 'surfacer';
import { APP_NAME, createApp } from './app.ts';

/*
 * `npm start` (node dist/server.js). The same settings as `surfacer serve`: --port / PORT (default
 * 8787; 0 picks a free port), --host / HOST (default 127.0.0.1), SURFACER_SESSION_SECRET (signs
 * session cookies; random per start when unset), SURFACER_DATA_DIR (keep conversations in JSONL
 * logs there; in memory when unset), SURFACER_PLANNER (offline, ollama or openai; see Surfacer's
 * docs on language models).
 */
function fail(message: string): never {
  console.error(`${APP_NAME}: ${message}\nusage: node dist/server.js [--port N] [--host ADDR]`);
  process.exit(2);
}

let values: { port?: string; host?: string };
try {
  ({ values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } } }));
} catch (error) {
  fail((error as Error).message);
}
const portText = values.port ?? process.env.PORT ?? '8787';
const port = Number(portText);
if (!/^\d{1,5}$/.test(portText) || port > 65535) fail(`invalid port "${portText}"`);
const planner = PlannerKind.safeParse(process.env.SURFACER_PLANNER ?? 'offline');
if (!planner.success) fail(`SURFACER_PLANNER must be one of ${PlannerKind.options.join(', ')}`);

const logger: Logger = {
  info: (message) => console.log(message),
  warn: (message, fields) => console.warn(`warn ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`error ${message}`, fields ?? ''),
};

const secret = process.env.SURFACER_SESSION_SECRET;
const dataDir = process.env.SURFACER_DATA_DIR;
const surfacer = createSurfacer({
  app: createApp(),
  planner: planner.data,
  logger,
  ...(secret ? { sessionSecret: secret } : {}),
  ...(dataDir ? { store: createJsonlStore({ dir: dataDir }) } : {}),
});
const server = await surfacer.listen({ port, hostname: values.host ?? process.env.HOST ?? '127.0.0.1' });
console.log(`${APP_NAME} listening on ${server.url} (${surfacer.planner.label})`);

const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
