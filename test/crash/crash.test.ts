import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, onTestFinished, test } from 'vitest';
import { seededRandom } from '../e2e/support/cut-client.ts';
import { freePort, replayCli, restartChildServer, type ChildServer } from './support/child-server.ts';
import { openA2uiClient, openHtmlClient } from './support/clients.ts';
import { auditLibrary, auditLog, logFile, replayInProcess, type LibraryAudit, type LogAudit } from './support/log-audit.ts';
import { CrashReport } from './support/report.ts';
import { ServerGate, SubmittingClient, type Tracked } from './support/runner.ts';

/*
 * Crash test (design §10: "a crash at any point loses no acknowledged submission"). The server
 * runs as users run it (`node bin/surfacer.mjs serve`: tsx, the demo app, the offline planner,
 * the fsynced JSONL log) and is SIGKILLed at KILLS seeded random moments while four clients
 * (two JSON clients of the htmx host, two external A2UI clients) each save their character
 * card again and again, every submission under its own name and idempotency key. Each save
 * first writes the card to the demo's card library (form.submit's side effect, an fsynced file
 * keyed by the idempotency key), then appends the action to the log. Kills land
 * before, during and after appends: the delay after the clients are let in is random, and the
 * submissions on the wire at each kill are sorted into answered / logged but unanswered / not
 * logged.
 *
 * After each kill, from the logs on disk: every acknowledged submission is there exactly once,
 * nothing is there twice or that no client sent, and each unanswered submission is noted as
 * logged or not. After each restart, before the clients go on: every conversation loads (its
 * page with the session cookie, its A2UI snapshot with the bearer token) and shows the last
 * logged name, and `surfacer replay` verifies every log. The clients then retry their
 * unanswered submission with the same key and body: a logged one must be answered as a replay,
 * an unlogged one applied now; either way once. A 409 cannot happen: nothing else changes the
 * surface between the attempts. At the end the server stops gracefully and the spawned
 * `node bin/surfacer.mjs replay` verifies every log.
 *
 * Start-up through tsx dominates the run (each of the KILLS + 1 starts is printed). The logs
 * are replayed in this process while the next server starts (nothing writes them then), and by
 * the spawned CLI once at the end. CRASH_SEED=n replays another sequence of kill delays (the
 * interleaving still depends on timing); CRASH_KILLS=n changes the number of kills.
 */
const KILLS = Number(process.env.CRASH_KILLS ?? 12);
const MAX_DELAY_MS = 300;
const SEED = Number(process.env.CRASH_SEED ?? 20261124);
// Sessions survive a restart only with a fixed secret (docs/configuration.md).
const ENV = { SURFACER_SESSION_SECRET: 'crash-test-session-secret-0123456789' };

const dataDir = mkdtempSync(join(tmpdir(), 'surfacer-crash-'));
let server: ChildServer | undefined;

afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/**
 * The log checks that hold whenever the server is down; notes whether each pending submission is
 * logged. With them, the card library's (form.submit saves each card there first, under the
 * submission's idempotency key): an acknowledged card is saved exactly once and its log entry
 * names that saved card; a key is never saved twice; a card saved but not logged can only be
 * the pending one (a kill between the save and the append), which its retry must then reuse.
 */
function audit(c: SubmittingClient, library: LibraryAudit, problems: string[]): LogAudit {
  const found = auditLog(dataDir, c.client.cid);
  for (const sub of c.acked) {
    const n = found.applied.get(sub.value) ?? 0;
    if (n !== 1) problems.push(`${sub.value}: acknowledged, but applied ${n} times in the log`);
    const saved = library.byKey.get(sub.key) ?? [];
    if (saved.length !== 1) problems.push(`${sub.value}: acknowledged, but saved ${saved.length} times in the card library`);
    else if (saved[0]!.card['name'] !== sub.value) problems.push(`${sub.value}: the library holds ${String(saved[0]!.card['name'])} under its key`);
    else if (found.effects.get(sub.value)?.id !== saved[0]!.id) problems.push(`${sub.value}: logged with card ${found.effects.get(sub.value)?.id}, saved as ${saved[0]!.id}`);
  }
  for (const [value, n] of found.applied) {
    if (n > 1) problems.push(`${value}: applied ${n} times`);
    if (!c.prepared.has(value)) problems.push(`${value}: in the log, but ${c.client.name} never sent it`);
  }
  const mine = [...library.byKey].filter(([key]) => key.startsWith(`${c.client.name}-key-`));
  for (const [key, cards] of mine) {
    if (cards.length > 1) problems.push(`${key}: saved ${cards.length} times in the card library`);
    const value = cards[0]!.card['name'];
    const logged = typeof value === 'string' && found.applied.has(value);
    if (!logged && key !== c.pending?.key) problems.push(`${key}: saved in the card library, logged nowhere, and not pending`);
  }
  if (c.pending) {
    c.pending.logged = found.applied.has(c.pending.value);
    c.pending.saved = library.byKey.has(c.pending.key);
  }
  return found;
}

async function replayEach(clients: readonly SubmittingClient[], problems: string[]): Promise<void> {
  for (const c of clients) {
    const failed = await replayInProcess(logFile(dataDir, c.client.cid));
    if (failed !== undefined) problems.push(`${c.client.name}: ${failed}`);
  }
}

