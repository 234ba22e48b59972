import { z } from 'zod';
import type { NormaliseContext } from '../directives/index.ts';
import {
  DataKey, getAt, isPlainObject, isSafeDataKey, listItems, pathTokens, type CollectionBlock, type CollectionSource, type DataValue, type ListItem, type Surface,
} from '../ui-ir/index.ts';

/**
 * Items as the list directives take them, and the budgets they are held to. An item is a flat
 * map: `id` (its key) and the fields the list shows, each a string, number or boolean. A map
 * rather than an object with fixed keys because the fields are the model's choice; strict-mode
 * schemas write it as entries (src/llm/strict-schema.ts).
 */
export const ITEM_KEY_FIELD = 'id';

export const ItemValue = z.union([z.string().max(1000), z.number().finite(), z.boolean()]);

export const ListItemInput = z.record(DataKey, ItemValue)
  .refine((item) => typeof item[ITEM_KEY_FIELD] === 'string' && isSafeDataKey(item[ITEM_KEY_FIELD]), {
    message: `every item needs an "${ITEM_KEY_FIELD}": letters, digits, "_" or "-" (at most 64)`, path: [ITEM_KEY_FIELD],
  })
  .describe(`one item: {"${ITEM_KEY_FIELD}": "<key>", "<field>": text, number or true/false, …}`);
export type ListItemInput = z.infer<typeof ListItemInput>;

/** Adds an issue per repeated id (`at`: where the list of items is in the payload). */
export function uniqueIds(items: readonly { [key: string]: unknown }[], at: string, ctx: z.RefinementCtx): void {
  const seen = new Set<unknown>();
  items.forEach((item, i) => {
    const id = item[ITEM_KEY_FIELD];
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [at, i, ITEM_KEY_FIELD], message: `id "${String(id)}" appears twice` });
    seen.add(id);
  });
}

/** Models often number their items: an integer id becomes its text (with a warning). */
export function normaliseItemIds(items: unknown, pointer: string, ctx: NormaliseContext): unknown {
  if (!Array.isArray(items)) return items;
  return items.map((item, i) => {
    if (!isPlainObject(item) || !Object.hasOwn(item, ITEM_KEY_FIELD)) return item;
    const id = item[ITEM_KEY_FIELD];
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) return item;
    ctx.warn('DIRECTIVE_WARN_COERCED', `${pointer}/${i}/${ITEM_KEY_FIELD}`, `id ${id} read as "${id}"`);
    return { ...item, [ITEM_KEY_FIELD]: String(id) };
  });
}

/** The stored array of a list (anything else at its path counts as no items), and its valid items. */
export function storedItems(surface: Pick<Surface, 'data'>, block: CollectionSource): { raw: readonly DataValue[]; items: readonly ListItem[] } {
  const raw = getAt(surface.data, pathTokens(block.path));
  return { raw: Array.isArray(raw) ? raw as DataValue[] : [], items: listItems(surface, block).items };
}

/**
 * What names an item to a person: its first text shown, else its key. An app component's item
 * shows what its template decides: its first non-empty text field other than the key stands in.
 * A table row: its first non-empty text column.
 */
export function itemLabel(block: CollectionBlock, item: ListItem): string {
  if (block.kind === 'component') {
    for (const [field, v] of Object.entries(item.value)) {
      if (field !== block.itemKey && typeof v === 'string' && v.trim() !== '') return v.slice(0, 200);
    }
    return item.key;
  }
  if (block.kind === 'table') {
    for (const c of block.columns) {
      if (c.type !== 'text') continue;
      const v = Object.hasOwn(item.value, c.key) ? item.value[c.key] : undefined;
      if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number') return String(v).slice(0, 200);
    }
    return item.key;
  }
  for (const d of block.display) {
    if (d.kind !== 'text') continue;
    const v = Object.hasOwn(item.value, d.field) ? item.value[d.field] : undefined;
    if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number') return String(v).slice(0, 200);
  }
  return item.key;
}
