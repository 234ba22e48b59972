import { createDrivers } from '../drivers.ts';
import { hashSurfaceV09, type HashOptionsV09 } from './serialize.ts';
import { applyMessageV09, endOfStreamV09, initialStateV09, type StateOptionsV09 } from './state-machine.ts';
import { buildTreeV09, type TreeV09 } from './tree.ts';
import type { ActionMessageV09, SimStateV09, SurfaceStateV09, ViolationV09 } from './types.ts';
import { clickItemActionV09, clickV09, EPOCH_CLOCK, inputV09, setValueV09, type ClickResultV09, type Clock } from './user.ts';

export interface ClientSimV09Options extends StateOptionsV09 {
  /** Time source for action timestamps; default: the Unix epoch, so runs are reproducible. */
  readonly clock?: Clock;
  /** The `version` of the action messages it sends (default v0.9). */
  readonly version?: ActionMessageV09['version'];
  /** Start from an existing state (e.g. to fork a run). */
  readonly state?: SimStateV09 | undefined;
  /** Default for `hash`/`hashes`, and so for the drivers' comparisons. */
  readonly hash?: HashOptionsV09;
}

/** What `surfaces()` reports per surface (plain data, for the CLI and tests). */
export interface SurfaceSnapshotV09 {
  readonly surfaceId: string;
  readonly hash: string;
  readonly catalogId: string;
  readonly rendering: boolean;
  readonly components: Readonly<Record<string, { type: string; properties: Readonly<Record<string, unknown>> }>>;
  readonly dataModel: unknown;
  readonly tree: TreeV09;
}

export function snapshotSurfaceV09(surfaceId: string, surface: SurfaceStateV09, options?: HashOptionsV09): SurfaceSnapshotV09 {
  const components: Record<string, { type: string; properties: Readonly<Record<string, unknown>> }> = {};
  for (const id of [...surface.components.keys()].sort()) {
    const c = surface.components.get(id)!;
    Object.defineProperty(components, id, { value: { type: c.type, properties: c.properties }, enumerable: true });
  }
  return {
    surfaceId, hash: hashSurfaceV09(surface, options), catalogId: surface.catalogId, rendering: surface.components.has('root'),
    components, dataModel: surface.dataModel, tree: buildTreeV09(surface),
  };
}

export function snapshotAllV09(state: SimStateV09): ReadonlyMap<string, SurfaceSnapshotV09> {
  return new Map([...state.surfaces].map(([id, s]) => [id, snapshotSurfaceV09(id, s)]));
}

export interface ClientSimV09 {
  apply(message: unknown): ViolationV09[];
  applyAll(messages: Iterable<unknown>): ViolationV09[];
  /** Surfaces without a root, placeholders that stay; call when the stream ends. */
  endOfStream(): ViolationV09[];
  state(): SimStateV09;
  surfaces(): ReadonlyMap<string, SurfaceSnapshotV09>;
  surface(surfaceId: string): SurfaceSnapshotV09 | undefined;
  hash(surfaceId: string, options?: HashOptionsV09): string | undefined;
  hashes(options?: HashOptionsV09): ReadonlyMap<string, string>;
  setValue(surfaceId: string, path: string, value: unknown): ViolationV09[];
  input(surfaceId: string, componentId: string, value: unknown): ViolationV09[];
  /** `dataPath` picks one instance of a list template's button (its item's path); default the first. */
  click(surfaceId: string, componentId: string, clock?: Clock, dataPath?: string): ClickResultV09;
  /** Item button `action` of item `item` of app component `componentId` (clickItemActionV09). */
  clickItemAction(surfaceId: string, componentId: string, item: number, action: number, clock?: Clock): ClickResultV09;
}

/** A mutable handle over the pure v0.9 state machine; every method is a pure step underneath. */
export function createClientSimV09(options: ClientSimV09Options = {}): ClientSimV09 {
  let state = options.state ?? initialStateV09();
  const step = (result: { state: SimStateV09; violations: ViolationV09[] }): ViolationV09[] => {
    state = result.state;
    return result.violations;
  };
  const hashes = (hashOptions?: HashOptionsV09): ReadonlyMap<string, string> =>
    new Map([...state.surfaces].map(([id, s]) => [id, hashSurfaceV09(s, hashOptions ?? options.hash)]));
  return {
    apply: (message) => step(applyMessageV09(state, message, options)),
    applyAll(messages) {
      const out: ViolationV09[] = [];
      for (const message of messages) out.push(...step(applyMessageV09(state, message, options)));
      return out;
    },
    endOfStream: () => endOfStreamV09(state),
    state: () => state,
    surfaces: () => snapshotAllV09(state),
    surface(surfaceId) {
      const surface = state.surfaces.get(surfaceId);
      return surface === undefined ? undefined : snapshotSurfaceV09(surfaceId, surface, options.hash);
    },
    hash(surfaceId, hashOptions) {
      const surface = state.surfaces.get(surfaceId);
      return surface === undefined ? undefined : hashSurfaceV09(surface, hashOptions ?? options.hash);
    },
    hashes,
    setValue: (surfaceId, path, value) => step(setValueV09(state, surfaceId, path, value)),
    input: (surfaceId, componentId, value) => step(inputV09(state, surfaceId, componentId, value)),
    clickItemAction: (surfaceId, componentId, item, action, clock) => clickItemActionV09(state, surfaceId, componentId, {
      clock: clock ?? options.clock ?? EPOCH_CLOCK, item, action, ...(options.version === undefined ? {} : { version: options.version }),
    }),
    click: (surfaceId, componentId, clock, dataPath) => clickV09(state, surfaceId, componentId, {
      clock: clock ?? options.clock ?? EPOCH_CLOCK, ...(options.version === undefined ? {} : { version: options.version }),
      ...(dataPath === undefined ? {} : { dataPath }),
    }),
  };
}

/** The shared drivers (replay, cut and reconnect) over ClientSim v0.9. */
export const driversV09 = createDrivers<SimStateV09, ViolationV09, SurfaceSnapshotV09, ClientSimV09Options, ClientSimV09>({
  create: createClientSimV09, snapshots: snapshotAllV09,
});
