import { hash } from 'node:crypto';
import {
  allOf, collectionBlocks, fieldPatterns, fieldRules, getAt, shownItems, surfaceToast, TABLE_ACTIONS_NAMES, tableBlocks, walkBlocks, type ActionSpec, type Block,
  type ConversationIr, type DataValue, type FieldBlock, type ListBlock, type Surface, type TableBlock,
} from '../../ui-ir/index.ts';
import type { ComponentRegistry } from '../../app-kit/component.ts';
import { UNAVAILABLE_NOTE, withFallbacksOrNotes } from '../components/fallback.ts';
import { renderComponentHtml } from './component.ts';
import { listView } from '../list-view.ts';
import { nextSort, tableView } from '../table-view.ts';
import { ICON_GLYPHS, iconWords } from './icons.ts';
import { controlOf, formatDisplayValue, formatFieldValue, isChecked, safeUrl, selectedValues, type ControlShape } from './controls.ts';

/** What the HTML compiler needs beyond the IR. Everything is an explicit input: no clock, no randomness. */
export interface HtmlCompileOptions {
  /** Per-session CSRF token rendered into every form (omitted when absent, e.g. for the CLI). */
  csrfToken?: string;
  /** URL prefix of the conversation's routes; default `/c/<conversationId>`. */
  basePath?: string;
  /**
   * A form post the host rejected, shown again (plain browser forms: the page is rebuilt
   * without a redirect): that surface's fields show the submitted values instead of its
   * draft, which the rejected action never changed, and its alert slot holds `alertHtml`
   * (trusted, already escaped). Nothing of it is stored.
   */
  rejected?: RejectedSubmit;
  /**
   * Names this rendering (the host: one per page load, from its injected entropy source). It goes
   * into every form's idempotency key, so a key names one rendering: a retry from the same page
   * replays its first answer, while another tab's submit of the same panel state is a new request
   * (and so stale once the first was applied, 409 with regenerate, instead of a reused key).
   * Absent (CLI, traces): the key depends on the surface state alone, so the output stays a pure
   * function of the IR.
   */
  renderId?: string;
  /**
   * The app's components: the htmx page is the app's own, so it shows each as its HTML rendering.
   * Absent: a surface's component blocks show a note that they cannot be shown.
   */
  components?: ComponentRegistry;
  /**
   * The actions the app takes (its ingress allowlist). A table's sort headings and pager are
   * shown only when `table.sort` / `table.page` are among them (TABLE_ACTIONS): a control the
   * ingress would refuse is not offered, as on the A2UI pages. Absent (CLI, traces): all are shown.
   */
  allowedActions?: readonly string[];
}

/** Which of a table's own controls the page offers (HtmlCompileOptions.allowedActions). */
interface TableControls { readonly sort: boolean; readonly page: boolean }

const ALL_CONTROLS: TableControls = { sort: true, page: true };

function tableControlsOf(options: HtmlCompileOptions): TableControls {
  const allowed = options.allowedActions;
  return { sort: allowed?.includes(TABLE_ACTIONS_NAMES.sort) ?? true, page: allowed?.includes(TABLE_ACTIONS_NAMES.page) ?? true };
}

export interface RejectedSubmit {
  surfaceId: string;
  /** The posted form fields, name → value(s); names that are no field of the surface are ignored. */
  fields: Readonly<Record<string, string | string[]>>;
  alertHtml?: string;
}

export interface OptionVm { id: string; value: string; label: string; selected: boolean }

export interface FieldVm {
  kind: 'field';
  id: string;
  name: string;
  label: string;
  shape: ControlShape;
  type?: string;
  value: string;
  checked: boolean;
  required: boolean;
  /**
   * Inside tabs or a modal (a `<details>` that may be closed): a required control there gets
   * `aria-required`, not `required`, because a browser refuses to submit a form whose invalid
   * control is hidden, silently (Chromium opens no `<details>` for it). The server's submit check
   * still reports the missing value.
   */
  folded: boolean;
  placeholder?: string;
  help?: string;
  helpId?: string;
  hint?: string;
  hintId?: string;
  describedBy?: string;
  options: OptionVm[];
  min?: number;
  max?: number;
  step?: number | 'any';
  minLength?: number;
  maxLength?: number;
  autocomplete?: string;
  inputMode?: string;
  /** The field's pattern rules as HTML's one `pattern` (ui-ir/field-rules.ts); inputs only (a textarea has none). */
  pattern?: string;
  /** Its message (with JavaScript off, browsers show the title beside their own words). */
  title?: string;
  /**
   * Every rule with its message, as JSON: app.js shows the server's words, and checks what the
   * attributes cannot. Already escaped for a single-quoted attribute (singleQuotedAttribute).
   */
  rules?: string;
}

