import type { z } from 'zod';
import type { ComponentDefinition } from '../../app-kit/component.ts';
import { listItems, type ComponentBlock, type DataValue, type Surface } from '../../ui-ir/index.ts';

/**
 * What an app component that shows a collection gets, the same for every compiler (A2UI v0.8,
 * v0.9 and HTML): the items a list with its path, itemKey and maxItems shows (ui-ir/collections.ts
 * decides, as for ingress), each `{key, …fields}` keeping only the fields of the component's
 * `item` schema whose value passes that field's schema (an ill-typed field is left out, as a list
 * shows nothing for a missing one), and the note a list would show under them.
 */
export const COMPONENT_ITEM_KEY = 'key';

export interface ComponentItem {
  readonly key: string;
  readonly value: Readonly<Record<string, DataValue>>;
}

export interface ComponentView {
  readonly items: readonly ComponentItem[];
  readonly note: string;
}

/** The /view key of a component's data (name-based, like a list's `l-<name>`): its collection and bound values. */
export function componentDataKey(block: Pick<ComponentBlock, 'name'>): string {
  return `c-${block.name}`;
}

/**
 * Where an A2UI client reads a bound property: under the component's /view data, which holds
 * the value the block binds only if it passes the property's schema (bound.ts), never the raw
 * path the block names (the model writes /ui; a renderer would resolve it unchecked).
 */
export const COMPONENT_BOUND_KEY = 'bound';
export function componentBoundPath(block: Pick<ComponentBlock, 'name'>, property: string): string {
  return `/view/${componentDataKey(block)}/${COMPONENT_BOUND_KEY}/${property}`;
}

/** Whether a component block has data under /view (a collection, or bound properties). */
export function hasComponentData(block: Pick<ComponentBlock, 'path' | 'bind'>): boolean {
  return block.path !== undefined || Object.keys(block.bind).length > 0;
}

const EMPTY_NOTE = 'Nothing to show yet.';

export function componentView(surface: Pick<Surface, 'data'>, block: ComponentBlock & { path: string }, definition: ComponentDefinition): ComponentView {
  const { items, shown } = listItems(surface, block);
  const shape = (definition.item?.shape ?? {}) as Record<string, z.ZodType>;
  const fields = Object.entries(shape);
  return {
    items: shown.map((item) => {
      const value: Record<string, DataValue> = {};
      for (const [field, schema] of fields) {
        if (!Object.hasOwn(item.value, field)) continue;
        const v = item.value[field]!;
        if (schema.safeParse(v).success) value[field] = v;
      }
      return { key: item.key, value };
    }),
    note: items.length === 0 ? EMPTY_NOTE : shown.length < items.length ? `Showing ${shown.length} of ${items.length}.` : '',
  };
}
