import { hashSurface, type HashOptions } from './serialize.ts';
import { hashAll, snapshotAll, snapshotSurface, type SurfaceSnapshot } from './snapshot.ts';
import { applyMessage, endOfStream, initialState, stuckBuffering, type AppCatalogSim } from './state-machine.ts';
import type { Clock, SimState, Violation } from './types.ts';
import { click, EPOCH_CLOCK, input, setValue, type ClickResult } from './user.ts';

export interface ClientSimOptions {
  /** The app catalogue the client also holds: its components are validated by their schemas. */
  readonly appCatalog?: AppCatalogSim;
  /** Time source for userAction timestamps; default: the Unix epoch, so runs are reproducible. */
  readonly clock?: Clock;
  /** Map values in click contexts: entries as an object (default) or `{}` like bare JSON.stringify. */
  readonly mapsInContext?: 'object' | 'empty';
  /** Start from an existing state (e.g. to fork a run). */
  readonly state?: SimState;
  /**
   * Default for `hash`/`hashes`, and so for the drivers' comparisons (replay, cutAtEveryPoint).
   * `{ sortDataKeys: true, reachableOnly: true }` compares states reached along different server
   * paths (incremental updates vs a fresh init); see HashOptions.
   */
  readonly hash?: HashOptions;
}

export interface ClientSim {
  apply(message: unknown): Violation[];
  applyAll(messages: Iterable<unknown>): Violation[];
  /** Stuck buffering and never-defined roots; call when the stream ends. */
  endOfStream(): Violation[];
  state(): SimState;
  surfaces(): ReadonlyMap<string, SurfaceSnapshot>;
  surface(surfaceId: string): SurfaceSnapshot | undefined;
  hash(surfaceId: string, options?: HashOptions): string | undefined;
  hashes(options?: HashOptions): ReadonlyMap<string, string>;
  stuckBuffering(): string[];
  setValue(surfaceId: string, path: string, value: unknown): Violation[];
  input(surfaceId: string, componentId: string, value: unknown): Violation[];
  click(surfaceId: string, componentId: string, clock?: Clock): ClickResult;
}

/** A mutable handle over the pure state machine; every method is a pure step underneath. */
export function createClientSim(options: ClientSimOptions = {}): ClientSim {
  let state = options.state ?? initialState();
  const defaultClock = options.clock ?? EPOCH_CLOCK;
  const step = (result: { state: SimState; violations: Violation[] }): Violation[] => {
    state = result.state;
    return result.violations;
  };
  return {
    apply: (message) => step(applyMessage(state, message, options.appCatalog)),
    applyAll(messages) {
      const out: Violation[] = [];
      for (const message of messages) out.push(...step(applyMessage(state, message, options.appCatalog)));
      return out;
    },
    endOfStream: () => endOfStream(state),
    state: () => state,
    surfaces: () => snapshotAll(state),
    surface(surfaceId) {
      const surface = state.surfaces.get(surfaceId);
      return surface === undefined ? undefined : snapshotSurface(surfaceId, surface);
    },
    hash(surfaceId, hashOptions) {
      const surface = state.surfaces.get(surfaceId);
      return surface === undefined ? undefined : hashSurface(surface, hashOptions ?? options.hash);
    },
    hashes: (hashOptions) => hashAll(state, hashOptions ?? options.hash),
    stuckBuffering: () => stuckBuffering(state),
    setValue: (surfaceId, path, value) => step(setValue(state, surfaceId, path, value)),
    input: (surfaceId, componentId, value) => step(input(state, surfaceId, componentId, value)),
    click: (surfaceId, componentId, clock) =>
      click(state, surfaceId, componentId, { clock: clock ?? defaultClock, mapsAs: options.mapsInContext ?? 'object' }),
  };
}
