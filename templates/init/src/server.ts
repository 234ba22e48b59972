import { parseArgs } from 'node:util';
import { createJsonlStore, createSurfacer, ListenError, PlannerKind, type Logger } from 'surfacer';
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
if (!/^\d{1,5}$/.test(portText) || port > 65535) {
  fail(`${values.port !== undefined ? '--port' : 'PORT'} is "${portText}"; it must be a whole number from 0 to 65535 (0 picks a free port)`);
}
const plannerText = process.env.SURFACER_PLANNER ?? 'offline';
const planner = PlannerKind.safeParse(plannerText);
if (!planner.success) fail(`SURFACER_PLANNER is "${plannerText}"; it must be one of ${PlannerKind.options.join(', ')}`);

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
const server = await surfacer.listen({ port, hostname: values.host ?? process.env.HOST ?? '127.0.0.1' }).catch((error: unknown) => {
  // A port in use (or a host that is not this machine's): say so, and how to choose another.
  if (!(error instanceof ListenError)) throw error;
  return fail(error.code === 'EADDRNOTAVAIL' ? `${error.message}; choose another with --host ADDR or HOST=ADDR` : `${error.message}; choose another port with --port N or PORT=N (0 picks a free one)`);
});
console.log(`${APP_NAME} listening on ${server.url} (${surfacer.planner.label})`);

const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
