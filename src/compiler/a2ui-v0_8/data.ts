import type { SurfacerError } from '../../errors/index.ts';
import type { ComponentDefinition, ComponentRegistry } from '../../app-kit/component.ts';
import { childBlocks, getAt, surfaceToast, type Block, type ComponentBlock, type DataValue, type Surface } from '../../ui-ir/index.ts';
import { checkedBoundProps } from '../components/bound.ts';
import { COMPONENT_BOUND_KEY, COMPONENT_ITEM_KEY, componentDataKey, componentView, hasComponentData } from '../components/view.ts';
import {
  asString, type Coerced, coercionWarning, displayValue, escapeMarkdown, LIST_ITEM_KEY, listDataKey, listDisplayStyles, listValueKey, sliderBounds,
  STRING_CONTROLS, tableCellStyle, tableDataKey, toBoolean, toNumber, toSelection, viewKey,
} from '../a2ui-shared/index.ts';
import { listView } from '../list-view.ts';
import { tableView, withoutTableRows } from '../table-view.ts';
import { GUARD_MARK, guardA2uiString, plainText } from './text.ts';

/**
 * The client data model of one surface, as the compiler wants WC to hold it: nested maps with
 * primitive leaves, every string already wire-ready (guarded, see text.ts).
 *
 *   /draft      IR draft; keys bound to a field hold the type that field's component needs
 *   /committed  IR committed
 *   /ui         IR ui (the toast mirror lives at /ui/toast; its text, bound to a Text, Markdown-escaped)
 *   /view       display strings derived by the compiler (value blocks), Markdown-escaped
 *
 * v0.8 has no arrays (§7.2): an IR array is a map-encoded list, keys "0", "1", … ascending, no
 * gaps (so committed tags ["a","b"] → /committed/tags = {"0":"a","1":"b"}), and a value block
 * shows it joined ("a, b") through /view. The one deliberate JSON string is a select's
 * selection, see `selectionJson`.
 */
export type A2Leaf = string | number | boolean;
export type A2Value = A2Leaf | A2Map;
export interface A2Map { [key: string]: A2Value }

export const NAMESPACES = ['draft', 'committed', 'ui', 'view'] as const;

/**
 * A fresh map. Null-prototype: no inherited keys to trip over (`hasOwnProperty` is a valid
 * data key), and V8 builds big ones far faster than object literals growing key by key.
 */
export function newA2Map(): A2Map {
  return Object.create(null) as A2Map;
}

export function isA2Map(v: A2Value | undefined): v is A2Map {
  return typeof v === 'object' && v !== null;
}

function encodeValue(v: DataValue): A2Value {
  if (typeof v === 'string') return guardA2uiString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) {
    const out = newA2Map();
    for (let i = 0; i < v.length; i += 1) if (i in v) out[String(i)] = encodeValue(v[i]!); // holes skipped, as forEach does
    return out;
  }
  return encodeMap(v);
}

/**
 * Keys and values are read with Object.keys/Object.values (same order): a keyed read per
 * property of a big IR map (fast properties, many names) misses V8's caches every time.
 */
function encodeMap(m: Record<string, DataValue>): A2Map {
  const out = newA2Map();
  const keys = Object.keys(m);
  const values = Object.values(m);
  for (let i = 0; i < keys.length; i += 1) out[keys[i]!] = encodeValue(values[i]!);
  return out;
}

/**
 * A select/multiselect selection. MultipleChoice needs an array (BV(a)) but v0.8 data has no
 * arrays; WC JSON-parses a valueString that looks like an array (F6), which is exactly what we
 * want here: the selection goes out as `valueString: "[\"a\"]"` and WC stores ["a"]. Elements
 * are guarded like the option values they must equal. An empty selection is `""`, not `"[]"`:
 * WC would store `"[]"` as an empty Map on init but as an empty array after a `.` leaf update;
 * `""` is the same everywhere, renderers show it as no selection, and ingress reads `""` as
 * "nothing selected" (what a cleared field sends anyway).
 */
