import { z } from 'zod';
import type { ComponentDefinition, ComponentRegistry } from '../../app-kit/component.ts';
import { AccessibilityAttributes, DataBinding, DynamicString, DynamicValue } from '../../a2ui-v0_9-protocol/common.ts';
import { COLLECTION_PROPS } from '../../ui-ir/index.ts';
import { cachedAppCatalogSpec } from './app-catalog-spec.ts';
import { ItemActionWire, TABLE_COMPONENT, TableComponentWire } from './table-component.ts';

/**
 * What the v0.9 semantic validator (and ClientSim v0.9) know of an app catalogue: its id and,
 * per component of the app catalogue not in the basic one (the app's and Surfacer's `Table`), the zod schema of the whole wire component (`{id, component, …props}`),
 * strict like the basic catalogue's. Built from the definitions — the same schemas the catalogue
 * document is generated from: a literal property must pass the component's own zod schema; a
 * bindable one may instead be a `{path}` binding; a collection's `items` is a binding, its
 * `itemActions` buttons' actions are A2UI actions.
 */
export interface AppCatalogV09 {
  catalogId: string;
  components: ReadonlyMap<string, z.ZodType>;
}

/** `field` without its optional wrapper (a bindable property is optional: absent when bound). */
function required(field: z.ZodType): z.ZodType {
  return field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
}


export function wireSchemaV09(definition: ComponentDefinition): z.ZodType {
  const bindable = new Set<string>(definition.bindable ?? []);
  const shape: Record<string, z.ZodType> = {
    id: z.string(),
    component: z.literal(definition.name),
    accessibility: AccessibilityAttributes.optional(),
    weight: z.number().optional(),
  };
  for (const [key, field] of Object.entries(definition.props.shape as Record<string, z.ZodType>)) {
    shape[key] = bindable.has(key) ? z.union([required(field), DataBinding]).optional() : field;
  }
  if (definition.item !== undefined) {
    shape[COLLECTION_PROPS.items] = DynamicValue;
    shape[COLLECTION_PROPS.note] = DynamicString.optional();
    shape[COLLECTION_PROPS.itemActions] = z.array(ItemActionWire).max(4).optional();
  }
  return z.strictObject(shape);
}

export const appCatalogSpecV09: (registry: ComponentRegistry, catalogId: string) => AppCatalogV09 = cachedAppCatalogSpec(
  wireSchemaV09, new Map([[TABLE_COMPONENT, TableComponentWire]]),
);