/** Server log lines that mean something went wrong (its logger writes `warn …` and `error …` lines). */
function serverTrouble(stderr: string): string[] {
  // The server logs JSON lines on a pipe (src/telemetry/log.ts).
  return stderr.split('\n').filter((line) => /"level":"error"|did not replay/.test(line));
}

test(`SIGKILLed ${KILLS} times under load, the server loses no acknowledged submission and applies none twice`, async () => {
  const rng = seededRandom(SEED);
  let port = await freePort();
  const report = new CrashReport(SEED);
  const problems: string[] = [];
  let clients: SubmittingClient[] = [];
  const start = async (): Promise<ChildServer> => {
    const started = await restartChildServer({ port, dataDir, env: ENV });
    report.startups.push(started.startupMs);
    if (server !== undefined && started.url !== server.url) {
      report.portChanges += 1;
      port = Number(new URL(started.url).port);
      for (const c of clients) c.client.moveTo(started.url);
    }
    return started;
  };

  server = await start();
  const gate = new ServerGate();
  clients = [
    ...await Promise.all(['htmx-1', 'htmx-2'].map((name) => openHtmlClient(name, server!.url))),
    ...await Promise.all(['a2ui-1', 'a2ui-2'].map((name) => openA2uiClient(name, server!.url))),
  ].map((client) => new SubmittingClient(client, gate, problems));
  const loops = clients.map((c) => c.run());
  // Also when the test fails or times out: how far it got.
  onTestFinished(() => {
    gate.stop();
    console.log(report.summary(clients));
  });
  let generation = 1;
  gate.openGeneration(generation);
  for (let kill = 1; kill <= KILLS; kill++) {
    const delay = rng() * MAX_DELAY_MS;
    report.delays.push(delay);
    await sleep(delay);
    gate.close();
    const onTheWire: Tracked[] = clients.flatMap((c) => (c.inFlight ? [c.inFlight] : []));
    await server.kill();
    const killed = performance.now();
    problems.push(...serverTrouble(server.stderr()));
    await until(() => clients.every((c) => c.parked), 'the clients to notice the kill');

    const library = auditLibrary(dataDir);
    const audits = clients.map((c) => audit(c, library, problems));
    report.tornTails += audits.filter((a) => a.tornBytes > 0).length + (library.tornBytes > 0 ? 1 : 0);
    report.classify(onTheWire, generation);
    expect(problems, `after kill ${kill}`).toEqual([]);

    // Nothing writes the logs while the server starts: replay them meanwhile, except a torn one
    // (the CLI refuses a torn tail, which the server cuts when it loads the conversation).
    const whole = clients.filter((_, i) => audits[i]!.tornBytes === 0);
    [server] = await Promise.all([start(), replayEach(whole, problems)]);
    generation += 1;
    const ready = performance.now();
    // Every conversation loads, each as its own client sees it, and shows the last logged name.
    const shown = await Promise.all(clients.map((c) => c.client.load()));
    clients.forEach((c, i) => {
      const last = audits[i]!.last;
      if (shown[i] !== last) problems.push(`${c.client.name}: shows ${shown[i]} after restart ${kill}; the log ends with ${last}`);
    });
    await replayEach(clients.filter((c) => !whole.includes(c)), problems);
    expect(problems, `after restart ${kill}`).toEqual([]);
    report.restarts.push({ ready: ready - killed, checked: performance.now() - killed });
    gate.openGeneration(generation);
  }

  // The last server: each client saves at least once more (its pending retry is answered first).
  const finalPhase = performance.now();
  const last = generation;
  const savedAgain = (): boolean => clients.every((c) => c.acked.some((s) => s.ackedIn === last));
  await until(() => problems.length > 0 || savedAgain(), 'a save by every client after the last restart');
  gate.stop();
  await Promise.all(loops);
  expect(problems, 'after the last restart').toEqual([]);
  expect(await server.terminate()).toBe(0);
  problems.push(...serverTrouble(server.stderr()));
  server = undefined;

  const library = auditLibrary(dataDir);
  for (const c of clients) {
    const applied = [...audit(c, library, problems).applied.values()].reduce((a, b) => a + b, 0);
    if (c.pending !== undefined || applied !== c.acked.length) {
      problems.push(`${c.client.name}: ${c.acked.length} acknowledged, ${applied} applied, pending ${c.pending?.value}`);
    }
  }
  // Every card in the library was acknowledged: nothing is left saved but unlogged once the retries are done.
  const acknowledged = clients.reduce((n, c) => n + c.acked.length, 0);
  if (library.cards !== acknowledged) problems.push(`${library.cards} cards in the library, ${acknowledged} submissions acknowledged`);
  expect(problems, 'after the graceful stop').toEqual([]);

  // The command users run, on every log (two at a time: each pays tsx's start-up).
  for (let i = 0; i < clients.length; i += 2) {
    const replays = await Promise.all(clients.slice(i, i + 2).map((c) => replayCli(logFile(dataDir, c.client.cid))));
    for (const r of replays) {
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^ok: every recorded IR hash reproduced$/m);
      expect(r.code).toBe(0);
    }
  }
  expect(clients.every((c) => c.acked.length > 0)).toBe(true);
  report.finalMs = performance.now() - finalPhase;
}, 300_000);
