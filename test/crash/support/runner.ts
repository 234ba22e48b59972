import type { Acknowledgement, CrashClient, Submission } from './clients.ts';

/**
 * The server generation clients may use. The crash test closes it just before each SIGKILL and
 * opens the next one once the restarted server was checked, so a request either reached a
 * server that was up, or failed because that server was killed.
 */
export class ServerGate {
  private generation = 0;
  private open = false;
  private stopping = false;
  private waiters: Array<() => void> = [];

  /** Whether requests of `generation` still go to a live server. */
  isOpen(generation: number): boolean {
    return this.open && this.generation === generation;
  }

  openGeneration(generation: number): void {
    this.generation = generation;
    this.open = true;
    this.wake();
  }

  close(): void {
    this.open = false;
  }

  stop(): void {
    this.stopping = true;
    this.wake();
  }

  /** The first open generation after `after`, or undefined once stopping. */
  async next(after: number): Promise<number | undefined> {
    while (!this.stopping && !(this.open && this.generation > after)) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.stopping ? undefined : this.generation;
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}

/** A submission as the client tracks it. */
export interface Tracked extends Submission {
  attempts: number;
  /** The audit's finding while the server was down: the log already holds this submission. */
  logged?: boolean;
  /** The audit's finding: the card library already holds its card (saved, perhaps not logged). */
  saved?: boolean;
  /** The generation whose server acknowledged it. */
  ackedIn?: number;
}

/** `fetch` failing because the server went away (refused, reset, or cut mid-body). */
function connectionFailure(error: unknown): boolean {
  return error instanceof TypeError && (error.message === 'fetch failed' || error.message === 'terminated');
}

/**
 * One client submitting sequentially (each submit needs the surface's current rev). A
 * submission whose answer did not arrive stays pending and is sent again, same key and body,
 * to the next server; its answer must then say whether the log already held it.
 */
export class SubmittingClient {
  readonly acked: Tracked[] = [];
  /** Every name this client ever prepared (the log may hold no other). */
  readonly prepared = new Set<string>();
  pending: Tracked | undefined;
  /** The submission whose request is on the wire right now. */
  inFlight: Tracked | undefined;
  /** Waiting at the gate (or finished): nothing of this client is on the wire. */
  parked = false;
  retries = { replayed: 0, appliedFresh: 0 };
  private seq = 0;

  constructor(readonly client: CrashClient, private readonly gate: ServerGate, private readonly problems: string[]) {}

  async run(): Promise<void> {
    try {
      await this.loop();
    } finally {
      this.parked = true;
    }
  }

  private async loop(): Promise<void> {
    let failedIn = 0;
    for (;;) {
      this.parked = true;
      const generation = await this.gate.next(failedIn);
      this.parked = false;
      if (generation === undefined) return;
      try {
        if (this.pending === undefined) {
          const n = this.seq++;
          const next = await this.client.next(`${this.client.name}-${n}`, `${this.client.name}-key-${n}`);
          this.prepared.add(next.value);
          this.pending = { ...next, attempts: 0 };
        }
        await this.attempt(this.pending, generation);
      } catch (error) {
        this.inFlight = undefined;
        if (!connectionFailure(error) || this.gate.isOpen(generation)) {
          this.problems.push(`${this.client.name}: ${String(error)} (${String((error as { cause?: unknown }).cause ?? '')})`);
          return;
        }
        failedIn = generation;
      }
    }
  }

  private async attempt(sub: Tracked, generation: number): Promise<void> {
    sub.attempts += 1;
    this.inFlight = sub;
    const res = await sub.send();
    const text = await res.text();
    this.inFlight = undefined;
    if (res.status !== 200) {
      throw new Error(`${sub.value} (attempt ${sub.attempts}, key ${sub.key}) answered ${res.status}: ${text.slice(0, 300)}`);
    }
    const answer = JSON.parse(text) as Acknowledgement;
    if (sub.attempts === 1 && answer.replayed) this.problems.push(`${sub.value}: a first attempt was answered as a replay`);
    if (sub.attempts > 1) {
      // Logged before the crash → the retry replays that outcome; not logged → applied now, once.
      if (answer.replayed !== sub.logged) {
        const held = sub.logged ? 'held' : 'did not hold';
        this.problems.push(`${sub.value}: retry answered replayed=${answer.replayed}, but the log ${held} it`);
      }
      if (answer.replayed) this.retries.replayed += 1;
      else this.retries.appliedFresh += 1;
    }
    sub.ackedIn = generation;
    this.acked.push(sub);
    this.pending = undefined;
    this.client.acknowledged(answer);
  }
}
