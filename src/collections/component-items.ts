import type { z } from 'zod';
import { DataKey } from '../ui-ir/index.ts';
import { ITEM_KEY_FIELD } from './items.ts';

/**
 * One item of an app component's collection as the model writes it: the component's item
 * schema, its key in `id`, nothing else (strict). ui.show_component takes its items with it,
 * and ui.list_add / ui.list_update check the items they write to a component with it.
 */
export function componentItemSchema(item: z.ZodObject): z.ZodObject {
  return item.extend({ [ITEM_KEY_FIELD]: DataKey.describe('the item\'s key, unique in the component') }).strict();
}

/** By component name, for the components that show a collection. */
export function componentItemSchemas(components: readonly { readonly name: string; readonly item?: z.ZodObject | undefined }[]): ReadonlyMap<string, z.ZodObject> {
  const out = new Map<string, z.ZodObject>();
  for (const c of components) if (c.item !== undefined) out.set(c.name, componentItemSchema(c.item));
  return out;
}