export type BlockVm =
  | FieldVm
  | { kind: 'heading'; tag: string; text: string }
  | { kind: 'text'; text: string; tone: string }
  | { kind: 'divider' }
  | { kind: 'image'; url?: string; alt: string }
  | { kind: 'value'; label: string; value: string; empty: boolean; path: string }
  | { kind: 'upload'; id: string; name: string; label: string; accept: string; purpose: string; fallback: string; describedBy: string; purposeId: string; fallbackId: string }
  /** `empty`: it shows only values, none of them set yet (e.g. "Saved" before a save): not rendered. */
  | { kind: 'group'; title?: string; layout: string; blocks: BlockVm[]; empty: boolean }
  | { kind: 'icon'; name: string; glyph: string; label: string; spoken: string }
  | { kind: 'video'; url?: string; caption: string }
  | { kind: 'audio'; url?: string; description: string }
  | TabsVm
  | ModalVm
  | ListVm
  | TableVm
  /** An app component: `html` is its template's output (rendered auto-escaped by compiler/html/component.ts). */
  | { kind: 'component'; id: string; name: string; html: string };

/**
 * Tabs without JavaScript: one `<details>` per tab, all with the same `name` (an exclusive
 * accordion: opening one closes the others), the first open.
 */
export interface TabsVm {
  kind: 'tabs';
  id: string;
  tabs: Array<{ id: string; title: string; layout: string; open: boolean; blocks: BlockVm[] }>;
}

/** A modal without JavaScript: a `<details>` whose summary is the button and whose body is the dialog. */
export interface ModalVm { kind: 'modal'; id: string; titleId: string; label: string; title?: string; blocks: BlockVm[] }

/** One shown value of a list item (list-view strings; Eta escapes them). */
export type ItemValueVm =
  | { kind: 'text'; style: 'title' | 'body' | 'caption'; text: string }
  | { kind: 'value'; label: string; text: string }
  | { kind: 'image'; url?: string; alt: string }
  | { kind: 'badge'; text: string };

export interface ItemButtonVm { id: string; name: string; label: string; primary: boolean }

export interface ListItemVm {
  key: string;
  id: string;
  values: ItemValueVm[];
  /** The item's own form (rendered after the surface's form; buttons name it with `form=`). */
  formId: string;
  buttons: ItemButtonVm[];
}

export interface ListVm {
  kind: 'list';
  id: string;
  name: string;
  title?: string;
  items: ListItemVm[];
  note: string;
}

/**
 * A table as an HTML `<table>`: a caption, `th scope=col` headings (a sortable one is a submit
 * button of its own sort form, the sorted one has `aria-sort`), the shown page's rows, and a
 * pager whose buttons submit page forms: sorting and paging are plain form posts, JavaScript
 * not needed.
 */
export interface TableVm {
  kind: 'table';
  id: string;
  name: string;
  title?: string;
  columns: Array<{ key: string; label: string; type: string; ariaSort?: 'ascending' | 'descending'; sortFormId?: string; sortHint?: string }>;
  rows: Array<{ key: string; id: string; formId: string; cells: Array<{ text: string; href?: string; type: string }>; buttons: ItemButtonVm[] }>;
  /** The row-actions column is there (its heading is for screen readers). */
  hasActions: boolean;
  pageLabel: string;
  /** The controls' action names (the buttons' `_action`). */
  sortAction: string;
  pageAction: string;
  prevFormId?: string;
  nextFormId?: string;
  note: string;
}

/** A per-item form: only hidden fields (surface, epoch, nonce, rev, idempotency key, CSRF, list, item). */
export interface ItemFormVm { id: string; action: string; hidden: Array<{ name: string; value: string }> }

export interface ActionVm { id: string; name: string; label: string; role: string; primary: boolean; noValidate: boolean }

export interface SurfaceVm {
  id: string;
  elementId: string;
  titleId: string;
  alertId: string;
  /** Trusted HTML for the alert slot (a rejected submit's message), else empty. */
  alertHtml?: string;
  title: string;
  template: string;
  lifecycle: string;
  epoch: number;
  rev: number;
  closed: boolean;
  expired: boolean;
  toast?: { level: string; text: string };
  form?: {
    action: string;
    multipart: boolean;
    hidden: Array<{ name: string; value: string }>;
  };
  regenerate: { action: string; hidden: Array<{ name: string; value: string }> };
  /** Frozen when handed out again from a previous render (see blocksViewModel). */
  blocks: readonly BlockVm[];
  actions: ActionVm[];
  /** One per shown list item with buttons, in list and item order; empty when the surface takes no actions. */
  itemForms: ItemFormVm[];
  /** One per table control (sort by a column, open a page), in table order; empty when the surface takes no actions. */
  tableForms: ItemFormVm[];
}

