import { Eta } from 'eta';
import type { ComponentDefinition } from '../../app-kit/component.ts';
import type { ComponentBlock, DataValue, Surface } from '../../ui-ir/index.ts';
import { checkedBoundProps } from '../components/bound.ts';
import { checkComponentBlock } from '../components/check.ts';
import { componentView } from '../components/view.ts';

/**
 * An app component on the htmx page: its Eta template (ComponentDefinition.html), auto-escaped
 * like every template here (defineComponent refuses raw output), rendered with
 *
 *   it = { name, props, items, actions, note, ids: { root } }
 *
 * `props`: the literal properties (schema defaults applied) and the bound ones read from the
 * surface's data now (the page is re-rendered on every change), each only if it passes the
 * property's schema (components/bound.ts: one that fails is absent); `items` (a collection): the
 * items a list with its path would show, each `{ key, id, formId, value, buttons }`: `value`
 * holds the fields of the component's item schema, `id` an element id, and each button a
 * `{ name, label, primary }` to render as `<button type="submit" form="<formId>" name="_action"
 * value="<name>">` — the item's form (rendered by the surface, like a list's) posts
 * `{list, item}`, so it works without JavaScript and reaches the same handler as the fallback's.
 * `actions` are the block's item actions (none when the surface takes no actions now).
 */
export interface ComponentItemVm {
  key: string;
  id: string;
  formId: string;
  value: Readonly<Record<string, DataValue>>;
  buttons: ReadonlyArray<{ name: string; label: string; primary: boolean }>;
}

export interface ComponentTemplateData {
  name: string;
  props: Record<string, DataValue>;
  items: ComponentItemVm[];
  actions: ReadonlyArray<{ name: string; label: string; primary: boolean }>;
  note: string;
  ids: { root: string };
}

const eta = new Eta({ autoEscape: true, cache: true, autoTrim: [false, 'nl'] });
const templateNames = new WeakMap<ComponentDefinition, string>();
let counter = 0;

function templateOf(definition: ComponentDefinition): string {
  let name = templateNames.get(definition);
  if (name === undefined) {
    name = `@component-${counter += 1}-${definition.name}`;
    eta.loadTemplate(name, definition.html);
    templateNames.set(definition, name);
  }
  return name;
}

/** The element id of a collection's item form (`ids` are data keys: safe in ids). */
export function componentItemFormId(surfaceId: string, name: string, key: string): string {
  return `surface-${surfaceId}-list-${name}-item-${key}-form`;
}

/**
 * The component's HTML, or undefined when the app cannot show it (unknown, props refused, or
 * its template throws): the caller shows a note instead.
 */
export function renderComponentHtml(surface: Surface, block: ComponentBlock, registry: Parameters<typeof checkComponentBlock>[1], live: boolean): string | undefined {
  const checked = checkComponentBlock(block, registry);
  if (!checked.ok) return undefined;
  const { definition } = checked;
  // Bound values are untrusted data (the model writes /ui): only those passing their schema.
  const props: Record<string, DataValue> = { ...checked.props, ...checkedBoundProps(surface, block, definition) };
  const root = `surface-${surface.id}-component-${block.name}`;
  const actions = live ? block.actions.map((a) => ({ name: a.name, label: a.label, primary: a.primary })) : [];
  let items: ComponentItemVm[] = [];
  let note = '';
  if (block.path !== undefined) {
    const view = componentView(surface, { ...block, path: block.path }, definition);
    note = view.note;
    items = view.items.map((item) => ({
      key: item.key, id: `${root}-item-${item.key}`, formId: componentItemFormId(surface.id, block.name, item.key), value: item.value, buttons: actions,
    }));
  }
  const data: ComponentTemplateData = { name: block.name, props, items, actions, note, ids: { root } };
  try {
    return eta.render(templateOf(definition), data);
  } catch {
    return undefined;
  }
}