export function selectionJson(v: DataValue | undefined, multiple: boolean): Coerced<string> {
  const { value: list, coerced } = toSelection(v, multiple);
  return { value: list.length === 0 ? '' : JSON.stringify(list.map(guardA2uiString)), coerced };
}

/** The value a field's component needs at /draft/<name>, from whatever the IR holds there. */
function fieldValue(field: Extract<Block, { kind: 'field' }>, v: DataValue | undefined): Coerced<A2Leaf> {
  const control = field.control;
  if (control === 'checkbox') return toBoolean(v);
  if (control === 'slider') return toNumber(v, sliderBounds(field.min, field.max));
  if (control === 'select' || control === 'multiselect') return selectionJson(v, control === 'multiselect');
  if (STRING_CONTROLS.has(control)) {
    const s = asString(v, control);
    return { value: guardA2uiString(s.value), coerced: s.coerced };
  }
  return { value: '', coerced: true };
}

type FieldBlockOf = Extract<Block, { kind: 'field' }>;

/**
 * Depth-first over the blocks (walkBlocks order): the first field bound to each name, and the
 * /view strings of value blocks. `path` holds the index path (its first `depth` entries are the
 * parent's), reused all the way down.
 */
function scanBlocks(blocks: readonly Block[], path: number[], depth: number, surface: Surface, fields: Map<string, FieldBlockOf>, view: A2Map,
  registry: ComponentRegistry | undefined): void {
  for (let i = 0; i < blocks.length; i += 1) {
    const block = blocks[i]!;
    path[depth] = i;
    // The first input bound to a name decides its type.
    if (block.kind === 'field') { if (!fields.has(block.name)) fields.set(block.name, block); }
    else if (block.kind === 'component') {
      const definition = registry?.get(block.component);
      if (definition !== undefined && hasComponentData(block)) view[componentDataKey(block)] = componentData(surface, block, definition);
    }
    else if (block.kind === 'value') {
      if (path.length !== depth + 1) path.length = depth + 1;
      const tokens = block.path.slice(1).split('/');
      view[viewKey(path)] = guardA2uiString(escapeMarkdown(displayValue(getAt(surface.data, tokens) as DataValue | undefined)));
    } else if (block.kind === 'list') view[listDataKey(block)] = listData(surface, block);
    else if (block.kind === 'table') view[tableDataKey(block)] = tableData(surface, block);
    else {
      const children = childBlocks(block);
      if (children !== undefined) scanBlocks(children, path, depth + 1, surface, fields, view, registry);
    }
  }
}

/**
 * A list's display data: `{note, items}`, `items` map-encoded — keys "0", "1", … in item order,
 * no gaps, each item `{key, d0, d1, …}` (the list-view strings: Markdown-escaped where a Text
 * shows them, every string guarded). WC iterates a map template in insertion order, and every
 * map of this model is written in key order, which for these keys is numeric order.
 */
function listData(surface: Surface, block: Extract<Block, { kind: 'list' }>): A2Map {
  const { items, note } = listView(surface, block);
  const styles = listDisplayStyles(block);
  const encoded = newA2Map();
  items.forEach((item, n) => {
    const entry = newA2Map();
    entry[LIST_ITEM_KEY] = guardA2uiString(item.key);
    item.values.forEach((v, i) => {
      const style = styles[i];
      entry[listValueKey(i)] = style === undefined ? guardA2uiString(v) : style === 'caption' ? captionText(v) : plainText(v);
    });
    encoded[String(n)] = entry;
  });
  const out = newA2Map();
  out.note = captionText(note);
  out.items = encoded;
  return out;
}

/**
 * A table's shown page, encoded like a list's data (`{note, items}`, items map-encoded in shown
 * order, each `{key, d0, d1, …}` one formatted cell per column). Only this page reaches the client.
 */