export function basePathOf(ir: ConversationIr, options: HtmlCompileOptions): string {
  return options.basePath ?? `/c/${ir.conversationId}`;
}

/**
 * The per-render idempotency key: same surface state in the same rendering → same key, so a
 * double submit is one. `renderId` (HtmlCompileOptions) tells renderings apart.
 */
export function idempotencyKey(conversationId: string, surface: Pick<Surface, 'id' | 'epoch' | 'rev' | 'nonce'>, renderId?: string): string {
  const state = `${conversationId}:${surface.id}:${surface.epoch}:${surface.rev}:${surface.nonce}`;
  return hash('sha256', renderId === undefined ? `surfacer-idem:v1:${state}` : `surfacer-idem:v2:${state}:${renderId}`, 'base64url').slice(0, 32);
}

/**
 * The idempotency key of one item's form: per render like the surface's, and per item, so two
 * items' buttons in one render are two requests (one key for both would make the second a
 * reused key, 422), while a double click on one item is one.
 */
export function itemIdempotencyKey(
  conversationId: string, surface: Pick<Surface, 'id' | 'epoch' | 'rev' | 'nonce'>, list: string, key: string, renderId?: string,
): string {
  return hash('sha256', `surfacer-idem-item:v1:${idempotencyKey(conversationId, surface, renderId)}:${list}:${key}`, 'base64url').slice(0, 32);
}

/**
 * What a surface's view model takes from its view alone (everything but the data and the
 * counters), computed once per (view or block object, surface id): the IR is immutable and
 * shares unchanged views across revs, so a re-render after an action rebuilds only the values,
 * not the ids, labels, attributes and button order. Cached objects that end up in a view model
 * are frozen; a remembered blocks array (blocksViewModel) is frozen itself but holds group, tab
 * and modal view models that are not: nothing may change a view model after it is handed out.
 */
const statics = new WeakMap<object, Map<string, unknown>>();

function perSurface<T>(owner: object, surfaceId: string, build: () => T): T {
  let bySurface = statics.get(owner);
  if (bySurface === undefined) statics.set(owner, bySurface = new Map());
  let value = bySurface.get(surfaceId) as T | undefined;
  if (value === undefined) bySurface.set(surfaceId, value = build());
  return value;
}

const freeze = <T extends object>(value: T): Readonly<T> => Object.freeze(value);

/**
 * The same data value, as far as showing it goes: the same value, or lists holding the same
 * values in order. Drafts and committed values are immutable, so an unchanged one is usually the
 * same object; but a save normalises tags into a new list each time, however equal.
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Where a plain view's blocks read the surface's data: a field its draft value, a value block its source. */
interface DataRead { readonly from: 'draft' | 'committed' | 'ui'; readonly keys: readonly string[] }

/** A value block's source: `/committed/a/b` → the committed data, keys a and b (else the ui data). */
function valueRead(path: string): DataRead {
  const [ns, ...keys] = path.slice(1).split('/');
  return freeze({ from: ns === 'committed' ? 'committed' : 'ui', keys: freeze(keys) });
}

interface ViewStatics {
  readonly hasInputs: boolean;
  readonly multipart: boolean;
  readonly actions: readonly ActionVm[];
  /**
   * A view of fields, values, static blocks, groups, tabs and modals only (no list, table or
   * component: those read more of the surface, and the options): its blocks' view models are a
   * function of the view, the surface id and what `reads` read. Undefined for any other view.
   */
  readonly reads: readonly DataRead[] | undefined;
  /** The last blocks built for a plain view, and what they read (see blocksViewModel). */
  last?: { readonly values: readonly unknown[]; readonly blocks: readonly BlockVm[] };
}

function viewStatics(surface: Surface): ViewStatics {
  return perSurface(surface.view, surface.id, () => {
    let hasInputs = false;
    let multipart = false;
    let plain = true;
    const reads: DataRead[] = [];
    walkBlocks(surface.view.blocks, (b) => {
      if (b.kind === 'field' || b.kind === 'upload') hasInputs = true;
      if (b.kind === 'upload') multipart = true;
      if (b.kind === 'list' || b.kind === 'table' || b.kind === 'component') plain = false;
      if (b.kind === 'field') reads.push(freeze({ from: 'draft', keys: freeze([b.name]) }));
      if (b.kind === 'value') reads.push(valueRead(b.path));
    });
    const elementId = `surface-${surface.id}`;
    return {
      hasInputs, multipart, actions: freeze(orderActions(surface.view.actions).map((a) => freeze(actionViewModel(elementId, a)))),
      reads: plain ? freeze(reads) : undefined,
    };
  });
}

