import { setOwn, type JsonObject } from './json-util.ts';
import { hashSurface, toPlain, type HashOptions } from './serialize.ts';
import type { ComponentInstance, DataMap, SimState, Styles, SurfaceState } from './types.ts';

export interface SurfaceSnapshot {
  readonly surfaceId: string;
  readonly hash: string;
  readonly rendering: boolean;
  readonly root: string | null;
  readonly styles: Styles;
  readonly catalogId: string | null;
  /** Sorted by id. */
  readonly components: Readonly<Record<string, ComponentInstance>>;
  /** Plain JSON (see `toPlain` for the integer-key caveat); `data` keeps the exact Maps. */
  readonly dataModel: JsonObject;
  readonly data: DataMap;
}

export function snapshotSurface(surfaceId: string, surface: SurfaceState): SurfaceSnapshot {
  const components: Record<string, ComponentInstance> = {};
  for (const id of [...surface.components.keys()].sort()) setOwn(components, id, surface.components.get(id));
  return {
    surfaceId,
    hash: hashSurface(surface),
    rendering: surface.rendering,
    root: surface.root,
    styles: surface.styles,
    catalogId: surface.catalogId,
    components,
    dataModel: toPlain(surface.dataModel) as JsonObject,
    data: surface.dataModel,
  };
}

export function snapshotAll(state: SimState): ReadonlyMap<string, SurfaceSnapshot> {
  return new Map([...state.surfaces].map(([id, s]) => [id, snapshotSurface(id, s)]));
}

export function hashAll(state: SimState, options: HashOptions = {}): ReadonlyMap<string, string> {
  return new Map([...state.surfaces].map(([id, s]) => [id, hashSurface(s, options)]));
}
