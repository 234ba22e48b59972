import { z } from 'zod';
import { makeError } from '../errors/index.ts';
import { DEFAULT_LIMITS, itemBudget, type DirectiveDefinition, type NormaliseContext } from '../directives/index.ts';
import {
  DataKey, findListBlock, findLiveSurface, isPlainObject, ListBlock, MAX_LIST_ITEMS, openSurface, panelFor, SurfaceId, writeListItems,
  type Block, type CollectionBlock, type ConversationIr, type DataMap, type ListItemDisplay, type SurfaceView, type TransitionResult,
} from '../ui-ir/index.ts';
import type { PlaceableComponent } from './component-directive.ts';
import { componentItemSchemas } from './component-items.ts';
import {
  ITEM_KEY_FIELD, ListItemInput, normaliseItemIds, storedItems, uniqueIds,
} from './items.ts';
import { itemActionsShape, Label } from './payload.ts';

/**
 * The generic list directives any app can register (design: docs/a2ui.md "Collections"):
 *
 *   ui.show_list    open a panel showing a list (title, fields, per-item actions, items)
 *   ui.list_add     add items to a list, by new keys
 *   ui.list_update  change fields of items, by key
 *   ui.list_remove  remove items, by key
 *
 * A list a directive shows keeps its items at `/ui/lists/<name>` (presentation state the model
 * owns); lists under `/committed` are the app's and stay read-only to directives. Per-item
 * actions are names from the app's item actions (`scope: 'item'`), so the model's JSON Schema
 * lists exactly those. Budgets: DirectiveLimits.maxListItems and maxListItemBytes.
 */
export interface ListDirectiveOptions {
  /** Names of the app's item actions (its action registry's `scope: 'item'` definitions). */
  itemActions: readonly string[];
  /**
   * The app's components (defineComponent definitions, as given to defineApp and
   * createComponentDirective). ui.list_add and ui.list_update check items they write to a
   * component's collection with its item schema, as ui.show_component does; a component not
   * named here cannot be written by them (DIRECTIVE_LIST_UNKNOWN).
   */
  components?: readonly Pick<PlaceableComponent, 'name' | 'item'>[];
  /** The panel a directive targets when it names none. */
  defaultSurface?: string;
}

const SHOW = ['title', 'text', 'caption', 'value', 'image', 'badge'] as const;
const DEFAULT_LIST = 'items';
const DEFAULT_EMPTY = 'Nothing to show yet.';
const DEFAULT_SHOWN = 25;

const ShowField = z.object({
  name: DataKey.describe('the item field to show'),
  show: z.enum(SHOW).optional().describe('how: title | text | caption | value (with its label) | image (an http(s) URL) | badge; default text'),
  label: Label.optional().describe('the label beside it, for show "value"'),
}).strict();

const ListName = DataKey.describe(`the list's name on its panel; default "${DEFAULT_LIST}"`);

function display(field: z.infer<typeof ShowField>): ListItemDisplay {
  switch (field.show ?? 'text') {
    case 'title': return { kind: 'text', field: field.name, style: 'title' };
    case 'caption': return { kind: 'text', field: field.name, style: 'caption' };
    case 'value': return { kind: 'value', field: field.name, label: field.label ?? field.name };
    case 'image': return { kind: 'image', field: field.name, alt: field.label ?? '' };
    case 'badge': return { kind: 'badge', field: field.name };
    default: return { kind: 'text', field: field.name, style: 'body' };
  }
}

/** `fields: ["name", "tagline"]` → objects (a shorthand models use), with a warning each. */
function normaliseFields(fields: unknown, ctx: NormaliseContext): unknown {
  if (!Array.isArray(fields)) return fields;
  return fields.map((f, i) => {
    if (typeof f !== 'string') return f;
    ctx.warn('DIRECTIVE_WARN_COERCED', `/fields/${i}`, `"${f}" read as {"name": "${f}"}`);
    return { name: f };
  });
}

function withPayload(payload: unknown, fix: (p: Record<string, unknown>) => Record<string, unknown>): unknown {
  return isPlainObject(payload) ? fix({ ...payload }) : payload;
}

/** The `items` of a payload: integer ids read as text. */
function normaliseItems(payload: unknown, ctx: NormaliseContext): unknown {
  return withPayload(payload, (p) => {
    if (Object.hasOwn(p, 'items')) p.items = normaliseItemIds(p.items, '/items', ctx);
    return p;
  });
}

