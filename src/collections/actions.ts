import { z } from 'zod';
import { makeError } from '../errors/index.ts';
import type { ActionDefinition } from '../ingress/index.ts';
import {
  appendTranscript, findListBlock, writeListItems, type CollectionBlock, type ConversationIr, type ListItem, type Surface, type TransitionResult,
} from '../ui-ir/index.ts';
import { itemLabel, storedItems } from './items.ts';

/**
 * Generic per-item actions (`scope: 'item'`) an app may register for its lists. Ingress has
 * already checked that the surface is current and shows the item (src/ingress/check.ts), and
 * hands over `context.list` and `context.item`.
 *
 *   list.choose   tells the assistant which item the user picked: a user message in the
 *                 transcript (the next turn reads it), and a toast; the list stays as it is
 *   list.remove   removes the item from its list (a new rev: other buttons of the old
 *                 rendering are stale)
 */
const NO_VALUES = z.object({}) as unknown as z.ZodType<Record<string, unknown>>;

export type Found = { ok: true; block: CollectionBlock; item: ListItem } | Extract<TransitionResult, { ok: false }>;

/**
 * The item of a per-item action (`context.list`, `context.item`, checked by ingress), re-read
 * here so a handler never trusts its caller blindly; for any app's item actions.
 */
export function checkedItem(surface: Surface, context: Record<string, unknown>): Found {
  const block = typeof context.list === 'string' ? findListBlock(surface.view, context.list) : undefined;
  const item = block === undefined ? undefined : storedItems(surface, block).items.find((i) => i.key === context.item);
  if (block === undefined || item === undefined) {
    return { ok: false, error: makeError('A2UI_C2S_ITEM_UNKNOWN', `no item ${JSON.stringify(context.item)} in list ${JSON.stringify(context.list)}`) };
  }
  return { ok: true, block, item };
}

export const listChooseAction: ActionDefinition = {
  name: 'list.choose',
  scope: 'item',
  description: 'Choose an item of a list: the assistant is told which one.',
  contextSchema: () => NO_VALUES,
  handle(ir: ConversationIr, surface, context, draw) {
    const found = checkedItem(surface, context);
    if (!found.ok) return found;
    const label = itemLabel(found.block, found.item);
    const from = (found.block.kind !== 'component' ? found.block.title : undefined) ?? surface.view.title;
    const text = `I choose “${label}” (${found.item.key}) from ${from}.`;
    return { ok: true, ir: appendTranscript(ir, { role: 'user', text }, draw), toast: { level: 'success', text: `Chosen: ${label}` } };
  },
};

export const listRemoveAction: ActionDefinition = {
  name: 'list.remove',
  scope: 'item',
  description: 'Remove an item from its list.',
  contextSchema: () => NO_VALUES,
  handle(ir, surface, context, draw) {
    const found = checkedItem(surface, context);
    if (!found.ok) return found;
    const { raw } = storedItems(surface, found.block);
    const written = writeListItems(ir, surface.id, found.block.name, raw.filter((_, i) => i !== found.item.index), draw);
    return written.ok ? { ok: true, ir: written.ir, toast: { level: 'info', text: `Removed ${itemLabel(found.block, found.item)}` } } : written;
  },
};

export const LIST_ACTIONS: readonly ActionDefinition[] = [listChooseAction, listRemoveAction];
