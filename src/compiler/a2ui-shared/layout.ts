import { makeError, type SurfacerError } from '../../errors/index.ts';
import type { ComponentCompileOptions } from '../components/check.ts';
import { checkComponentBlock } from '../components/check.ts';
import { COMPONENT_ITEM_KEY, componentBoundPath, componentDataKey } from '../components/view.ts';
import {
  getAt, surfaceToast, TABLE_ACTIONS_NAMES, type ActionSpec, type Block, type ComponentBlock, type DataValue, type FieldBlock, type IconName, type ListBlock, type ListItemAction, type Surface,
  type TableBlock, type TableColumn, type TabShape,
} from '../../ui-ir/index.ts';
import { listView } from '../list-view.ts';
import { nextSort, tableView, type TableView, type TableViewColumn } from '../table-view.ts';
import { viewKey } from './field-values.ts';
import { ComponentIds, contextFieldNames, idPart as idPartOf } from './ids.ts';

/**
 * The layout of a surface, the same in every A2UI version; how each piece is written is the
 * version's (`ComponentSink`).
 *
 *   root Card → body Column [title Text(h1), …blocks, toast Text(caption)?, actions Row?]
 *
 * heading level n → Text h(n+1); text → Text body|caption; divider → Divider; image → Image
 * (http/https only; otherwise its alt text); value → Row [label caption, value Text bound to
 * /view/<key>]; upload → Text with the block's fallback (A2UI has no file control); group →
 * Column or Row (a titled row group is Column [title h4, Row]), nothing while it holds only
 * values none of which is set (onlyUnsetValues); field → the version's input, in a
 * Column [label?, input, help caption?] when it needs a label above it or has help text; one
 * Button per allowlisted action, its label a body Text; list → Column [title h4?, List, note
 * caption bound to /view/<l-name>/note], the List a template over /view/<l-name>/items whose
 * item is Card → Column [one component per display entry, bound to the item-relative `d<i>`
 * (text → Text h5|body|caption, value → Row [label caption, Text], image → Image, badge → Text
 * caption), Row of item Buttons?] (listDataKeys: what the data projection writes for it).
 * icon → Icon, or Row [Icon, Text body] with a label; video → Video, or Column [Video, caption]
 * with a caption; audio → AudioPlayer (description as its own property); media with a
 * non-http(s) URL → its caption/description as Text, or nothing. tabs → Tabs, each tab's child
 * the tab group's Row/Column (its title is the tab's title); modal → Modal [trigger (the
 * version's, labelled), content Column [title h3?, …blocks]].
 *
 * Every component id is `<base>.<Type>` (a2ui-shared/ids.ts), except the root's, which the sink
 * names (v0.9 needs `root`). Creation order is output order: it is part of the compiled bytes.
 */
export type TextStyle = 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'caption' | 'body';