/**
 * The surface's blocks. A plain view's (ViewStatics.reads) are built again only when a value they
 * read changed: otherwise the last blocks are handed out again, the same frozen array, and the
 * renderer writes their HTML again as it was (render.ts). After an action that saves the same
 * values, or changes a panel the surface's blocks do not show, nothing of them is rebuilt.
 * Values are compared as sameValue does.
 */
function blocksViewModel(surface: Surface, statics: ViewStatics, submitted: Submitted | undefined, live: boolean,
  components: ComponentRegistry | undefined, controls: TableControls): readonly BlockVm[] {
  const reads = statics.reads;
  if (reads === undefined || submitted !== undefined) {
    return surface.view.blocks.map((b, i) => blockViewModel(surface, b, submitted, live, [i], false, components, controls));
  }
  const values = reads.map((r) => getAt(surface.data[r.from], r.keys));
  const last = statics.last;
  if (last !== undefined && last.values.length === values.length && last.values.every((v, i) => sameValue(v, values[i]))) return last.blocks;
  const blocks = freeze(surface.view.blocks.map((b, i) => blockViewModel(surface, b, undefined, live, [i], false, components, controls)));
  statics.last = { values, blocks };
  return blocks;
}

export function surfaceViewModel(ir: ConversationIr, shownSurface: Surface, options: HtmlCompileOptions = {}): SurfaceVm {
  // With the app's components the page shows each as its own HTML; without, a note (no fallback
  // needed: the htmx page is always the app's own).
  const surface = options.components === undefined ? withFallbacksOrNotes(shownSurface, undefined) : shownSurface;
  const base = basePathOf(ir, options);
  const elementId = `surface-${surface.id}`;
  const csrf = options.csrfToken === undefined ? [] : [{ name: '_csrf', value: options.csrfToken }];
  const statics = viewStatics(surface);
  const { hasInputs, multipart, actions } = statics;
  const closed = surface.lifecycle === 'deleted';
  const expired = surface.lifecycle === 'expired';
  const rejected = options.rejected?.surfaceId === surface.id ? options.rejected : undefined;
  const controls = tableControlsOf(options);
  const vm: SurfaceVm = {
    id: surface.id, elementId, titleId: `${elementId}-title`, alertId: `${elementId}-alert`,
    title: surface.view.title, template: surface.view.template, lifecycle: surface.lifecycle,
    epoch: surface.epoch, rev: surface.rev, closed, expired,
    regenerate: { action: `${base}/surfaces/${surface.id}/regenerate`, hidden: csrf },
    blocks: closed ? [] : blocksViewModel(surface, statics, rejected?.fields, !expired, options.components, controls),
    actions: closed || expired ? [] : [...actions],
    itemForms: [],
    tableForms: [],
  };
  if (rejected?.alertHtml !== undefined) vm.alertHtml = rejected.alertHtml;
  const toast = surfaceToast(surface);
  if (toast !== undefined) vm.toast = toast;
  if (!closed && !expired && (hasInputs || surface.view.actions.length > 0)) {
    vm.form = {
      action: `${base}/actions`,
      multipart,
      hidden: [
        { name: '_surface', value: surface.id },
        { name: '_epoch', value: String(surface.epoch) },
        { name: '_nonce', value: surface.nonce },
        { name: '_rev', value: String(surface.rev) },
        { name: '_idem', value: idempotencyKey(ir.conversationId, surface, options.renderId) },
        ...csrf,
      ],
    };
  }
  if (!closed && !expired) {
    vm.itemForms = itemForms(ir, surface, base, csrf, options.renderId);
    vm.tableForms = tableForms(ir, surface, base, csrf, options.renderId, controls);
  }
  return vm;
}

/** The element ids of a list and its items (list names and item keys are data keys: safe in ids). */
function listElementId(surface: Surface, list: string): string {
  return `surface-${surface.id}-list-${list}`;
}

function itemFormId(surface: Surface, list: string, key: string): string {
  return `${listElementId(surface, list)}-item-${key}-form`;
}

function itemForms(
  ir: ConversationIr, surface: Surface, base: string, csrf: Array<{ name: string; value: string }>, renderId: string | undefined,
): ItemFormVm[] {
  const out: ItemFormVm[] = [];
  for (const block of collectionBlocks(surface.view)) {
    if (block.actions.length === 0) continue;
    // A component's items are a list's (same rules, ui-ir/collections.ts), so its forms are too.
    const keys = block.kind === 'list' ? listView(surface, block).items : shownItems(surface, block);
    for (const item of keys) {
      out.push({
        id: itemFormId(surface, block.name, item.key),
        action: `${base}/actions`,
        hidden: [
          { name: '_surface', value: surface.id },
          { name: '_epoch', value: String(surface.epoch) },
          { name: '_nonce', value: surface.nonce },
          { name: '_rev', value: String(surface.rev) },
          { name: '_idem', value: itemIdempotencyKey(ir.conversationId, surface, block.name, item.key, renderId) },
          ...csrf,
          { name: 'list', value: block.name },
          { name: 'item', value: item.key },
        ],
      });
    }
  }
  return out;
}

