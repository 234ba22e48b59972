import type { SurfacerError } from '../../errors/index.ts';
import type { ComponentDefinition, ComponentRegistry } from '../../app-kit/component.ts';
import { childBlocks, getAt, type Block, type ComponentBlock, type DataValue, type FieldBlock, type Surface } from '../../ui-ir/index.ts';
import { checkedBoundProps } from '../components/bound.ts';
import { tableLinkKey } from '../components/table-component.ts';
import { COMPONENT_BOUND_KEY, COMPONENT_ITEM_KEY, componentDataKey, componentView, hasComponentData } from '../components/view.ts';
import {
  asString, coercionWarning, displayValue, escapeMarkdown, LIST_ITEM_KEY, listDataKey, listDisplayStyles, listValueKey, sliderBounds,
  STRING_CONTROLS, tableCellStyle, tableDataKey, toBoolean, toNumber, toSelection, viewKey, type Coerced,
} from '../a2ui-shared/index.ts';
import { listView } from '../list-view.ts';
import { tableView, withoutTableRows } from '../table-view.ts';
import type { JsonObject, JsonValue } from './types.ts';

/**
 * The client data model of one surface in v0.9: plain JSON, the IR's own values.
 *
 *   /draft      IR draft; a key bound to a field holds the type that field's input writes
 *               (CheckBox a boolean, Slider a number, ChoicePicker a list of option values,
 *               the text inputs and DateTimeInput a string)
 *   /committed  IR committed, as it is (arrays are arrays)
 *   /ui         IR ui, as it is (the toast text is shown by a caption Text: no Markdown)
 *   /view       display strings derived by the compiler (value blocks), shown by body Texts:
 *               Markdown-escaped
 *
 * IR values are immutable, so the model shares them instead of copying.
 */
export const NAMESPACES = ['draft', 'committed', 'ui', 'view'] as const;

function fieldValue(field: FieldBlock, v: DataValue | undefined): Coerced<JsonValue> {
  const control = field.control;
  if (control === 'checkbox') return toBoolean(v);
  if (control === 'slider') return toNumber(v, sliderBounds(field.min, field.max));
  if (control === 'select' || control === 'multiselect') return toSelection(v, control === 'multiselect');
  if (STRING_CONTROLS.has(control)) return asString(v, control);
  return { value: '', coerced: true };
}

function shownAs(value: JsonValue): string {
  return Array.isArray(value) ? 'a list' : typeof value;
}

/** Depth-first over the blocks: the first field bound to each name, and the /view strings of value blocks. */
function scanBlocks(blocks: readonly Block[], prefix: readonly number[], surface: Surface, fields: Map<string, FieldBlock>, view: JsonObject,
  registry: ComponentRegistry | undefined): void {
  for (let i = 0; i < blocks.length; i += 1) {
    const block = blocks[i]!;
    if (block.kind === 'field') { if (!fields.has(block.name)) fields.set(block.name, block); }
    else if (block.kind === 'component') {
      const definition = registry?.get(block.component);
      if (definition !== undefined && hasComponentData(block)) view[componentDataKey(block)] = componentData(surface, block, definition);
    }
    else if (block.kind === 'value') {
      const tokens = block.path.slice(1).split('/');
      view[viewKey([...prefix, i])] = escapeMarkdown(displayValue(getAt(surface.data, tokens) as DataValue | undefined));
    } else if (block.kind === 'list') view[listDataKey(block)] = listData(surface, block);
    else if (block.kind === 'table') view[tableDataKey(block)] = tableData(surface, block, registry !== undefined);
    else {
      const children = childBlocks(block);
      if (children !== undefined) scanBlocks(children, [...prefix, i], surface, fields, view, registry);
    }
  }
}

/**
 * A list's display data: `{note, items}`, `items` a plain array of `{key, d0, d1, …}` (the
 * list-view strings; only what a body Text shows is Markdown-escaped, as elsewhere in v0.9).
 */
function listData(surface: Surface, block: Extract<Block, { kind: 'list' }>): JsonObject {
  const { items, note } = listView(surface, block);
  const styles = listDisplayStyles(block);
  return {
    note,
    items: items.map((item) => {
      const entry: JsonObject = { [LIST_ITEM_KEY]: item.key };
      item.values.forEach((v, i) => { entry[listValueKey(i)] = styles[i] === 'body' ? escapeMarkdown(v) : v; });
      return entry;
    }),
  };
}

/**
 * A table's shown page: `{note, items}` like a list's, each item `{key, d0, d1, …}` (one
 * formatted cell per column). Only this page reaches the client. For the basic Texts, body
 * cells are Markdown-escaped; for the app catalogue's `Table` (`appTable`), which shows text as
 * text, cells are as formatted and a link cell's URL is beside it (`u<i>`).
 */
function tableData(surface: Surface, block: Extract<Block, { kind: 'table' }>, appTable: boolean): JsonObject {
  const { rows, note } = tableView(surface, block);
  const styles = block.columns.map(tableCellStyle);
  return {
    note,
    items: rows.map((row) => {
      const entry: JsonObject = { [LIST_ITEM_KEY]: row.key };
      row.cells.forEach((c, i) => {
        entry[listValueKey(i)] = !appTable && styles[i] === 'body' ? escapeMarkdown(c.text) : c.text;
        if (appTable && c.href !== undefined) entry[tableLinkKey(i)] = c.href;
      });
      return entry;
    }),
  };
}

/**
 * An app component's data (compiler/components/view.ts): its collection's `{note, items}`,
 * `items` a plain array of `{key, …fields}` as the data holds them (the component shows them,
 * not a Text), and `bound`, the values of its bound properties that pass their schemas.
 */
function componentData(surface: Surface, block: ComponentBlock, definition: ComponentDefinition): JsonObject {
  const out: JsonObject = {};
  if (block.path !== undefined) {
    const { items, note } = componentView(surface, { ...block, path: block.path }, definition);
    out.note = note;
    out.items = items.map((item) => ({ ...item.value, [COMPONENT_ITEM_KEY]: item.key }) as JsonObject);
  }
  if (Object.keys(block.bind).length > 0) out[COMPONENT_BOUND_KEY] = checkedBoundProps(surface, block, definition) as JsonObject;
  return out;
}

/** `registry`: the app's components, when they are emitted as themselves (their collections need data). */
export function projectSurfaceData(surface: Surface, warnings: SurfacerError[], registry?: ComponentRegistry): JsonObject {
  const fields = new Map<string, FieldBlock>();
  const view: JsonObject = {};
  scanBlocks(surface.view.blocks, [], surface, fields, view, registry);
  const draft: JsonObject = {};
  const bound = (field: FieldBlock, raw: DataValue | undefined): JsonValue => {
    const { value, coerced } = fieldValue(field, raw);
    if (coerced) warnings.push(coercionWarning(field, raw, shownAs(value)));
    return value;
  };
  // Draft keys in IR order, then fields without a draft value. Keys and values read in two
  // arrays (no entry pair per key); the second pass only when some field had no draft key.
  const source = surface.data.draft;
  const keys = Object.keys(source);
  const values = Object.values(source);
  let matched = 0;
  for (let i = 0; i < keys.length; i += 1) {
    const field = fields.get(keys[i]!);
    if (field !== undefined) matched += 1;
    draft[keys[i]!] = field === undefined ? values[i]! : bound(field, values[i]);
  }
  if (matched < fields.size) for (const [name, field] of fields) if (!Object.hasOwn(draft, name)) draft[name] = bound(field, undefined);
  const { committed, ui } = withoutTableRows(surface);
  return { draft, committed, ui, view };
}
