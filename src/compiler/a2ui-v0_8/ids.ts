import { stableId } from '../../ui-ir/index.ts';
import { STANDARD_COMPONENT_TYPES, type A2uiComponentType } from './catalogue.ts';

/**
 * Ids of what the compiler emits.
 *
 * Component ids are `<surfaceId>.<key>[.<role>].<Type>` built with `stableId`: derived from
 * IR structure only, so a recompile of the same IR yields the same ids; they end in the
 * component type, so an id can never change type. Their charset is `[A-Za-z0-9_.-]` (no `:`,
 * which WC uses for template instances, no `/`).
 *
 * WC replaces any component string property equal to a component id by that component
 * (a2ui-v0.8.md §4.4 F13) — including ids that merely linger from an earlier view. So instead of
 * checking against the ids of one view, every string we emit that *could* be one of our ids
 * (matches COMPONENT_ID_SHAPE) is guarded (text.ts), and the validator re-checks the result.
 */
export const COMPONENT_ID_SHAPE = new RegExp(
  `^[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)+\\.(?:${STANDARD_COMPONENT_TYPES.join('|')})$`,
);

export function componentId(surfaceId: string, parts: ReadonlyArray<string | number>, type: A2uiComponentType): string {
  return stableId(surfaceId, ...parts, type);
}

/**
 * The A2UI surface id carries the IR epoch so that a stock renderer echoes it back in every
 * userAction: `<surfaceId>--e<epoch>`, e.g. `main--e0`. IR surface ids match
 * `^[a-z][a-z0-9_-]{0,39}$` and may themselves contain `--e`, so decoding splits at the *last*
 * `--e` followed only by digits (the epoch is canonical decimal: no sign, no leading zeros).
 * Only `[a-z0-9_-]` is used, so the id is also safe in URLs, HTML ids and CSS selectors.
 */
const A2UI_SURFACE_ID = /^([a-z][a-z0-9_-]{0,39})--e(0|[1-9][0-9]{0,15})$/;

export function encodeA2uiSurfaceId(id: string, epoch: number): string {
  if (!/^[a-z][a-z0-9_-]{0,39}$/.test(id)) throw new RangeError(`not an IR surface id: ${JSON.stringify(id)}`);
  if (!Number.isSafeInteger(epoch) || epoch < 0) throw new RangeError(`not an epoch: ${epoch}`);
  return `${id}--e${epoch}`;
}

export function decodeA2uiSurfaceId(a2uiSurfaceId: string): { id: string; epoch: number } | undefined {
  const match = A2UI_SURFACE_ID.exec(a2uiSurfaceId);
  if (!match) return undefined;
  const epoch = Number(match[2]);
  if (!Number.isSafeInteger(epoch)) return undefined;
  return { id: match[1]!, epoch };
}