function tableElementId(surface: Surface, table: string): string {
  return `surface-${surface.id}-table-${table}`;
}

/** Column keys are data keys (safe in ids); the direction and page are what the form sets. */
function sortFormId(surface: Surface, table: string, column: string): string {
  return `${tableElementId(surface, table)}-sort-${column}-form`;
}

function pageFormId(surface: Surface, table: string, page: number): string {
  return `${tableElementId(surface, table)}-page-${page}-form`;
}

/**
 * The idempotency key of one table control: per render like the surface's, and per control and
 * value, so sorting by two columns of one render are two requests, while a double click is one.
 */
function controlIdempotencyKey(conversationId: string, surface: Surface, table: string, control: string, renderId?: string): string {
  return hash('sha256', `surfacer-idem-table:v1:${idempotencyKey(conversationId, surface, renderId)}:${table}:${control}`, 'base64url').slice(0, 32);
}

/** The forms of the tables' sort headings and pager buttons (the same controls the A2UI layout shows). */
function tableForms(
  ir: ConversationIr, surface: Surface, base: string, csrf: Array<{ name: string; value: string }>, renderId: string | undefined, controls: TableControls,
): ItemFormVm[] {
  const out: ItemFormVm[] = [];
  const tables = tableBlocks(surface.view);
  // Most surfaces have no table: return before making the closure (tsx names it on every call).
  if (tables.length === 0) return out;
  const form = (id: string, table: string, control: string, values: Array<{ name: string; value: string }>): void => {
    out.push({
      id, action: `${base}/actions`,
      hidden: [
        { name: '_surface', value: surface.id },
        { name: '_epoch', value: String(surface.epoch) },
        { name: '_nonce', value: surface.nonce },
        { name: '_rev', value: String(surface.rev) },
        { name: '_idem', value: controlIdempotencyKey(ir.conversationId, surface, table, control, renderId) },
        ...csrf,
        { name: 'table', value: table },
        ...values,
      ],
    });
  };
  for (const block of tables) {
    const view = tableView(surface, block);
    if (controls.sort && view.total > 1) {
      for (const c of view.columns) {
        if (!c.sortable) continue;
        const dir = nextSort(c);
        form(sortFormId(surface, block.name, c.key), block.name, `sort:${c.key}:${dir}`, [{ name: 'column', value: c.key }, { name: 'dir', value: dir }]);
      }
    }
    for (const page of controls.page ? [view.page - 1, view.page + 1] : []) {
      if (page >= 1 && page <= view.pages) form(pageFormId(surface, block.name, page), block.name, `page:${page}`, [{ name: 'page', value: String(page) }]);
    }
  }
  return out;
}

/** A table as `<table>`: the table-view strings of the shown page, its sort headings and pager when the surface takes actions. */
function tableViewModel(surface: Surface, block: TableBlock, live: boolean, controls: TableControls): TableVm {
  const id = tableElementId(surface, block.name);
  const view = tableView(surface, block);
  const vm: TableVm = {
    kind: 'table', id, name: block.name,
    columns: view.columns.map((c) => {
      const column: TableVm['columns'][number] = { key: c.key, label: c.label, type: c.type };
      if (c.sorted !== undefined) column.ariaSort = c.sorted === 'asc' ? 'ascending' : 'descending';
      if (live && controls.sort && c.sortable && view.total > 1) {
        column.sortFormId = sortFormId(surface, block.name, c.key);
        column.sortHint = nextSort(c) === 'asc' ? 'sort ascending' : 'sort descending';
      }
      return column;
    }),
    rows: view.rows.map((row) => ({
      key: row.key,
      id: `${id}-row-${row.key}`,
      formId: itemFormId(surface, block.name, row.key),
      cells: row.cells.map((cell, i) => ({ ...cell, type: view.columns[i]!.type })),
      buttons: live ? block.actions.map((a) => ({ id: `${id}-row-${row.key}-action-${a.name.replace(/[^a-z0-9_-]/g, '_')}`, name: a.name, label: a.label, primary: a.primary })) : [],
    })),
    hasActions: live && block.actions.length > 0,
    pageLabel: view.pageLabel,
    sortAction: TABLE_ACTIONS_NAMES.sort,
    pageAction: TABLE_ACTIONS_NAMES.page,
    note: view.note,
  };
  if (block.title !== undefined && block.title !== '') vm.title = block.title;
  if (live && controls.page && view.page > 1) vm.prevFormId = pageFormId(surface, block.name, view.page - 1);
  if (live && controls.page && view.page < view.pages) vm.nextFormId = pageFormId(surface, block.name, view.page + 1);
  return vm;
}