export interface ComponentSink {
  /** The root Card, made first, holding the body Column (whose id is `${bodyBase}.Column`). */
  root(base: string, body: string): string;
  text(base: string, text: string, style: TextStyle): string;
  /** A Text showing the data at `path` (display-only data the compiler wrote for it). */
  boundText(base: string, path: string, style: TextStyle): string;
  /** `children` is filled in later by the caller for the body: keep the array, do not copy it. */
  column(base: string, children: string[]): string;
  row(base: string, children: string[], layout?: { align?: 'center'; justify?: 'end' }): string;
  divider(base: string): string;
  image(base: string, url: string, alt: string): string;
  /** The input of a field; `labelAbove` when it has no label of its own. */
  input(field: FieldBlock, base: string, label: string): { id: string; labelAbove: boolean };
  /** A Button whose action sends every field of `fieldNames` with the surface's nonce and rev. */
  button(base: string, label: string, action: ActionSpec, fieldNames: readonly string[]): string;
  card(base: string, child: string): string;
  /** An Image whose URL is the data at `path` (item-relative inside a list). */
  boundImage(base: string, path: string, alt: string): string;
  /** A List repeating component `itemId` once per entry of the data at `dataPath`. */
  list(base: string, itemId: string, dataPath: string): string;
  /**
   * A Button of a list item: its action sends `list` (the list's name), `item` (the item's key,
   * read at the item-relative `keyPath`), and the surface's nonce and rev.
   */
  itemButton(base: string, label: string, action: ListItemAction, listName: string, keyPath: string): string;
  /**
   * A Button of a server-side control (a table's sort or page): its action sends `context` (all
   * literals) and the surface's nonce and rev.
   */
  controlButton(base: string, label: string, action: string, context: Readonly<Record<string, string>>, primary: boolean): string;
  icon(base: string, name: IconName): string;
  /** Media players; `url` is http(s) (the layout checked it). */
  video(base: string, url: string): string;
  audio(base: string, url: string, description: string): string;
  /** One tab per entry, its title shown on the tab and `child` its content. */
  tabs(base: string, tabs: ReadonlyArray<{ title: string; child: string }>): string;
  /** `trigger` is shown in place; activating it opens `content` in a dialog (no server action). */
  modal(base: string, trigger: string, content: string): string;
  /**
   * The visible thing that opens a modal, labelled `label` (a Text): a version whose Button can
   * carry no action uses a Button; one whose Button needs an action uses something else.
   */
  modalTrigger(base: string, label: string): string;
  /**
   * An app component (its type in the app catalogue, compiler/components): literal properties as
   * the version writes literals, bound ones as bindings of `path`, and for a collection its items
   * and note (bindings) and one item button per action (each sends what a list item's does).
   */
  custom(base: string, type: string, props: CustomComponentProps): string;
  /**
   * A table as the app catalogue's `Table` (compiler/components/table-component.ts), for a
   * version that has it (v0.9); without it, a client of the app catalogue gets the basic layout.
   */
  appTable?(base: string, table: AppTableProps): string;
}

/** A server-side control's action: its name and literal context (the sink adds nonce and rev). */
export interface ControlAction {
  name: string;
  context: Readonly<Record<string, string>>;
}

export interface AppTableProps {
  caption?: string;
  columns: ReadonlyArray<{ key: string; label: string; type: TableColumn['type']; align: 'start' | 'end'; sorted?: 'asc' | 'desc'; sort?: ControlAction }>;
  rowsPath: string;
  notePath: string;
  page: number;
  pages: number;
  total: number;
  pageLabel: string;
  previous?: ControlAction;
  next?: ControlAction;
  rowActions: ReadonlyArray<{ action: ListItemAction; listName: string; keyPath: string }>;
}

export interface CustomComponentProps {
  literals: Readonly<Record<string, DataValue>>;
  bound: Readonly<Record<string, string>>;
  collection?: {
    itemsPath: string;
    notePath: string;
    actions: ReadonlyArray<{ action: ListItemAction; listName: string; keyPath: string }>;
  };
}

/** The /view key of a list (name-based: stable when blocks move) and the keys of each item. */
export function listDataKey(block: Pick<ListBlock, 'name'>): string {
  return `l-${block.name}`;
}
/** The /view key of a table's shown page (its items are a list's: `key` and one `d<i>` per column). */
export function tableDataKey(block: Pick<TableBlock, 'name'>): string {
  return `t-${block.name}`;
}
/** The text style each column of a table is shown in (each version escapes by style). */
export function tableCellStyle(column: Pick<TableColumn, 'type'>): TextStyle {
  return column.type === 'badge' ? 'caption' : 'body';
}
const TABLE_SORT_ACTION = TABLE_ACTIONS_NAMES.sort;
const SORT_BUTTONS_PER_ROW = 3;
const TABLE_PAGE_ACTION = TABLE_ACTIONS_NAMES.page;

/** A sort button's label: the column, and an arrow on the sorted one. */
function sortLabel(c: TableViewColumn): string {
  return c.sorted === 'asc' ? `${c.label} ↑` : c.sorted === 'desc' ? `${c.label} ↓` : c.label;
}
export const LIST_ITEM_KEY = 'key';
export function listValueKey(index: number): string {
  return `d${index}`;
}

