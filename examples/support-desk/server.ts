// Starts the support desk: `npx tsx examples/support-desk/server.ts` from the repository, or
// `node server.js` once compiled against the installed package. PORT (default 8788), HOST,
// SURFACER_SESSION_SECRET and SURFACER_DATA_DIR (a JSONL log; default in memory) are read here.
import { createJsonlStore, createSurfacer, type Logger } from 'surfacer';
import { createSupportDeskApp } from './app.ts';

const logger: Logger = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(`warn ${message}`),
  error: (message, fields) => console.error(`error ${message}`, fields ?? ''),
};

const surfacer = createSurfacer({
  app: createSupportDeskApp(),
  logger,
  ...(process.env.SURFACER_DATA_DIR ? { store: createJsonlStore({ dir: process.env.SURFACER_DATA_DIR }) } : {}),
  ...(process.env.SURFACER_SESSION_SECRET ? { sessionSecret: process.env.SURFACER_SESSION_SECRET } : {}),
});
const server = await surfacer.listen({ port: Number(process.env.PORT ?? 8788), hostname: process.env.HOST ?? '127.0.0.1' });
console.log(`Support desk listening on ${server.url}`);

const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