/** A list as `<ul>`: the list-view strings per item, and its buttons when the surface takes actions. */
function listViewModel(surface: Surface, block: ListBlock, live: boolean): ListVm {
  const id = listElementId(surface, block.name);
  const view = listView(surface, block);
  const items = view.items.map((item): ListItemVm => ({
    key: item.key,
    id: `${id}-item-${item.key}`,
    formId: itemFormId(surface, block.name, item.key),
    values: block.display.map((d, i): ItemValueVm => {
      const text = item.values[i]!;
      switch (d.kind) {
        case 'text': return { kind: 'text', style: d.style, text };
        case 'value': return { kind: 'value', label: d.label, text };
        case 'badge': return { kind: 'badge', text };
        case 'image': { const url = text === '' ? undefined : safeUrl(text); return url === undefined ? { kind: 'image', alt: d.alt } : { kind: 'image', url, alt: d.alt }; }
      }
    }),
    buttons: live ? block.actions.map((a) => ({ id: `${id}-item-${item.key}-action-${a.name.replace(/[^a-z0-9_-]/g, '_')}`, name: a.name, label: a.label, primary: a.primary })) : [],
  }));
  const vm: ListVm = { kind: 'list', id, name: block.name, items, note: view.note };
  if (block.title !== undefined && block.title !== '') vm.title = block.title;
  return vm;
}

/**
 * Primary first, then submit actions, then the rest (stable): the first submit button of a form
 * is what Enter in a text field triggers, and that must never be "cancel".
 */
function orderActions(actions: readonly ActionSpec[]): ActionSpec[] {
  return actions.map((a, i) => ({ a, i })).sort((x, y) => rank(x.a) - rank(y.a) || x.i - y.i).map((x) => x.a);
}

/** A module function, not a closure per call (tsx would name it on every call). */
function rank(a: ActionSpec): number {
  return a.primary ? 0 : a.role === 'submit' ? 1 : 2;
}

/** Buttons keep a stable id so focus survives the outerHTML swap after a submit. */
function actionViewModel(elementId: string, action: ActionSpec): ActionVm {
  return { id: `${elementId}-action-${action.name.replace(/[^a-z0-9_-]/g, '_')}`, name: action.name, label: action.label, role: action.role, primary: action.primary, noValidate: action.role === 'cancel' };
}

/** A value block's source, parsed once, and its last view model (see FieldStatics). */
interface ValueStatics { readonly read: DataRead; last?: { readonly raw: unknown; readonly vm: BlockVm } }

/** `submitted`: the fields of a rejected post, shown instead of the draft (see HtmlCompileOptions.rejected). */
type Submitted = RejectedSubmit['fields'];

/** `indexPath`: where the block is (names the elements of tabs and modals, deterministically). */
function blockViewModel(surface: Surface, block: Block, submitted: Submitted | undefined, live: boolean, indexPath: readonly number[], folded = false,
  components?: ComponentRegistry, controls: TableControls = ALL_CONTROLS): BlockVm {
  switch (block.kind) {
    case 'field': return fieldViewModel(surface, block, submitted, folded);
    case 'list': return listViewModel(surface, block, live);
    case 'table': return tableViewModel(surface, block, live, controls);
    case 'value': {
      const statics = perSurface<ValueStatics>(block, '', () => ({ read: valueRead(block.path) }));
      const raw = getAt(surface.data[statics.read.from], statics.read.keys);
      // Committed values are immutable, as drafts are: the same value shows as it did.
      if (statics.last !== undefined && sameValue(statics.last.raw, raw)) return statics.last.vm;
      const value = formatDisplayValue(raw as never);
      const vm = freeze<BlockVm>({ kind: 'value', label: block.label, value, empty: value === '', path: block.path });
      statics.last = { raw, vm };
      return vm;
    }
    case 'group': {
      const blocks = childViewModels(surface, block.blocks, submitted, live, indexPath, folded, components, controls);
      const empty = blocks.length > 0 && blocks.every((b) => (b.kind === 'value' || b.kind === 'group') && b.empty);
      const vm: BlockVm = { kind: 'group', layout: block.layout, blocks, empty };
      if (block.title !== undefined) vm.title = block.title;
      return vm;
    }
    case 'tabs': {
      const id = blockElementId(surface, indexPath);
      return {
        kind: 'tabs', id,
        tabs: block.blocks.map((tab, i) => ({
          id: `${id}-${i}`, title: tab.title, layout: tab.layout, open: i === 0,
          blocks: childViewModels(surface, tab.blocks, submitted, live, [...indexPath, i], true, components, controls),
        })),
      };
    }
    case 'modal': {
      const id = blockElementId(surface, indexPath);
      const vm: ModalVm = { kind: 'modal', id, titleId: `${id}-title`, label: block.label, blocks: childViewModels(surface, block.blocks, submitted, live, indexPath, true, components, controls) };
      if (block.title !== undefined && block.title !== '') vm.title = block.title;
      return vm;
    }
    case 'component': {
      const html = components === undefined ? undefined : renderComponentHtml(surface, block, components, live);
      if (html === undefined) return { kind: 'text', text: UNAVAILABLE_NOTE, tone: 'caption' };
      return { kind: 'component', id: `surface-${surface.id}-component-${block.name}`, name: block.name, html };
    }
    default:
      // Everything else is a function of the block (and the surface id) alone.
      return perSurface(block, surface.id, () => freeze(staticBlockViewModel(surface, block)));
  }
}