function fail(code: 'DIRECTIVE_LIST_UNKNOWN' | 'DIRECTIVE_LIST_ITEM_INVALID' | 'DIRECTIVE_SURFACE_UNKNOWN' | 'DIRECTIVE_COMMITTED_READONLY' | 'DIRECTIVE_PAYLOAD_INVALID',
  pointer: string, detail: string): TransitionResult {
  return { ok: false, error: makeError(code, detail, { pointer }) };
}

/** The live surface and its list named `list`, writable by a directive (not under /committed). */
function target(ir: ConversationIr, surfaceId: string, list: string):
  { ok: true; surface: NonNullable<ReturnType<typeof findLiveSurface>>; block: CollectionBlock } | Extract<TransitionResult, { ok: false }> {
  const surface = findLiveSurface(ir, surfaceId);
  if (surface === undefined) return fail('DIRECTIVE_SURFACE_UNKNOWN', '/surface', `no open surface "${surfaceId}"`) as Extract<TransitionResult, { ok: false }>;
  const block = findListBlock(surface.view, list);
  if (block === undefined) return fail('DIRECTIVE_LIST_UNKNOWN', '/list', `surface "${surfaceId}" shows no list "${list}"`) as Extract<TransitionResult, { ok: false }>;
  if (block.path.startsWith('/committed/')) {
    return fail('DIRECTIVE_COMMITTED_READONLY', '/list', `list "${list}" keeps its items in ${block.path}, which only the app writes`) as Extract<TransitionResult, { ok: false }>;
  }
  return { ok: true, surface, block };
}

