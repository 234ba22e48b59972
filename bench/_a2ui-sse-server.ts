import { AsyncLocalStorage } from 'node:async_hooks';
/**
 * Child process of bench/a2ui-sse.ts: the product as `npm start` composes it (startServe: demo
 * app, offline planner, JSONL store without fsync, both hosts), so the SSE fan-out is measured
 * in a process of its own (its RSS is the server's alone). Does nothing unless started with
 * SURFACER_BENCH_SERVER=1 (bench/run.ts imports every bench/*.ts). Answers IPC messages
 * `{ stats: id }` with its memory (after a full GC) and the hub's counters.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../src/cli/commands/serve.ts';
import { silentLogger } from '../src/conversation/index.ts';
import { startTelemetry, type Telemetry } from '../src/telemetry/sdk.ts';
import { noopSpanExporter } from './_noop-exporter.ts';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'surfacer-bench-sse-'));
  // BENCH_REDIS_URL: one of several instances on one Redis (bench/a2ui-sse.ts starts them).
  const redisUrl = process.env.BENCH_REDIS_URL;
  // BENCH_TELEMETRY=on (bench/telemetry.ts): the SDK as `surfacer serve` starts it, batching every
  // span to an exporter that drops them, and metrics recorded into the SDK's aggregation behind
  // GET /metrics (a pull exporter nobody scrapes: the metrics' no-op exporter), so what is
  // measured is the instrumentation and the SDK.
  const exporter = noopSpanExporter();
  // BENCH_TELEMETRY=traces or =metrics: one signal alone (where the cost of 'on' is); =als: no
  // SDK, only an AsyncLocalStorage in use (what context propagation costs by itself on this Node).
  const signal = process.env.BENCH_TELEMETRY;
  if (signal === 'als') new AsyncLocalStorage<number>().enterWith(1);
  const telemetry: Telemetry | undefined = signal === 'on' || signal === 'traces' || signal === 'metrics'
    ? await startTelemetry({
      env: signal === 'traces' ? {} : { OTEL_METRICS_EXPORTER: 'prometheus' },
      ...(signal === 'metrics' ? {} : { traceExporters: [exporter] }),
    })
    : undefined;
  // BENCH_LOOSE_LIMITS=1: many conversations from one address and session (the action bench's slots).
  const loose = process.env.BENCH_LOOSE_LIMITS === '1' ? { hostLimits: { maxConversationsPerSession: 10_000, conversationCreatesPerMinute: 100_000 } } : {};
  const server = await startServe({
    ...loose,
    port: 0, hostname: '127.0.0.1', planner: 'offline', dataDir: dir,
    env: { SURFACER_SESSION_SECRET: 'bench-secret-0123456789abcdef', ...(redisUrl ? { SURFACER_REDIS_PREFIX: process.env.BENCH_REDIS_PREFIX ?? 'bench:' } : {}) },
    logger: silentLogger, fsync: false,
    // BENCH_SSE_SOCKET_WRITES=0: the write path before issue 23 (through the ServerResponse), the same-run baseline.
    a2ui: { heartbeatMs: 60_000, ...(process.env.BENCH_SSE_SOCKET_WRITES === '0' ? { socketWrites: false } : {}) }, ...(redisUrl ? { redisUrl } : {}),
    ...(telemetry ? { telemetry } : {}),
  });
  // The fan-out: from hub.publish until every stream has written the batch. Streams drain in
  // the event-loop turn after the publish (createDrainBatcher's setImmediate, queued inside
  // publish); an immediate queued after the publish returns runs right after that drain.
  const publishMs: number[] = [];
  const hub = server.a2ui.hub;
  const publish = hub.publish.bind(hub);
  hub.publish = (cid, version, messages, lines) => {
    const t0 = performance.now();
    try {
      return publish(cid, version, messages, lines);
    } finally {
      setImmediate(() => publishMs.push(performance.now() - t0));
    }
  };
  process.on('message', (message: { stats?: number; cpu?: number }) => {
    // The process's CPU time so far, and nothing else (no GC first: bench/telemetry.ts times between two of these).
    if (message.cpu !== undefined) {
      const used = process.cpuUsage();
      process.send!({ cpu: message.cpu, us: used.user + used.system });
      return;
    }
    if (message.stats === undefined) return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const memory = process.memoryUsage();
    process.send!({ stats: message.stats, spans: exporter.exported(), rss: memory.rss, heapUsed: memory.heapUsed, external: memory.external, hub: server.a2ui.hub.stats(), publishMs: publishMs.splice(0) });
  });
  process.once('SIGTERM', () => {
    void server.close(500).then(() => telemetry?.shutdown()).finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
  process.send!({ port: server.port });
}

if (process.env.SURFACER_BENCH_SERVER === '1') await main();