function tableData(surface: Surface, block: Extract<Block, { kind: 'table' }>): A2Map {
  const { rows, note } = tableView(surface, block);
  const styles = block.columns.map(tableCellStyle);
  const encoded = newA2Map();
  rows.forEach((row, n) => {
    const entry = newA2Map();
    entry[LIST_ITEM_KEY] = guardA2uiString(row.key);
    row.cells.forEach((c, i) => { entry[listValueKey(i)] = styles[i] === 'caption' ? captionText(c.text) : plainText(c.text); });
    encoded[String(n)] = entry;
  });
  const out = newA2Map();
  out.note = captionText(note);
  out.items = encoded;
  return out;
}

/**
 * Display data a caption Text binds. The Lit renderer writes a caption as Markdown `*text*`, so
 * an empty one shows two stars: nothing to show is the guard mark instead (invisible, and
 * emphasis of a non-space character, so Markdown draws an empty <em>).
 */
function captionText(s: string): string {
  return s === '' ? GUARD_MARK : plainText(s);
}

function boundValue(field: FieldBlockOf, raw: DataValue | undefined, warnings: SurfacerError[]): A2Leaf {
  const { value, coerced } = fieldValue(field, raw);
  if (coerced) warnings.push(coercionWarning(field, raw, typeof value));
  return value;
}

/**
 * An app component's data (compiler/components/view.ts): its collection's `{note, items}`,
 * `items` map-encoded like a list's ("0", "1", … in order), each `{key, …fields}` encoded as
 * data; and `bound`, the values of its bound properties that pass their schemas, encoded as data.
 */
function componentData(surface: Surface, block: ComponentBlock, definition: ComponentDefinition): A2Map {
  const out = newA2Map();
  if (block.path !== undefined) {
    const { items, note } = componentView(surface, { ...block, path: block.path }, definition);
    const encoded = newA2Map();
    items.forEach((item, n) => {
      const entry = encodeMap(item.value);
      entry[COMPONENT_ITEM_KEY] = guardA2uiString(item.key);
      encoded[String(n)] = entry;
    });
    out.note = captionText(note);
    out.items = encoded;
  }
  if (Object.keys(block.bind).length > 0) out[COMPONENT_BOUND_KEY] = encodeMap(checkedBoundProps(surface, block, definition));
  return out;
}

/** `registry`: the app's components, when they are emitted as themselves (their collections need data). */
export function projectSurfaceData(surface: Surface, warnings: SurfacerError[], registry?: ComponentRegistry): A2Map {
  const fields = new Map<string, FieldBlockOf>();
  const view = newA2Map();
  scanBlocks(surface.view.blocks, [], 0, surface, fields, view, registry);
  const irDraft = surface.data.draft;
  const draft = newA2Map();
  // Draft keys in IR order, then fields without a draft value (none when every field has one).
  let matched = 0;
  const keys = Object.keys(irDraft);
  const values = Object.values(irDraft);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const field = fields.get(key);
    if (field !== undefined) {
      matched += 1;
      draft[key] = boundValue(field, values[i], warnings);
    } else draft[key] = encodeValue(values[i]!);
  }
  if (matched !== fields.size) {
    for (const [name, field] of fields) if (!Object.hasOwn(irDraft, name)) draft[name] = boundValue(field, undefined, warnings);
  }
  const model = newA2Map();
  model.draft = draft;
  const { committed, ui } = withoutTableRows(surface);
  model.committed = encodeMap(committed);
  model.ui = encodeMap(ui);
  markdownEscapeToast(model.ui, surface);
  model.view = view;
  return model;
}

/**
 * /ui/toast/text is bound to a Text (display only, never sent back by a client): it gets the
 * Markdown escaping of literal Text, like /view. /draft stays unescaped: inputs bind to it and
 * their values come back through ingress.
 */
function markdownEscapeToast(ui: A2Map, surface: Pick<Surface, 'data'>): void {
  const toast = surfaceToast(surface);
  const encoded = ui.toast;
  if (toast === undefined || !isA2Map(encoded)) return;
  encoded.text = plainText(toast.text);
}
