import type { SubmittingClient, Tracked } from './runner.ts';

const stats = (values: readonly number[]): string => {
  if (values.length === 0) return 'none';
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return `min ${sorted[0]!.toFixed(0)}, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)}, `
    + `mean ${mean.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)}`;
};

/** What the crash test prints: kills, their moments, start-up times and where the kills landed. */
export class CrashReport {
  readonly began = performance.now();
  readonly delays: number[] = [];
  /** Spawn to "listening", every start. */
  readonly startups: number[] = [];
  /** From each kill: the next server listening, and its checks (loads, replays) done. */
  readonly restarts: Array<{ ready: number; checked: number }> = [];
  readonly atKill = { answered: 0, loggedUnanswered: 0, notLogged: 0, idle: 0, savedNotLogged: 0 };
  tornTails = 0;
  /** Restarts that found the port taken by another process and moved to a fresh one. */
  portChanges = 0;
  /** The last server's round, its graceful stop and the spawned CLI replays. */
  finalMs: number | undefined;

  constructor(readonly seed: number) {}

  /** Sorts the submissions that were on the wire at a kill (after the audit marked them logged or not). */
  classify(onTheWire: readonly Tracked[], generation: number): void {
    if (onTheWire.length === 0) this.atKill.idle += 1;
    for (const sub of onTheWire) {
      if (sub.ackedIn === generation) this.atKill.answered += 1;
      else if (sub.logged) this.atKill.loggedUnanswered += 1;
      else this.atKill.notLogged += 1;
      if (sub.saved && !sub.logged) this.atKill.savedNotLogged += 1;
    }
  }

  summary(clients: readonly SubmittingClient[]): string {
    const acked = clients.reduce((n, c) => n + c.acked.length, 0);
    const replayed = clients.reduce((n, c) => n + c.retries.replayed, 0);
    const appliedOnRetry = clients.reduce((n, c) => n + c.retries.appliedFresh, 0);
    const { answered, loggedUnanswered, notLogged, idle, savedNotLogged } = this.atKill;
    return [
      `crash test: seed ${this.seed}, ${this.delays.length} SIGKILLs, `
        + `${clients.length} clients (${clients.map((c) => c.client.name).join(', ')})`,
      `kill moments, ms after the clients were let in: ${this.delays.map((d) => d.toFixed(0)).join(' ')}`,
      `server start-up (spawn to listening, ${this.startups.length} starts), ms: ${stats(this.startups)}`,
      `kill to next server listening, ms: ${stats(this.restarts.map((r) => r.ready))}; `
        + `kill to its checks done (loads, replays): ${stats(this.restarts.map((r) => r.checked))}`,
      `submissions acknowledged: ${acked}; retried after a kill: ${replayed} answered as replays (logged before the kill), `
        + `${appliedOnRetry} applied on the retry (not logged)`,
      `on the wire at the kills: ${answered} answered just before, ${loggedUnanswered} logged but unanswered, ${notLogged} not logged `
        + `(${savedNotLogged} of them already saved to the card library: killed between the effect and the append); `
        + `${idle} kills with nothing on the wire; torn log tails: ${this.tornTails}; port taken on restart: ${this.portChanges}`,
      `after the last restart (a save by each client, graceful stop, CLI replays): ${this.finalMs?.toFixed(0) ?? '-'} ms; `
        + `total ${((performance.now() - this.began) / 1000).toFixed(1)} s`,
    ].join('\n');
  }
}