const ITEM_TEXT_STYLE: Record<'title' | 'body' | 'caption', TextStyle> = { title: 'h5', body: 'body', caption: 'caption' };

/** The text style each display entry of a list is shown in (each version escapes by style). */
export function listDisplayStyles(block: ListBlock): (TextStyle | undefined)[] {
  return block.display.map((d) => (d.kind === 'text' ? ITEM_TEXT_STYLE[d.style] : d.kind === 'value' ? 'body' : d.kind === 'badge' ? 'caption' : undefined));
}

export interface LayoutResult {
  rootId: string;
  warnings: SurfacerError[];
  /** Errors of the soft_fail kind: what was left out. */
  dropped: SurfacerError[];
}

class Layout {
  readonly warnings: SurfacerError[] = [];
  readonly dropped: SurfacerError[] = [];
  private readonly ids: ComponentIds;

  constructor(
    private readonly surface: Surface,
    private readonly sink: ComponentSink,
    private readonly allowedActions: ReadonlySet<string> | undefined,
    private readonly reserved: ReadonlyMap<string, string>,
    private readonly components: ComponentCompileOptions | undefined,
  ) {
    this.ids = new ComponentIds(surface.id);
  }

  build(): LayoutResult {
    const { surface, sink, ids } = this;
    // Field names first: every button's context lists them all.
    const fieldNames = contextFieldNames(surface.view.blocks, this.reserved, this.warnings);
    const bodyBase = ids.base('body');
    const rootId = sink.root(ids.base('root'), `${bodyBase}.Column`);
    const children: string[] = [];
    sink.column(bodyBase, children);
    children.push(sink.text(ids.base('title'), surface.view.title, 'h1'));
    this.blocks(surface.view.blocks, [], children);
    if (surfaceToast(surface) !== undefined) children.push(sink.boundText(ids.base('toast'), '/ui/toast/text', 'caption'));
    const buttons = this.actions(fieldNames);
    if (buttons.length > 0) children.push(sink.row(ids.base('actions'), buttons, { justify: 'end' }));
    return { rootId, warnings: this.warnings, dropped: this.dropped };
  }

  /** Appends the ids of `blocks` (at `prefix`) to `out`. */
  private blocks(blocks: readonly Block[], prefix: readonly number[], out: string[]): string[] {
    const depth = prefix.length;
    for (let i = 0; i < blocks.length; i += 1) {
      const indexPath = new Array<number>(depth + 1);
      for (let k = 0; k < depth; k += 1) indexPath[k] = prefix[k]!;
      indexPath[depth] = i;
      const id = this.block(blocks[i]!, indexPath);
      if (id !== undefined) out.push(id);
    }
    return out;
  }

