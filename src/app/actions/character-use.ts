import { checkedItem, findLiveSurface, itemLabel, openSurface, type ActionDefinition, type DataMap } from '../../index.ts';
import { draftKind } from '../fields.ts';
import { CHARACTER_CARD } from '../templates.ts';
import { templateDraft, templateView } from '../views.ts';
import { EMPTY_CONTEXT } from '../context.ts';

/** The panel the character card opens on. */
const CARD_SURFACE = 'main';

/**
 * character.use (per item): loads a listed character into the character card on `main`: the
 * item's fields that are fields of the card fill its draft (text fields take text, numbers and
 * booleans their kind); what the user saved before on that card stays saved.
 */
export const characterUseAction: ActionDefinition = {
  name: 'character.use',
  scope: 'item',
  description: 'Load a listed character into the character card.',
  contextSchema: () => EMPTY_CONTEXT,
  handle(ir, surface, context, draw) {
    const found = checkedItem(surface, context);
    if (!found.ok) return found;
    const { block, item } = found;
    const existing = findLiveSurface(ir, CARD_SURFACE);
    const same = existing?.view.template === CHARACTER_CARD.name;
    const draft: DataMap = { ...templateDraft(CHARACTER_CARD) };
    for (const field of CHARACTER_CARD.fields) {
      const value = Object.hasOwn(item.value, field.name) ? item.value[field.name] : undefined;
      const kind = draftKind(field.control);
      if (typeof value === kind) draft[field.name] = value!;
    }
    const next = openSurface(ir, {
      id: CARD_SURFACE, view: templateView(CHARACTER_CARD), draft, ...(existing ? { ui: existing.data.ui } : {}),
    }, draw);
    const label = itemLabel(block, item);
    return { ok: true, ir: next, toast: { level: 'success', text: same ? `Loaded ${label} into the character card` : `Opened ${label} in a character card` } };
  },
};
