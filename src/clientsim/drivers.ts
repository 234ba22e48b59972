import { createClientSim, type ClientSim, type ClientSimOptions } from './client-sim.ts';
import type { SurfaceSnapshot } from './snapshot.ts';
import type { SimState, Violation } from './types.ts';

export interface ReplayResult {
  readonly sim: ClientSim;
  /** Per-message violations followed by the end-of-stream ones. */
  readonly violations: readonly Violation[];
  readonly surfaces: ReadonlyMap<string, SurfaceSnapshot>;
  readonly hashes: ReadonlyMap<string, string>;
}

function finish(sim: ClientSim, violations: Violation[]): ReplayResult {
  return { sim, violations: [...violations, ...sim.endOfStream()], surfaces: sim.surfaces(), hashes: sim.hashes() };
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
  const tail = [...reconnect({ cutIndex: at, delivered, state: before.state(), hashes: before.hashes() })];
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

/** Cuts at every point 0..stream.length and reports how each reconnect differs from no cut. */
export function cutAtEveryPoint(stream: readonly unknown[], reconnect: Reconnect, options: CutOptions = {}): CutReport[] {
  const reference = replay(stream, options).hashes;
  const reports: CutReport[] = [];
  for (let cutIndex = 0; cutIndex <= stream.length; cutIndex += 1) {
    const result = cutAndReconnect(stream, cutIndex, reconnect, options);
    reports.push({ cutIndex, result, diffs: compareHashes(reference, result.hashes) });
  }
  return reports;
}