  private block(block: Block, indexPath: number[]): string | undefined {
    const { sink } = this;
    const key = this.ids.unique(block, indexPath, this.warnings);
    switch (block.kind) {
      case 'heading': return sink.text(key, block.text, `h${Math.min(block.level + 1, 5)}` as TextStyle);
      case 'text': return sink.text(key, block.text, block.tone);
      case 'divider': return sink.divider(key);
      case 'image': {
        if (!/^https?:\/\//i.test(block.url)) {
          this.dropped.push(makeError('A2UI_S2C_URL_NOT_ALLOWED', `image ${key} has a non-http(s) URL`));
          return block.alt === '' ? undefined : sink.text(key, block.alt, 'body');
        }
        return sink.image(key, block.url, block.alt);
      }
      case 'value': {
        const label = sink.text(`${key}.label`, block.label, 'caption');
        const value = sink.boundText(`${key}.value`, `/view/${viewKey(indexPath)}`, 'body');
        return sink.row(key, [label, value], { align: 'center' });
      }
      case 'upload': {
        this.warnings.push(makeError('COMPILER_A2UI_UPLOAD_FALLBACK', `upload "${block.name}" shown as text`));
        return sink.text(key, block.fallback !== '' ? block.fallback : `${block.label}: file upload is not available here.`, 'body');
      }
      case 'group': {
        // As on the htmx page: a group of values none of which is set yet ("Saved" before the
        // first save) shows nothing. Its ids are still taken, so the ids of later blocks do not
        // depend on whether it is shown.
        if (onlyUnsetValues(block, this.surface)) {
          this.reserveIds(block.blocks, indexPath);
          return undefined;
        }
        if (block.title === undefined || block.title === '') {
          const items = this.blocks(block.blocks, indexPath, []);
          return block.layout === 'row' ? sink.row(key, items) : sink.column(key, items);
        }
        // The title Text comes after the items' components: component order is output.
        if (block.layout === 'column') {
          const list: string[] = [''];
          this.blocks(block.blocks, indexPath, list);
          list[0] = sink.text(`${key}.title`, block.title, 'h4');
          return sink.column(key, list);
        }
        const items = this.blocks(block.blocks, indexPath, []);
        const title = sink.text(`${key}.title`, block.title, 'h4');
        const row = sink.row(`${key}.items`, items);
        return sink.column(key, [title, row]);
      }
      case 'field': return this.field(block, key);
      case 'list': return this.list(block, key, indexPath);
      case 'table': return this.table(block, key, indexPath);
      case 'icon': {
        if (block.label === '') return sink.icon(key, block.name);
        const icon = sink.icon(key, block.name);
        return sink.row(key, [icon, sink.text(`${key}.label`, block.label, 'body')], { align: 'center' });
      }
      case 'video': {
        if (!this.mediaUrlOk(block.url, key, 'video')) return block.caption === '' ? undefined : sink.text(key, block.caption, 'caption');
        if (block.caption === '') return sink.video(key, block.url);
        const video = sink.video(key, block.url);
        return sink.column(key, [video, sink.text(`${key}.caption`, block.caption, 'caption')]);
      }
      case 'audio': {
        if (!this.mediaUrlOk(block.url, key, 'audio')) return block.description === '' ? undefined : sink.text(key, block.description, 'caption');
        return sink.audio(key, block.url, block.description);
      }
      case 'tabs': {
        const tabs = block.blocks.map((tab, i) => {
          const tabPath = [...indexPath, i];
          return { title: tab.title, child: this.tabBody(tab, tabPath) };
        });
        return sink.tabs(key, tabs);
      }
      case 'component': return this.custom(block, key, indexPath);
      case 'modal': {
        const trigger = sink.modalTrigger(`${key}.open`, sink.text(`${key}.open.label`, block.label, 'body'));
        const parts: string[] = [];
        const content = sink.column(`${key}.content`, parts);
        if (block.title !== undefined && block.title !== '') parts.push(sink.text(`${key}.title`, block.title, 'h3'));
        this.blocks(block.blocks, indexPath, parts);
        return sink.modal(key, trigger, content);
      }
    }
  }

  /**
   * An app component, for a client holding the app catalogue. With the basic catalogue the
   * pipeline has already replaced every component by its fallback (compiler/components), and
   * checked every one here against the app: reaching this without either is a bug.
   */
  private custom(block: ComponentBlock, key: string, indexPath: number[]): string {
    const components = this.components;
    if (components?.catalog !== 'app') throw new Error(`component "${block.name}" reached the layout without the app catalogue`);
    const checked = checkComponentBlock(block, components.registry);
    if (!checked.ok) throw new Error(checked.error.technical_detail);
    // Bound properties read the checked copy under /view, not the path the block names.
    const bound = Object.fromEntries(Object.keys(block.bind).map((key) => [key, componentBoundPath(block, key)]));
    const props: CustomComponentProps = { literals: checked.props, bound };
    if (block.path !== undefined) {
      const dataPath = `/view/${componentDataKey(block)}`;
      const actions = this.allowedItemActions(block, indexPath).map(({ action }) => ({ action, listName: block.name, keyPath: COMPONENT_ITEM_KEY }));
      props.collection = { itemsPath: `${dataPath}/items`, notePath: `${dataPath}/note`, actions };
    }
    return this.sink.custom(key, block.component, props);
  }