/** The blocks inside a group, tab or modal at `at` (a function of its own, not a closure made per block). */
function childViewModels(surface: Surface, blocks: readonly Block[], submitted: Submitted | undefined, live: boolean, at: readonly number[], folded: boolean,
  components: ComponentRegistry | undefined, controls: TableControls): BlockVm[] {
  return blocks.map((b, i) => blockViewModel(surface, b, submitted, live, [...at, i], folded, components, controls));
}

/** The element id of a block placed by index path (`surface-main-b0-2`): digits and dashes only. */
function blockElementId(surface: Surface, indexPath: readonly number[]): string {
  return `surface-${surface.id}-b${indexPath.join('-')}`;
}

function staticBlockViewModel(surface: Surface, block: Exclude<Block, { kind: 'field' | 'value' | 'group' | 'list' | 'table' | 'tabs' | 'modal' | 'component' }>): BlockVm {
  switch (block.kind) {
    case 'heading': return { kind: 'heading', tag: `h${Math.min(6, block.level + 2)}`, text: block.text };
    case 'text': return { kind: 'text', text: block.text, tone: block.tone };
    case 'divider': return { kind: 'divider' };
    case 'image': {
      const url = safeUrl(block.url);
      return url === undefined ? { kind: 'image', alt: block.alt } : { kind: 'image', url, alt: block.alt };
    }
    case 'icon': return { kind: 'icon', name: block.name, glyph: ICON_GLYPHS[block.name], label: block.label, spoken: block.label !== '' ? block.label : iconWords(block.name) };
    case 'video': {
      const url = safeUrl(block.url);
      return url === undefined ? { kind: 'video', caption: block.caption } : { kind: 'video', url, caption: block.caption };
    }
    case 'audio': {
      const url = safeUrl(block.url);
      return url === undefined ? { kind: 'audio', description: block.description } : { kind: 'audio', url, description: block.description };
    }
    case 'upload': {
      const id = `${fieldIdPrefix(surface)}-${block.name}`;
      return {
        kind: 'upload', id, name: block.name, label: block.label, accept: block.accept.join(','),
        purpose: block.purpose, fallback: block.fallback, purposeId: `${id}-purpose`, fallbackId: `${id}-fallback`,
        describedBy: [block.purpose ? `${id}-purpose` : '', block.fallback ? `${id}-fallback` : ''].filter(Boolean).join(' '),
      };
    }
  }
}

function fieldIdPrefix(surface: Surface): string {
  return `f-${surface.id}`;
}

/**
 * A field's static part, and the view model of its last render: the same (frozen) object again
 * while the field's value is the same value and the field is as folded, so the renderer's HTML
 * of it (render.ts) is taken again too. An action changes a field or two of a panel; the other
 * fields were rebuilt and re-escaped on every answer (~40 % of the HTML compile of the character
 * card, which re-renders after each save).
 */
interface FieldStatics { readonly base: FieldVm; last?: { readonly value: unknown; readonly folded: boolean; readonly vm: FieldVm } }

function fieldViewModel(surface: Surface, field: FieldBlock, submitted: Submitted | undefined, folded: boolean): FieldVm {
  const statics = perSurface<FieldStatics>(field, surface.id, () => ({ base: staticFieldViewModel(surface, field) }));
  // A rejected post's values are shown once: not remembered.
  if (submitted !== undefined) return fieldVmFor(statics.base, field, submittedValue(surface, field, submitted), folded);
  // Drafts are immutable (IR transitions copy what they change): compared as sameValue does.
  const value = getAt(surface.data.draft, [field.name]);
  const last = statics.last;
  if (last !== undefined && sameValue(last.value, value) && last.folded === folded) return last.vm;
  const vm = fieldVmFor(statics.base, field, value as DataValue | undefined, folded);
  freeze(vm.options);
  statics.last = { value, folded, vm: freeze(vm) };
  return vm;
}

