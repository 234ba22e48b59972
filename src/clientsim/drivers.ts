import { createClientSim, type ClientSim, type ClientSimOptions } from './client-sim.ts';
import { snapshotAll, type SurfaceSnapshot } from './snapshot.ts';
import type { SimState, Violation } from './types.ts';

/**
 * Drivers over any ClientSim (v0.8 or v0.9): replay a stream, cut it and reconnect, cut at every
 * point. They only apply messages, read states and compare per-surface hashes, so one
 * implementation serves both versions (`createDrivers`).
 */
export interface DriverSim<S, V> {
  apply(message: unknown): V[];
  applyAll(messages: Iterable<unknown>): V[];
  endOfStream(): V[];
  state(): S;
  hashes(): ReadonlyMap<string, string>;
}

export interface DriverKit<S, V, Snap, O, Sim extends DriverSim<S, V>> {
  create(options: O & { state?: S | undefined }): Sim;
  snapshots(state: S): ReadonlyMap<string, Snap>;
}

export interface ReplayResult<Sim = ClientSim, V = Violation, Snap = SurfaceSnapshot> {
  readonly sim: Sim;
  /** Per-message violations followed by the end-of-stream ones. */
  readonly violations: readonly V[];
  readonly surfaces: ReadonlyMap<string, Snap>;
  readonly hashes: ReadonlyMap<string, string>;
}

export interface CutPoint<S = SimState> {
  /** Messages `[0, cutIndex)` reached the client before the connection dropped. */
  readonly cutIndex: number;
  readonly delivered: readonly unknown[];
  /** Client state at the cut (what Last-Event-ID style resumption would build on). */
  readonly state: S;
  readonly hashes: ReadonlyMap<string, string>;
}

/** What the client receives after reconnecting: a resume tail or a full re-initialisation. */
export type Reconnect<S = SimState> = (cut: CutPoint<S>) => Iterable<unknown>;

export type CutOptions<O = ClientSimOptions> = O & {
  /** The page reloads: client state is lost at the cut (default false: the SSE client reconnects in place). */
  readonly reload?: boolean;
};

export interface HashDiff {
  readonly surfaceId: string;
  readonly a: string | undefined;
  readonly b: string | undefined;
}

export interface CutReport<Sim = ClientSim, V = Violation, Snap = SurfaceSnapshot> {
  readonly cutIndex: number;
  readonly result: ReplayResult<Sim, V, Snap>;
  /** Against the uninterrupted replay of `stream`. */
  readonly diffs: HashDiff[];
}

/** Surfaces whose hash differs, or that exist on one side only; sorted by id. Empty = same state. */
export function compareHashes(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): HashDiff[] {
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort();
  return ids.filter((id) => a.get(id) !== b.get(id)).map((id) => ({ surfaceId: id, a: a.get(id), b: b.get(id) }));
}

export interface Drivers<S, V, Snap, O, Sim> {
  /** Replays a whole stream on a fresh client. */
  replay(stream: Iterable<unknown>, options?: O): ReplayResult<Sim, V, Snap>;
  cutAndReconnect(stream: readonly unknown[], cutIndex: number, reconnect: Reconnect<S>, options?: CutOptions<O>): ReplayResult<Sim, V, Snap>;
  /**
   * Cuts at every point 0..stream.length and reports how each reconnect differs from no cut.
   * One client walks the stream once; each cut forks its state there (the same result as
   * cutAndReconnect at that index, without replaying the prefix every time).
   */
  cutAtEveryPoint(stream: readonly unknown[], reconnect: Reconnect<S>, options?: CutOptions<O>): CutReport<Sim, V, Snap>[];
}

export function createDrivers<S, V, Snap, O extends object, Sim extends DriverSim<S, V>>(kit: DriverKit<S, V, Snap, O, Sim>): Drivers<S, V, Snap, O, Sim> {
  function finish(sim: Sim, violations: V[]): ReplayResult<Sim, V, Snap> {
    let surfaces: ReadonlyMap<string, Snap> | undefined;
    // Snapshots are built only for callers that read them (most compare hashes only), from the
    // state at the end of the replay even if the caller drives `sim` on meanwhile.
    const state = sim.state();
    return {
      sim, violations: [...violations, ...sim.endOfStream()], hashes: sim.hashes(),
      get surfaces() { return (surfaces ??= kit.snapshots(state)); },
    };
  }

  /** The client held `state` (having seen `seen`) when the connection dropped after `delivered`. */
  function reconnectAfter(delivered: readonly unknown[], state: S, seen: readonly V[], reconnect: Reconnect<S>, options: CutOptions<O>): ReplayResult<Sim, V, Snap> {
    // States are immutable: a client started from `state` never changes the caller's.
    const before = kit.create({ ...options, state });
    const tail = [...reconnect({ cutIndex: delivered.length, delivered, state, hashes: before.hashes() })];
    // After a reload the new page knows nothing of the first connection, not even its violations.
    const sim = options.reload === true ? kit.create({ ...options, state: undefined }) : before;
    const violations = options.reload === true ? [] : seen;
    return finish(sim, [...violations, ...sim.applyAll(tail)]);
  }

  const replay = (stream: Iterable<unknown>, options = {} as O): ReplayResult<Sim, V, Snap> => {
    const sim = kit.create(options);
    return finish(sim, sim.applyAll(stream));
  };

  return {
    replay,
    cutAndReconnect(stream, cutIndex, reconnect, options = {} as CutOptions<O>) {
      const at = Math.max(0, Math.min(cutIndex, stream.length));
      const delivered = stream.slice(0, at);
      const before = kit.create(options);
      const seen = before.applyAll(delivered);
      return reconnectAfter(delivered, before.state(), seen, reconnect, options);
    },
    cutAtEveryPoint(stream, reconnect, options = {} as CutOptions<O>) {
      const reference = replay(stream, options).hashes;
      const reports: CutReport<Sim, V, Snap>[] = [];
      const walker = kit.create(options);
      const seen: V[] = [];
      for (let cutIndex = 0; cutIndex <= stream.length; cutIndex += 1) {
        if (cutIndex > 0) seen.push(...walker.apply(stream[cutIndex - 1]));
        const result = reconnectAfter(stream.slice(0, cutIndex), walker.state(), seen.slice(), reconnect, options);
        reports.push({ cutIndex, result, diffs: compareHashes(reference, result.hashes) });
      }
      return reports;
    },
  };
}

const v08 = createDrivers<SimState, Violation, SurfaceSnapshot, ClientSimOptions, ClientSim>({ create: createClientSim, snapshots: snapshotAll });

/** Replays a whole stream on a fresh v0.8 client. */
export const replay = (stream: Iterable<unknown>, options: ClientSimOptions = {}): ReplayResult => v08.replay(stream, options);

export const cutAndReconnect = (stream: readonly unknown[], cutIndex: number, reconnect: Reconnect, options: CutOptions = {}): ReplayResult =>
  v08.cutAndReconnect(stream, cutIndex, reconnect, options);

export const cutAtEveryPoint = (stream: readonly unknown[], reconnect: Reconnect, options: CutOptions = {}): CutReport[] =>
  v08.cutAtEveryPoint(stream, reconnect, options);
