import { z } from 'zod';

/** What the collection directives' payloads share (ui.show_list, ui.show_component). */

/** A title or button label a model writes. */
export const Label = z.string().min(1).max(200);

/**
 * The payload's `actions`: buttons on every item, each naming one of the app's item actions (so
 * the model's JSON Schema lists exactly those). None when the app has no item action: the field
 * is then not in the schema at all.
 */
export function itemActionsShape(itemActions: readonly string[]) {
  const names = [...new Set(itemActions)];
  if (names.length === 0) return {};
  const ItemAction = z.object({
    name: z.enum(names as [string, ...string[]]).describe('one of the app\'s item actions'),
    label: Label.describe('button label'),
    primary: z.boolean().optional(),
  }).strict();
  return { actions: z.array(ItemAction).max(4).optional().describe('a button on every item; its action gets the item') };
}