function fieldVmFor(base: FieldVm, field: FieldBlock, value: DataValue | undefined, folded: boolean): FieldVm {
  const shown = value as Parameters<typeof formatFieldValue>[1];
  // Not frozen (a frozen source makes this spread take V8's slow path).
  const vm: FieldVm = { ...base, value: formatFieldValue(field, shown), checked: isChecked(shown), folded, options: base.options };
  if (base.options.length > 0) {
    const selected = selectedValues(shown);
    vm.options = base.options.map((o) => ({ ...o, selected: selected.has(o.value) }));
  }
  return vm;
}

/**
 * What a browser posted for a field: its value(s); an unchecked checkbox or a multiselect with
 * nothing chosen is absent from a post, so absent means off / none for those. Any other field
 * the post lacks keeps its draft value.
 */
function submittedValue(surface: Surface, field: FieldBlock, submitted: Submitted): DataValue | undefined {
  const value = Object.hasOwn(submitted, field.name) ? submitted[field.name] : undefined;
  if (value !== undefined) return field.control === 'multiselect' && typeof value === 'string' ? [value] : value;
  if (field.control === 'checkbox') return false;
  if (field.control === 'multiselect') return [];
  return getAt(surface.data.draft, [field.name]) as DataValue | undefined;
}

/**
 * A field's view model without its value (`value`, `checked` and the options' `selected` are per
 * render). Every key is present, in one order (undefined when unused: templates test
 * `!== undefined` or truthiness), so all fields share one object shape and the per-render copy
 * in fieldViewModel stays a fast monomorphic spread.
 */
/** The attributes that carry a field's rules. */
function htmlRules(field: FieldBlock, shape: ControlShape): Pick<FieldVm, 'pattern' | 'title' | 'rules'> {
  const rules = fieldRules(field);
  const patterns = shape === 'input' && field.control !== 'date' && field.control !== 'number' && field.control !== 'slider' ? fieldPatterns(field) : [];
  const pattern = allOf(patterns.map((p) => p.regex));
  return {
    pattern,
    title: pattern === undefined ? undefined : [...new Set(patterns.map((p) => p.message))].join(' '),
    rules: rules.length === 0 ? undefined : singleQuotedAttribute(asciiJson(rules)),
  };
}

/**
 * JSON with every character past ASCII as its \\u escape (the same value to JSON.parse): the
 * rules' own words ("Please tick “…”") would otherwise make the whole answer a two-byte string,
 * about twice as costly to flatten and encode.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Text escaped for an HTML attribute value in single quotes, where a `"` may stand as it is: the
 * rules' JSON is mostly double quotes, and `&quot;` for each made them a fifth of an accepted
 * action's answer (88 of them, 440 bytes, on the character card). The template writes it raw.
 */
export function singleQuotedAttribute(text: string): string {
  return text.replace(/[&<>']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#39;'));
}

function staticFieldViewModel(surface: Surface, field: FieldBlock): FieldVm {
  const id = `${fieldIdPrefix(surface)}-${field.name}`;
  const { shape, type } = controlOf(field.control);
  const helpId = field.help !== undefined && field.help !== '' ? `${id}-help` : undefined;
  const hint = field.control === 'slider' && field.min !== undefined && field.max !== undefined ? `From ${field.min} to ${field.max}.`
    : field.control === 'tags' && helpId === undefined ? 'Separate entries with commas.' : undefined;
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  const described = [helpId, hintId].filter((x) => x !== undefined).join(' ');
  return {
    kind: 'field', id, name: field.name, label: field.label, shape, type,
    value: '', checked: false, required: field.required, folded: false,
    placeholder: field.placeholder,
    help: helpId === undefined ? undefined : field.help, helpId, hint, hintId,
    describedBy: described === '' ? undefined : described,
    options: freeze((field.options ?? []).map((o, i) => freeze({ id: `${id}-${i}`, value: o.value, label: o.label, selected: false }))) as OptionVm[],
    min: field.min, max: field.max,
    step: field.step ?? (field.control === 'number' ? 'any' : undefined),
    minLength: field.minLength,
    maxLength: field.maxLength,
    autocomplete: field.control === 'secret' ? 'off' : field.control === 'email' ? 'email' : field.control === 'url' ? 'url' : undefined,
    inputMode: field.control === 'email' ? 'email' : field.control === 'url' ? 'url' : undefined,
    ...htmlRules(field, shape),
  };
}