export function createListDirectives(options: ListDirectiveOptions): DirectiveDefinition<any>[] {
  const defaultSurface = options.defaultSurface ?? 'main';
  const itemSchemas = componentItemSchemas(options.components ?? []);
  /**
   * Items about to be stored in `block`: a component's must pass its item schema (its template,
   * element and fallback read them), a list's are the model's choice (ListItemInput checked them).
   */
  const refused = (block: CollectionBlock, items: readonly Record<string, unknown>[], pointer: (i: number) => string): TransitionResult | undefined => {
    if (block.kind !== 'component') return undefined;
    const schema = itemSchemas.get(block.component);
    if (schema === undefined) return fail('DIRECTIVE_LIST_UNKNOWN', '/list', `"${block.name}" is a ${block.component}, whose items these list directives cannot check`);
    for (const [i, item] of items.entries()) {
      const parsed = schema.safeParse(item);
      if (parsed.success) continue;
      const issue = parsed.error.issues[0];
      const field = issue?.path[0] ?? (issue?.code === 'unrecognized_keys' ? issue.keys[0] : undefined);
      return fail('DIRECTIVE_PAYLOAD_INVALID', `${pointer(i)}${field === undefined ? '' : `/${String(field)}`}`,
        `not an item of ${block.component}: ${issue?.message ?? 'invalid'}`);
    }
    return undefined;
  };
  /** The list a payload names, with what it stores. */
  const located = (ir: ConversationIr, p: { surface?: string | undefined; list?: string | undefined }) => {
    const found = target(ir, p.surface ?? defaultSurface, p.list ?? DEFAULT_LIST);
    return found.ok ? { ...found, ...storedItems(found.surface, found.block) } : found;
  };
  const Surface = SurfaceId.describe(`surface id; default "${defaultSurface}"`);
  const names = [...new Set(options.itemActions)];

  const ShowListPayload = z.object({
    surface: Surface.optional(),
    list: ListName.optional(),
    title: Label.describe('panel title'),
    intro: z.string().min(1).max(1000).optional().describe('a sentence shown above the list'),
    fields: z.array(ShowField).min(1).max(8).describe('what each item shows, in order'),
    ...itemActionsShape(names),
    items: z.array(ListItemInput).describe(`the items, in order (at most ${DEFAULT_LIMITS.maxListItems} by default)`),
    empty: z.string().max(300).optional().describe(`shown when there is no item; default "${DEFAULT_EMPTY}"`),
    max_shown: z.number().int().min(1).max(MAX_LIST_ITEMS).optional().describe(`items shown before "Showing n of m."; default ${DEFAULT_SHOWN}`),
  }).strict().superRefine((p, ctx) => {
    uniqueIds(p.items, 'items', ctx);
    const actions = (p as { actions?: { name: string }[] }).actions ?? [];
    if (new Set(actions.map((a) => a.name)).size !== actions.length) ctx.addIssue({ code: 'custom', path: ['actions'], message: 'an action appears twice' });
  });
  type ShowListPayload = z.infer<typeof ShowListPayload> & { actions?: { name: string; label: string; primary?: boolean }[] };

  const showList: DirectiveDefinition<ShowListPayload> = {
    type: 'ui.show_list',
    aliases: ['show_list', 'ui.list', 'list', 'ui.showList', 'ui.show_items', 'show_items'],
    description: 'Open a panel with a list of items (search results, options to choose from, saved things), each with the fields '
      + 'you name and the buttons of the item actions you pick. Replaces what the panel showed, unless it holds a form: then it opens beside it.',
    payload: ShowListPayload as unknown as z.ZodType<ShowListPayload>,
    example: {
      title: 'Options', list: 'options', fields: [{ name: 'name', show: 'title' }, { name: 'note' }],
      ...(names.length === 0 ? {} : { actions: [{ name: names[0]!, label: 'Choose', primary: true }] }),
      items: [{ id: 'a', name: 'First option', note: 'The quick one' }, { id: 'b', name: 'Second option', note: 'The thorough one' }],
    } as ShowListPayload,
    normalise: (payload, ctx) => normaliseItems(withPayload(payload, (p) => {
      if (Object.hasOwn(p, 'fields')) p.fields = normaliseFields(p.fields, ctx);
      return p;
    }), ctx),
    apply(ir, p, draw, context) {
      const limits = context?.limits ?? DEFAULT_LIMITS;
      const over = itemBudget(p.items, p.items.length, limits, '/items');
      if (over !== undefined) return { ok: false, error: over };
      const name = p.list ?? DEFAULT_LIST;
      const block: ListBlock = {
        kind: 'list', name, path: `/ui/lists/${name}`, itemKey: ITEM_KEY_FIELD, display: p.fields.map(display),
        actions: (p.actions ?? []).map((a) => ({ name: a.name, label: a.label, primary: a.primary ?? false })),
        empty: p.empty ?? DEFAULT_EMPTY, maxItems: p.max_shown ?? DEFAULT_SHOWN,
      };
      const blocks: Block[] = p.intro === undefined ? [block] : [{ kind: 'text', text: p.intro, tone: 'body' }, block];
      const view: SurfaceView = { template: 'list', title: p.title, blocks, actions: [] };
      const id = panelFor(ir, p.surface ?? defaultSurface, view);
      const existing = findLiveSurface(ir, id);
      const { lists: _lists, ...ui } = existing?.data.ui ?? {};
      const next = openSurface(ir, { id, view, draft: {}, ui: { ...ui, lists: { [name]: p.items } } as DataMap }, draw);
      return { ok: true, ir: next };
    },
  };

  const ListAddPayload = z.object({
    surface: Surface.optional(),
    list: ListName.optional(),
    items: z.array(ListItemInput).min(1).describe('new items (ids not in the list yet)'),
    at: z.enum(['end', 'start']).optional().describe('where they go; default end'),
  }).strict().superRefine((p, ctx) => uniqueIds(p.items, 'items', ctx));
  type ListAddPayload = z.infer<typeof ListAddPayload>;

  const listAdd: DirectiveDefinition<ListAddPayload> = {
    type: 'ui.list_add',
    aliases: ['list_add', 'ui.add_items', 'add_items', 'ui.listAdd', 'ui.append_items', 'append_items'],
    description: 'Add items to a list shown by ui.show_list.',
    payload: ListAddPayload,
    example: { list: 'options', items: [{ id: 'c', name: 'Third option', note: 'The cheap one' }] },
    normalise: normaliseItems,
    apply(ir, p, draw, context) {
      const found = located(ir, p);
      if (!found.ok) return found;
      const { raw, items } = found;
      const known = new Set(items.map((i) => i.key));
      const clash = p.items.findIndex((item) => known.has(item[ITEM_KEY_FIELD] as string));
      if (clash >= 0) return fail('DIRECTIVE_LIST_ITEM_INVALID', `/items/${clash}/${ITEM_KEY_FIELD}`, `the list already has an item "${String(p.items[clash]![ITEM_KEY_FIELD])}"`);
      const over = itemBudget(p.items, items.length + p.items.length, context?.limits ?? DEFAULT_LIMITS, '/items', found.block.kind === 'table');
      if (over !== undefined) return { ok: false, error: over };
      const bad = refused(found.block, p.items, (i) => `/items/${i}`);
      if (bad !== undefined) return bad;
      const next = p.at === 'start' ? [...p.items, ...raw] : [...raw, ...p.items];
      return writeListItems(ir, found.surface.id, found.block.name, next, draw);
    },
  };

  const ListUpdatePayload = z.object({
    surface: Surface.optional(),
    list: ListName.optional(),
    items: z.array(ListItemInput).min(1).describe('per item its id and the fields to change'),
  }).strict().superRefine((p, ctx) => uniqueIds(p.items, 'items', ctx));
  type ListUpdatePayload = z.infer<typeof ListUpdatePayload>;

  const listUpdate: DirectiveDefinition<ListUpdatePayload> = {
    type: 'ui.list_update',
    aliases: ['list_update', 'ui.update_items', 'update_items', 'ui.listUpdate', 'ui.change_items'],
    description: 'Change fields of items in a list, by id (the fields you give replace the old ones; the others stay).',
    payload: ListUpdatePayload,
    example: { list: 'options', items: [{ id: 'a', note: 'Sold out' }] },
    normalise: normaliseItems,
    apply(ir, p, draw, context) {
      const found = located(ir, p);
      if (!found.ok) return found;
      const { raw, items } = found;
      const byKey = new Map(items.map((i) => [i.key, i]));
      const next = raw.slice();
      const changed: Record<string, unknown>[] = [];
      for (const [n, change] of p.items.entries()) {
        const item = byKey.get(change[ITEM_KEY_FIELD] as string);
        if (item === undefined) return fail('DIRECTIVE_LIST_ITEM_INVALID', `/items/${n}/${ITEM_KEY_FIELD}`, `the list has no item "${String(change[ITEM_KEY_FIELD])}"`);
        const updated = { ...item.value, ...change };
        next[item.index] = updated;
        changed.push(updated);
      }
      const over = itemBudget(changed, items.length, context?.limits ?? DEFAULT_LIMITS, '/items', found.block.kind === 'table');
      if (over !== undefined) return { ok: false, error: over };
      // The item as it will be stored (old fields and the changes) must be the component's.
      const bad = refused(found.block, changed, (n) => `/items/${n}`);
      if (bad !== undefined) return bad;
      return writeListItems(ir, found.surface.id, found.block.name, next, draw);
    },
  };

  const ListRemovePayload = z.object({
    surface: Surface.optional(),
    list: ListName.optional(),
    ids: z.array(DataKey).min(1).describe('ids of the items to remove'),
  }).strict().superRefine((p, ctx) => {
    if (new Set(p.ids).size !== p.ids.length) ctx.addIssue({ code: 'custom', path: ['ids'], message: 'an id appears twice' });
  });
  type ListRemovePayload = z.infer<typeof ListRemovePayload>;

  const listRemove: DirectiveDefinition<ListRemovePayload> = {
    type: 'ui.list_remove',
    aliases: ['list_remove', 'ui.remove_items', 'remove_items', 'ui.listRemove', 'ui.delete_items', 'delete_items'],
    description: 'Remove items from a list, by id.',
    payload: ListRemovePayload,
    example: { list: 'options', ids: ['b'] },
    apply(ir, p, draw) {
      const found = located(ir, p);
      if (!found.ok) return found;
      const { raw, items } = found;
      const byKey = new Map(items.map((i) => [i.key, i.index]));
      const drop = new Set<number>();
      for (const [n, id] of p.ids.entries()) {
        const index = byKey.get(id);
        if (index === undefined) return fail('DIRECTIVE_LIST_ITEM_INVALID', `/ids/${n}`, `the list has no item "${id}"`);
        drop.add(index);
      }
      return writeListItems(ir, found.surface.id, found.block.name, raw.filter((_, i) => !drop.has(i)), draw);
    },
  };

  return [showList, listAdd, listUpdate, listRemove];
}
