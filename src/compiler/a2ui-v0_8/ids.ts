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
