import { createClientSim, type ClientSim, type ClientSimOptions } from './client-sim.ts';
import { snapshotAll, type SurfaceSnapshot } from './snapshot.ts';
import type { SimState, Violation } from './types.ts';

export interface ReplayResult {
  readonly sim: ClientSim;
  /** Per-message violations followed by the end-of-stream ones. */
  readonly violations: readonly Violation[];
  readonly surfaces: ReadonlyMap<string, SurfaceSnapshot>;
  readonly hashes: ReadonlyMap<string, string>;
}

function finish(sim: ClientSim, violations: Violation[]): ReplayResult {
  let surfaces: ReadonlyMap<string, SurfaceSnapshot> | undefined;
  // Snapshots are built only for callers that read them (most compare hashes only), from the
  // state at the end of the replay even if the caller drives `sim` on meanwhile.
  const state = sim.state();
  return {
    sim, violations: [...violations, ...sim.endOfStream()], hashes: sim.hashes(),
    get surfaces() { return (surfaces ??= snapshotAll(state)); },
  };
}

/** Replays a whole stream on a fresh client. */
export function replay(stream: Iterable<unknown>, options: ClientSimOptions = {}): ReplayResult {
  const sim = createClientSim(options);
  return finish(sim, sim.applyAll(stream));
}

export interface CutPoint {
  /** Messages `[0, cutIndex)` reached the client before the connection dropped. */
  readonly cutIndex: number;
  readonly delivered: readonly unknown[];
  /** Client state at the cut (what Last-Event-ID style resumption would build on). */
  readonly state: SimState;
  readonly hashes: ReadonlyMap<string, string>;
}

/** What the client receives after reconnecting: a resume tail or a full re-initialisation. */
export type Reconnect = (cut: CutPoint) => Iterable<unknown>;

export interface CutOptions extends ClientSimOptions {
  /** The page reloads: client state is lost at the cut (default false: the SSE client reconnects in place). */
  readonly reload?: boolean;
}

export function cutAndReconnect(stream: readonly unknown[], cutIndex: number, reconnect: Reconnect, options: CutOptions = {}): ReplayResult {
  const at = Math.max(0, Math.min(cutIndex, stream.length));
  const delivered = stream.slice(0, at);
  const before = createClientSim(options);
  const seen = before.applyAll(delivered);
  return reconnectAfter(delivered, before.state(), seen, reconnect, options);
}

/** The client held `state` (having seen `seen`) when the connection dropped after `delivered`. */
function reconnectAfter(delivered: readonly unknown[], state: SimState, seen: readonly Violation[], reconnect: Reconnect, options: CutOptions): ReplayResult {
  // States are immutable: a client started from `state` never changes the caller's.
  const before = createClientSim({ ...options, state });
  const tail = [...reconnect({ cutIndex: delivered.length, delivered, state, hashes: before.hashes() })];
  // After a reload the new page knows nothing of the first connection, not even its violations.
  const sim = options.reload === true ? createClientSim({ ...options, state: undefined }) : before;
  const violations = options.reload === true ? [] : seen;
  return finish(sim, [...violations, ...sim.applyAll(tail)]);
}

export interface HashDiff {
  readonly surfaceId: string;
  readonly a: string | undefined;
  readonly b: string | undefined;
}

/** Surfaces whose hash differs, or that exist on one side only; sorted by id. Empty = same state. */
export function compareHashes(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): HashDiff[] {
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort();
  return ids.filter((id) => a.get(id) !== b.get(id)).map((id) => ({ surfaceId: id, a: a.get(id), b: b.get(id) }));
}

export interface CutReport {
  readonly cutIndex: number;
  readonly result: ReplayResult;
  /** Against the uninterrupted replay of `stream`. */
  readonly diffs: HashDiff[];
}

/**
 * Cuts at every point 0..stream.length and reports how each reconnect differs from no cut.
 * One client walks the stream once; each cut forks its state there (the same result as
 * cutAndReconnect at that index, without replaying the prefix every time).
 */
export function cutAtEveryPoint(stream: readonly unknown[], reconnect: Reconnect, options: CutOptions = {}): CutReport[] {
  const reference = replay(stream, options).hashes;
  const reports: CutReport[] = [];
  const walker = createClientSim(options);
  const seen: Violation[] = [];
  for (let cutIndex = 0; cutIndex <= stream.length; cutIndex += 1) {
    if (cutIndex > 0) seen.push(...walker.apply(stream[cutIndex - 1]));
    const result = reconnectAfter(stream.slice(0, cutIndex), walker.state(), seen.slice(), reconnect, options);
    reports.push({ cutIndex, result, diffs: compareHashes(reference, result.hashes) });
  }
  return reports;
}
