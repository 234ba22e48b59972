import { createHash } from 'node:crypto';
import { canonicalJson } from '../serialize.ts';
import { buildTreeV09 } from './tree.ts';
import type { SurfaceStateV09 } from './types.ts';

/**
 * How a v0.9 surface is hashed (canonical JSON → SHA-256, as for v0.8). `sortDataKeys`: compare
 * data objects as key sets (a server reaches one state along different paths: an update appends
 * a new key where a fresh init writes it in IR order; arrays keep their order). `reachableOnly`:
 * only the components the rendered tree reaches (v0.9 has no way to remove a component, so after
 * updates a client keeps ones a fresh init never sends; nothing renders them).
 */
export interface HashOptionsV09 {
  readonly sortDataKeys?: boolean;
  readonly reachableOnly?: boolean;
}

function ordered(value: unknown, sort: boolean): unknown {
  if (value === undefined) return { undefined: true };
  if (Array.isArray(value)) return { array: Array.from(value, (v: unknown) => ordered(v, sort)) };
  if (typeof value === 'object' && value !== null) {
    const pairs = Object.entries(value).map(([k, v]): [string, unknown] => [k, ordered(v, sort)]);
    return { object: sort ? pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : pairs };
  }
  return value;
}

/** Canonical surface text: catalogue, theme, sendDataModel, components by id, the data model. */
export function canonicalSurfaceV09(surface: SurfaceStateV09, options: HashOptionsV09 = {}): string {
  const reached = options.reachableOnly === true ? new Set(buildTreeV09(surface).nodes.map((n) => n.id)) : undefined;
  const ids = [...surface.components.keys()].filter((id) => reached === undefined || reached.has(id)).sort();
  return canonicalJson({
    catalogId: surface.catalogId,
    theme: surface.theme,
    sendDataModel: surface.sendDataModel,
    components: ids.map((id) => {
      const c = surface.components.get(id)!;
      return [id, c.type, c.properties];
    }),
    dataModel: ordered(surface.dataModel, options.sortDataKeys === true),
  });
}

export function hashSurfaceV09(surface: SurfaceStateV09, options: HashOptionsV09 = {}): string {
  return createHash('sha256').update(canonicalSurfaceV09(surface, options)).digest('hex');
}