  /** Takes the ids `blocks` (at `prefix`) would have, emitting nothing. */
  private reserveIds(blocks: readonly Block[], prefix: readonly number[]): void {
    blocks.forEach((b, i) => {
      const indexPath = [...prefix, i];
      this.ids.unique(b, indexPath, this.warnings);
      if (b.kind === 'group') this.reserveIds(b.blocks, indexPath);
    });
  }

  /** A tab's content: its group's Row or Column (the title is on the tab). */
  private tabBody(tab: TabShape, indexPath: number[]): string {
    const key = this.ids.unique(tab, indexPath, this.warnings);
    const items = this.blocks(tab.blocks, indexPath, []);
    return tab.layout === 'row' ? this.sink.row(key, items) : this.sink.column(key, items);
  }

  /** The IR admits http(s) only; anything else is dropped here too (never written to a client). */
  private mediaUrlOk(url: string, key: string, what: string): boolean {
    if (/^https?:\/\//i.test(url)) return true;
    this.dropped.push(makeError('A2UI_S2C_URL_NOT_ALLOWED', `${what} ${key} has a non-http(s) URL`));
    return false;
  }

  private list(block: ListBlock, key: string, indexPath: number[]): string {
    const { sink } = this;
    const view = listView(this.surface, block);
    if (view.invalid > 0) {
      this.warnings.push(makeError('COMPILER_A2UI_LIST_ITEM_SKIPPED',
        `list "${block.name}" left out ${view.invalid} stored entries without a valid, unique "${block.itemKey}"`, { pointer: block.path }));
    }
    const dataPath = `/view/${listDataKey(block)}`;
    const children: string[] = [];
    const id = sink.column(key, children);
    if (block.title !== undefined && block.title !== '') children.push(sink.text(`${key}.title`, block.title, 'h4'));
    const parts: string[] = [];
    const item = sink.card(`${key}.item`, sink.column(`${key}.item`, parts));
    children.push(sink.list(`${key}.items`, item, `${dataPath}/items`));
    const styles = listDisplayStyles(block);
    block.display.forEach((d, i) => {
      const base = `${key}.${listValueKey(i)}`;
      const path = listValueKey(i);
      if (d.kind === 'image') parts.push(sink.boundImage(base, path, d.alt));
      else if (d.kind === 'value') {
        const label = sink.text(`${base}.label`, d.label, 'caption');
        parts.push(sink.row(base, [label, sink.boundText(`${base}.value`, path, 'body')], { align: 'center' }));
      } else parts.push(sink.boundText(base, path, styles[i]!));
    });
    this.itemButtons(block, key, indexPath, parts);
    children.push(sink.boundText(`${key}.note`, `${dataPath}/note`, 'caption'));
    return id;
  }

  /**
   * A table with the basic catalogue: Column [caption h4?, sort Column [caption, Rows of three
   * Buttons]?, List of row Cards, pager
   * Row?, note]. Each row Card holds one Row [label, value] per column (bound to the row's
   * `c<i>`) and its row buttons; the sort Row one Button per sortable column (what it sets:
   * table-view nextSort), the pager Previous / Page n of m / Next. The rows are the shown page
   * only (table-view), and controls appear only when their action is allowlisted.
   */
  private table(block: TableBlock, key: string, indexPath: number[]): string {
    const { sink } = this;
    const view = tableView(this.surface, block);
    if (view.invalid > 0) {
      this.warnings.push(makeError('COMPILER_A2UI_LIST_ITEM_SKIPPED',
        `table "${block.name}" left out ${view.invalid} stored entries without a valid, unique "${block.itemKey}"`, { pointer: block.path }));
    }
    const allowed = (name: string): boolean => this.allowedActions === undefined || this.allowedActions.has(name);
    const dataPath = `/view/${tableDataKey(block)}`;
    if (this.components?.catalog === 'app' && sink.appTable !== undefined) return this.appTable(block, key, indexPath, view, allowed, dataPath);
    const children: string[] = [];
    const id = sink.column(key, children);
    if (block.title !== undefined && block.title !== '') children.push(sink.text(`${key}.title`, block.title, 'h4'));
    const sortable = view.columns.filter((c) => c.sortable);
    if (sortable.length > 0 && view.total > 1 && allowed(TABLE_SORT_ACTION)) {
      // Rows of at most SORT_BUTTONS_PER_ROW: a basic Row never wraps, and a phone is narrow.
      const lines = [sink.text(`${key}.sortby`, 'Sort by', 'caption')];
      for (let start = 0; start < sortable.length; start += SORT_BUTTONS_PER_ROW) {
        const buttons = sortable.slice(start, start + SORT_BUTTONS_PER_ROW).map((c) => {
          const base = `${key}.${idPartOf(`sort-${c.key}`)}`;
          const label = sink.text(`${base}.label`, sortLabel(c), 'body');
          return sink.controlButton(base, label, TABLE_SORT_ACTION, { table: block.name, column: c.key, dir: nextSort(c) }, c.sorted !== undefined);
        });
        lines.push(sink.row(`${key}.sort.r${start / SORT_BUTTONS_PER_ROW}`, buttons, { align: 'center' }));
      }
      children.push(sink.column(`${key}.sort`, lines));
    }
    const parts: string[] = [];
    const item = sink.card(`${key}.row`, sink.column(`${key}.row`, parts));
    children.push(sink.list(`${key}.rows`, item, `${dataPath}/items`));
    block.columns.forEach((c, i) => {
      const base = `${key}.${listValueKey(i)}`;
      const label = sink.text(`${base}.label`, c.label, 'caption');
      parts.push(sink.row(base, [label, sink.boundText(`${base}.value`, listValueKey(i), tableCellStyle(c))], { align: 'center' }));
    });
    this.itemButtons(block, key, indexPath, parts);
    if (view.pages > 1 && allowed(TABLE_PAGE_ACTION)) {
      const pager: string[] = [];
      const page = (name: string, label: string, to: number): void => {
        const base = `${key}.${name}`;
        pager.push(sink.controlButton(base, sink.text(`${base}.label`, label, 'body'), TABLE_PAGE_ACTION, { table: block.name, page: String(to) }, false));
      };
      if (view.page > 1) page('prev', 'Previous', view.page - 1);
      pager.push(sink.text(`${key}.pageof`, view.pageLabel, 'caption'));
      if (view.page < view.pages) page('next', 'Next', view.page + 1);
      children.push(sink.row(`${key}.pager`, pager, { align: 'center' }));
    }
    children.push(sink.boundText(`${key}.note`, `${dataPath}/note`, 'caption'));
    return id;
  }

  /**
   * A table as the app catalogue's `Table`: the same controls as the basic layout (a sort per
   * sortable column while there is more than one row, Previous / Next while there are pages on
   * either side, row buttons), each carrying the action the basic Button would.
   */
  private appTable(block: TableBlock, key: string, indexPath: number[], view: TableView, allowed: (name: string) => boolean, dataPath: string): string {
    const canSort = view.total > 1 && allowed(TABLE_SORT_ACTION);
    const canPage = view.pages > 1 && allowed(TABLE_PAGE_ACTION);
    const pageTo = (to: number): ControlAction => ({ name: TABLE_PAGE_ACTION, context: { table: block.name, page: String(to) } });
    return this.sink.appTable!(key, {
      ...(block.title === undefined || block.title === '' ? {} : { caption: block.title }),
      columns: view.columns.map((c) => ({
        key: c.key, label: c.label, type: c.type, align: c.type === 'number' || c.type === 'currency' ? 'end' : 'start',
        ...(c.sorted === undefined ? {} : { sorted: c.sorted }),
        ...(c.sortable && canSort ? { sort: { name: TABLE_SORT_ACTION, context: { table: block.name, column: c.key, dir: nextSort(c) } } } : {}),
      })),
      rowsPath: `${dataPath}/items`, notePath: `${dataPath}/note`,
      page: view.page, pages: view.pages, total: view.total, pageLabel: view.pageLabel,
      ...(canPage && view.page > 1 ? { previous: pageTo(view.page - 1) } : {}),
      ...(canPage && view.page < view.pages ? { next: pageTo(view.page + 1) } : {}),
      rowActions: this.allowedItemActions(block, indexPath).map(({ action }) => ({ action, listName: block.name, keyPath: LIST_ITEM_KEY })),
    });
  }

  /**
   * The Row of a list item's (or table row's) buttons, appended to `parts` when any is
   * allowlisted; each sends `{list: name, item: <the item's key>}`.
   */
  private itemButtons(block: ListBlock | TableBlock, key: string, indexPath: number[], parts: string[]): void {
    const buttons = this.allowedItemActions(block, indexPath).map(({ action, i }) => {
      const base = `${key}.${idPartOf(`a${i}-${action.name}`)}`;
      const label = this.sink.text(`${base}.label`, action.label, 'body');
      return this.sink.itemButton(base, label, action, block.name, LIST_ITEM_KEY);
    });
    if (buttons.length > 0) parts.push(this.sink.row(`${key}.actions`, buttons, { justify: 'end' }));
  }

  /** The block's item actions that are allowlisted; each left out is a soft_fail finding. */
  private allowedItemActions(block: ListBlock | TableBlock | ComponentBlock, indexPath: number[]): Array<{ action: ListItemAction; i: number }> {
    return block.actions.flatMap((action, i) => {
      if (this.allowedActions === undefined || this.allowedActions.has(action.name)) return [{ action, i }];
      this.dropped.push(makeError('A2UI_S2C_ACTION_NOT_ALLOWED', `item action "${action.name}" is not allowlisted; its button was left out`,
        { pointer: `/view/blocks/${indexPath.join('/blocks/')}/actions/${i}` }));
      return [];
    });
  }

  private field(f: FieldBlock, key: string): string {
    const label = f.required ? `${f.label} *` : f.label;
    const input = this.sink.input(f, key, label);
    const hasHelp = f.help !== undefined && f.help !== '';
    if (!input.labelAbove && !hasHelp) return input.id;
    const parts: string[] = [];
    if (input.labelAbove) parts.push(this.sink.text(`${key}.label`, label, 'caption'));
    parts.push(input.id);
    if (hasHelp) parts.push(this.sink.text(`${key}.help`, f.help!, 'caption'));
    return this.sink.column(key, parts);
  }

  private actions(fieldNames: readonly string[]): string[] {
    const out: string[] = [];
    this.surface.view.actions.forEach((action, i) => {
      if (this.allowedActions !== undefined && !this.allowedActions.has(action.name)) {
        this.dropped.push(makeError('A2UI_S2C_ACTION_NOT_ALLOWED', `action "${action.name}" is not allowlisted; its button was left out`,
          { pointer: `/view/actions/${i}` }));
        return;
      }
      const key = this.ids.base(`a${i}-${action.name}`);
      const label = this.sink.text(`${key}.label`, action.label, 'body');
      out.push(this.sink.button(key, label, action, fieldNames));
    });
    return out;
  }
}

/**
 * True for a group holding only value blocks (or such groups), at least one, none of whose values
 * is set: absent, "", or an empty list or map (the htmx page's rule, compiler/html/view-model.ts).
 */
export function onlyUnsetValues(group: Extract<Block, { kind: 'group' }>, surface: Pick<Surface, 'data'>): boolean {
  if (group.blocks.length === 0) return false;
  return group.blocks.every((b) => (b.kind === 'group' ? onlyUnsetValues(b, surface)
    : b.kind === 'value' && isUnset(getAt(surface.data, b.path.slice(1).split('/')) as DataValue | undefined)));
}

function isUnset(v: DataValue | undefined): boolean {
  if (v === undefined || v === '') return true;
  if (Array.isArray(v)) return v.every(isUnset);
  return typeof v === 'object' && v !== null && Object.keys(v).length === 0;
}

/**
 * Lays out one surface through `sink`; field names in `reserved` (name → what for) are left out
 * of every button's context, with a warning.
 */
export function layoutSurface(surface: Surface, sink: ComponentSink, allowedActions: ReadonlySet<string> | undefined,
  reserved: ReadonlyMap<string, string>, components?: ComponentCompileOptions): LayoutResult {
  return new Layout(surface, sink, allowedActions, reserved, components).build();
}
