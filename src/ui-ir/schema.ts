import { z } from 'zod';
import { FieldPattern } from './field-rules.ts';
import { DATA_KEY_PATTERN, isSafeDataKey } from './pointer.ts';

/**
 * UI IR v1: the strong-fact state both compilers read. A2UI- and HTML-agnostic.
 * Changing a shape here is a contract change: bump IR_VERSION and the fixtures.
 */
export const IR_VERSION = 1 as const;

export const DataKey = z.string().regex(DATA_KEY_PATTERN).refine(isSafeDataKey, 'reserved key');

const MAX_DATA_DEPTH = 8;

export type DataValue = string | number | boolean | DataValue[] | { [key: string]: DataValue };

/** Iterative, so a huge or deep value cannot overflow the stack inside safeParse. */
function dataDepth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') { max = Math.max(max, depth); continue; }
    max = Math.max(max, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
}

/**
 * zod records silently drop an own `__proto__` key instead of rejecting it, so the raw input
 * is checked first: a reserved key anywhere makes the whole map invalid.
 */
function hasReservedKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    for (const key of Object.keys(node)) if (!Array.isArray(node) && !isSafeDataKey(key)) return true;
    stack.push(...Object.values(node));
  }
  return false;
}

/** No null (A2UI has none) and finite numbers only; objects keyed by safe data keys. */
export const DataValueSchema: z.ZodType<DataValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number().finite(),
    z.boolean(),
    z.array(DataValueSchema),
    z.record(DataKey, DataValueSchema),
  ]),
);

export const DataMapSchema = z
  .custom<unknown>((input) => !hasReservedKey(input), 'data keys must match [A-Za-z0-9_-] and not be reserved')
  .pipe(z.record(DataKey, DataValueSchema))
  .refine((m) => dataDepth(m) <= MAX_DATA_DEPTH, `data nested deeper than ${MAX_DATA_DEPTH}`);
export type DataMap = z.infer<typeof DataMapSchema>;

/** Surface ids are short, lowercase, and safe inside A2UI ids, HTML ids and URLs. */
export const SurfaceId = z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/);
export type SurfaceId = z.infer<typeof SurfaceId>;

export const SurfaceEpoch = z.number().int().nonnegative();
export const SurfaceRev = z.number().int().nonnegative();
export const Nonce = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);
/** The IR's timestamps (also checked without zod on the hot path: validate.ts). */
export const ISO_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
export const IsoTime = z.string().regex(ISO_TIME_PATTERN);

export const SurfaceLifecycle = z.enum(['active', 'editing', 'expired', 'deleted']);
export type SurfaceLifecycle = z.infer<typeof SurfaceLifecycle>;

const Text = z.string().max(4000);
const ShortText = z.string().min(1).max(200);

export const FieldControl = z.enum([
  'text', 'textarea', 'number', 'secret', 'date', 'datetime', 'time',
  'checkbox', 'select', 'multiselect', 'slider', 'tags', 'url', 'email',
]);
export type FieldControl = z.infer<typeof FieldControl>;

export const FieldOption = z.object({ value: z.string().min(1).max(100), label: ShortText });
export type FieldOption = z.infer<typeof FieldOption>;

/** An input bound to `/draft/<name>`. */
export const FieldBlock = z.object({
  kind: z.literal('field'),
  name: DataKey,
  label: ShortText,
  control: FieldControl,
  options: z.array(FieldOption).max(50).optional(),
  placeholder: z.string().max(200).optional(),
  help: z.string().max(500).optional(),
  required: z.boolean().default(false),
  min: z.number().finite().optional(),
  max: z.number().finite().optional(),
  step: z.number().positive().optional(),
  minLength: z.number().int().positive().max(100_000).optional(),
  maxLength: z.number().int().positive().max(100_000).optional(),
  /** The whole value must match it; its message is what the person reads (ui-ir/field-rules.ts). */
  pattern: FieldPattern.optional(),
});
export type FieldBlock = z.infer<typeof FieldBlock>;

export const HeadingBlock = z.object({ kind: z.literal('heading'), text: ShortText, level: z.number().int().min(1).max(4).default(2) });
export const TextBlock = z.object({ kind: z.literal('text'), text: Text, tone: z.enum(['body', 'caption']).default('body') });
export const DividerBlock = z.object({ kind: z.literal('divider') });
/** Http(s) image; other schemes never reach the IR. */
export const ImageBlock = z.object({
  kind: z.literal('image'),
  url: z.string().max(2048).regex(/^https?:\/\/[^\s"'<>]+$/),
  alt: z.string().max(300).default(''),
});
/** Shows a committed (or ui) value read-only, e.g. the saved character name. */
export const ValueBlock = z.object({
  kind: z.literal('value'),
  label: ShortText,
  path: z.string().regex(/^\/(committed|ui)(\/[A-Za-z0-9_-]{1,64}){1,6}$/),
});
/** A file request. Hosts without a file control show `fallback` instead. */
/** A file extension (`.png`) or a MIME type pattern (`image/*`). */
export const UploadAccept = z.string().regex(/^(\.[A-Za-z0-9]{1,10}|[a-z]+\/[A-Za-z0-9.+*-]+)$/);
export const UploadBlock = z.object({
  kind: z.literal('upload'),
  name: DataKey,
  label: ShortText,
  accept: z.array(UploadAccept).max(20),
  purpose: z.string().max(300),
  fallback: z.string().max(500),
});

/** An action name as the app's action registry spells it (the allowlist). */
export const ActionName = z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/);

/** Most items one list block shows; the rest are counted in its note (design: docs/a2ui.md "Collections"). */
export const MAX_LIST_ITEMS = 200;

/**
 * Where a list's items live: an array under `/committed` or `/ui`, read by own property only.
 * Not at or under `/ui/toast`, which addToast writes without a new rev (a list's data changes
 * only with a new rev, so a click on a vanished item is stale, not forged).
 */
export const ListPath = z.string()
  .regex(/^\/(committed|ui)(\/[A-Za-z0-9_-]{1,64}){1,5}$/)
  .refine((p) => p.slice(1).split('/').every(isSafeDataKey), 'reserved key in a list path')
  .refine((p) => p !== '/ui/toast' && !p.startsWith('/ui/toast/'), '/ui/toast belongs to the toast mirror');

/** One thing each item of a list shows, read from the item's `field`. */
export const ListItemDisplay = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), field: DataKey, style: z.enum(['title', 'body', 'caption']).default('body') }),
  z.object({ kind: z.literal('value'), field: DataKey, label: ShortText }),
  /** The field holds an http(s) URL; anything else shows no image. */
  z.object({ kind: z.literal('image'), field: DataKey, alt: z.string().max(300).default('') }),
  z.object({ kind: z.literal('badge'), field: DataKey }),
]);
export type ListItemDisplay = z.infer<typeof ListItemDisplay>;

/** A button on every item; its action (from the app's allowlist) receives the list's name and the item's key. */
export const ListItemAction = z.object({ name: ActionName, label: ShortText, primary: z.boolean().default(false) });
export type ListItemAction = z.infer<typeof ListItemAction>;

/**
 * A collection: the items of the array at `path`, each an object whose `itemKey` field holds its
 * stable key (a data key). Items without a valid key, and later items repeating a key, are not
 * shown (ui-ir/collections.ts decides which items a list has, for every compiler and ingress).
 * At most `maxItems` are shown; the note says how many there are, or `empty` when there is none.
 */
export const ListBlock = z.object({
  kind: z.literal('list'),
  /** Unique among the view's lists; per-item actions send it back as `list`. */
  name: DataKey,
  title: z.string().max(200).optional(),
  path: ListPath,
  itemKey: DataKey.default('id'),
  display: z.array(ListItemDisplay).min(1).max(8),
  actions: z.array(ListItemAction).max(4).default([]),
  empty: z.string().max(300).default('Nothing to show yet.'),
  maxItems: z.number().int().min(1).max(MAX_LIST_ITEMS).default(25),
});
export type ListBlock = z.infer<typeof ListBlock>;

/** Hard bounds of a table block; directive budgets (directives/limits.ts) are usually tighter. */
export const MAX_TABLE_COLUMNS = 20;
export const MAX_TABLE_PAGE_SIZE = 100;

/** How a column shows its cells (compiler/table-view.ts formats them, the same for every compiler). */
export const TableColumnType = z.enum(['text', 'number', 'date', 'currency', 'badge', 'link']);
export type TableColumnType = z.infer<typeof TableColumnType>;

/**
 * Locales the table formatter knows. A closed list on purpose: numbers and dates are formatted
 * by Surfacer's own rules per locale, not by the machine's ICU or time zone, so compiled output
 * stays a pure function of the IR.
 */
export const TABLE_LOCALES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'ja-JP'] as const;
export const TableLocale = z.enum(TABLE_LOCALES);
export type TableLocale = z.infer<typeof TableLocale>;

export const TableColumn = z.object({
  /** The field of each row the column shows (and sorts by). */
  key: DataKey,
  label: ShortText,
  type: TableColumnType.default('text'),
  locale: TableLocale.default('en-US'),
  /** ISO 4217 code; currency columns only. */
  currency: z.string().regex(/^[A-Z]{3}$/).default('USD'),
  /** Fraction digits of number columns (currency columns use the currency's). */
  digits: z.number().int().min(0).max(6).default(0),
  sortable: z.boolean().default(true),
});
export type TableColumn = z.infer<typeof TableColumn>;

/** Where the sort and page of the view's tables live, under /ui (one map entry per table name). */
export const TABLE_STATE_KEY = 'table_state';
/**
 * Where `ui.show_table` keeps the rows it was given, under /ui (one entry per table name). Never
 * sent to an A2UI client, whatever the view shows now (compiler/table-view.ts withoutTableRows).
 */
export const TABLE_ROWS_KEY = 'tables';

export const SortDirection = z.enum(['asc', 'desc']);
export type SortDirection = z.infer<typeof SortDirection>;

/**
 * Tabular data: the rows of the array at `path` (a list's item rules: ui-ir/collections.ts),
 * sorted and paged on the server (ui-ir/tables.ts), so a client receives one page only. `sort`
 * is the order before anyone sorts; the sort and page the user chose live under
 * `/ui/table_state/<name>` (built-in `table.sort` / `table.page` actions change them with a new
 * rev). Row `actions` send `{list: name, item: key}` like a list item's.
 */
export const TableBlock = z.object({
  kind: z.literal('table'),
  /** Unique among the view's lists, components and tables. */
  name: DataKey,
  /** The table's caption. */
  title: z.string().max(200).optional(),
  path: ListPath,
  itemKey: DataKey.default('id'),
  columns: z.array(TableColumn).min(1).max(MAX_TABLE_COLUMNS),
  pageSize: z.number().int().min(1).max(MAX_TABLE_PAGE_SIZE).default(10),
  sort: z.object({ column: DataKey, dir: SortDirection.default('asc') }).optional(),
  actions: z.array(ListItemAction).max(4).default([]),
  empty: z.string().max(300).default('Nothing to show yet.'),
})
  .refine((b) => new Set(b.columns.map((c) => c.key)).size === b.columns.length, 'column keys must be unique')
  .refine((b) => b.sort === undefined || b.columns.some((c) => c.key === b.sort!.column && c.sortable), 'the initial sort names a sortable column')
  .refine((b) => b.path !== `/ui/${TABLE_STATE_KEY}` && !b.path.startsWith(`/ui/${TABLE_STATE_KEY}/`), `/ui/${TABLE_STATE_KEY} holds the tables' sort and page`);
export type TableBlock = z.infer<typeof TableBlock>;

/**
 * The basic catalogue's media and icons. URLs are http(s) like images (other schemes never reach
 * the IR); every compiler checks them again before it writes one.
 */
const HttpUrl = z.string().max(2048).regex(/^https?:\/\/[^\s"'<>]+$/);

/**
 * Icon names both A2UI versions know (v0.8's 48, in its schema's order; v0.9 has these and more),
 * so one IR compiles to either: the one list, which the v0.8 catalogue takes as its enum and
 * tests hold to v0.8's official schema and to v0.9's list. The HTML compiler shows each as a
 * Unicode glyph (no icon font needed).
 */
export const ICON_NAMES = [
  'accountCircle', 'add', 'arrowBack', 'arrowForward', 'attachFile', 'calendarToday', 'call', 'camera',
  'check', 'close', 'delete', 'download', 'edit', 'event', 'error', 'favorite', 'favoriteOff', 'folder',
  'help', 'home', 'info', 'locationOn', 'lock', 'lockOpen', 'mail', 'menu', 'moreVert', 'moreHoriz',
  'notificationsOff', 'notifications', 'payment', 'person', 'phone', 'photo', 'print', 'refresh',
  'search', 'send', 'settings', 'share', 'shoppingCart', 'star', 'starHalf', 'starOff', 'upload',
  'visibility', 'visibilityOff', 'warning',
] as const;
export const IconName = z.enum(ICON_NAMES);
export type IconName = z.infer<typeof IconName>;

/** An icon; `label` is shown beside it (and is its accessible name), or the icon stands alone. */
export const IconBlock = z.object({ kind: z.literal('icon'), name: IconName, label: z.string().max(200).default('') });
/** A video player; `caption` is shown under it. */
export const VideoBlock = z.object({ kind: z.literal('video'), url: HttpUrl, caption: z.string().max(300).default('') });
/** An audio player; `description` says what it plays. */
export const AudioBlock = z.object({ kind: z.literal('audio'), url: HttpUrl, description: z.string().max(300).default('') });

/**
 * Component types of A2UI's basic catalogue (v0.8 and v0.9 together): an app component may not
 * take one of these names, so a custom component can never be mistaken for a basic one.
 */
export const BASIC_COMPONENT_TYPES: ReadonlySet<string> = new Set([
  'Text', 'Image', 'Icon', 'Video', 'AudioPlayer', 'Row', 'Column', 'List', 'Card', 'Tabs', 'Divider', 'Modal',
  'Button', 'CheckBox', 'TextField', 'DateTimeInput', 'MultipleChoice', 'ChoicePicker', 'Slider',
]);

/**
 * Components Surfacer puts in every app catalogue itself (compiler/components/table-component.ts:
 * a `table` block's `Table`): an app component may not take these names either.
 */
export const BUILTIN_COMPONENT_TYPES: ReadonlySet<string> = new Set(['Table']);

/** An app component's name: its A2UI component type in the app's catalogue. */
export const ComponentName = z.string().regex(/^[A-Z][A-Za-z0-9]{0,63}$/)
  .refine((n) => !BASIC_COMPONENT_TYPES.has(n), 'the name of a basic-catalogue component')
  .refine((n) => !BUILTIN_COMPONENT_TYPES.has(n), 'the name of a component Surfacer builds in');

/** Where a bound property reads its value (like a value block's path), by own property only. */
export const BindPath = z.string()
  .regex(/^\/(committed|ui)(\/[A-Za-z0-9_-]{1,64}){1,6}$/)
  .refine((p) => p.slice(1).split('/').every(isSafeDataKey), 'reserved key in a bound path');

/**
 * One of the app's own components (defineComponent), placed by name. The IR does not know the
 * app: `props` are checked against the component's zod schema where the app is known (directive
 * apply, the compilers, the semantic validators). `bind` maps a property to data it reads
 * (never also a literal in `props`). With `path` the component shows a collection exactly like
 * a list (ui-ir/collections.ts: same item rules, same `maxItems`), and its per-item `actions`
 * send `{list: name, item: key}` like a list's — so its fallback can be a list with the same
 * name, path, itemKey and actions, reaching the same handler with the same context.
 */
export const ComponentBlock = z.object({
  kind: z.literal('component'),
  component: ComponentName,
  /** Unique among the view's lists and components (one namespace: item actions send it as `list`). */
  name: DataKey,
  props: DataMapSchema.default({}),
  bind: z.record(DataKey, BindPath).default({}),
  path: ListPath.optional(),
  itemKey: DataKey.default('id'),
  actions: z.array(ListItemAction).max(4).default([]),
  maxItems: z.number().int().min(1).max(MAX_LIST_ITEMS).default(25),
})
  .refine((b) => Object.keys(b.bind).every((k) => !Object.hasOwn(b.props, k)), 'a property is either literal or bound, not both')
  .refine((b) => b.path !== undefined || b.actions.length === 0, 'item actions need a collection (`path`)');
export type ComponentBlock = z.infer<typeof ComponentBlock>;

type GroupShape = {
  kind: 'group';
  title?: string | undefined;
  layout: 'row' | 'column';
  blocks: Block[];
};
/** A tab is a group whose title is the tab's title. */
export type TabShape = GroupShape & { title: string };
/**
 * Tabs: one tab shown at a time. Each tab is a titled group, so a block inside a tab has the
 * index path of any group member (`/view/blocks/<tabs>/blocks/<tab>/blocks/<n>`).
 */
type TabsShape = { kind: 'tabs'; blocks: TabShape[] };
/**
 * A modal: a button labelled `label` opens a dialog holding `blocks` (under `title`). Its
 * fields belong to the surface's form like any other: the dialog only hides them.
 */
type ModalShape = { kind: 'modal'; label: string; title?: string | undefined; blocks: Block[] };

export type Block =
  | z.infer<typeof FieldBlock>
  | z.infer<typeof HeadingBlock>
  | z.infer<typeof TextBlock>
  | z.infer<typeof DividerBlock>
  | z.infer<typeof ImageBlock>
  | z.infer<typeof ValueBlock>
  | z.infer<typeof UploadBlock>
  | ListBlock
  | TableBlock
  | z.infer<typeof IconBlock>
  | z.infer<typeof VideoBlock>
  | z.infer<typeof AudioBlock>
  | ComponentBlock
  | GroupShape
  | TabsShape
  | ModalShape;

export const GroupBlock: z.ZodType<GroupShape> = z.lazy(() =>
  z.object({
    kind: z.literal('group'),
    title: z.string().max(200).optional(),
    layout: z.enum(['row', 'column']).default('column'),
    blocks: z.array(BlockSchema).max(100),
  }),
) as unknown as z.ZodType<GroupShape>;

const TabBlock: z.ZodType<TabShape> = z.lazy(() =>
  z.object({
    kind: z.literal('group'),
    title: ShortText,
    layout: z.enum(['row', 'column']).default('column'),
    blocks: z.array(BlockSchema).max(100),
  }),
) as unknown as z.ZodType<TabShape>;

export const TabsBlock: z.ZodType<TabsShape> = z.lazy(() =>
  z.object({ kind: z.literal('tabs'), blocks: z.array(TabBlock).min(1).max(10) }),
) as unknown as z.ZodType<TabsShape>;

export const ModalBlock: z.ZodType<ModalShape> = z.lazy(() =>
  z.object({
    kind: z.literal('modal'),
    label: ShortText,
    title: z.string().max(200).optional(),
    blocks: z.array(BlockSchema).max(100),
  }),
) as unknown as z.ZodType<ModalShape>;

export const BlockSchema: z.ZodType<Block> = z.lazy(() =>
  z.union([
    FieldBlock, HeadingBlock, TextBlock, DividerBlock, ImageBlock, ValueBlock, UploadBlock, ListBlock, TableBlock,
    IconBlock, VideoBlock, AudioBlock, ComponentBlock, GroupBlock, TabsBlock, ModalBlock,
  ]),
) as unknown as z.ZodType<Block>;

/** The blocks a container holds (group, tabs — whose members are its tabs —, modal), else none. */
export function childBlocks(block: Block): readonly Block[] | undefined {
  return block.kind === 'group' || block.kind === 'tabs' || block.kind === 'modal' ? block.blocks : undefined;
}

/** A button. `name` must be registered in the app's action registry (the allowlist). */
export const ActionSpec = z.object({
  name: ActionName,
  label: ShortText,
  role: z.enum(['submit', 'cancel', 'secondary']),
  primary: z.boolean().default(false),
});
export type ActionSpec = z.infer<typeof ActionSpec>;

/**
 * List, table and component names are unique in a view (one namespace), and an action is either the
 * view's (a button under the form) or its collections' (a button on each item), never both:
 * ingress tells the two kinds of request apart by the action's name alone, and finds the
 * collection by its name.
 */
function listsConsistent(view: { blocks: readonly Block[]; actions: readonly { name: string }[] }): boolean {
  const names = new Set<string>();
  const viewActions = new Set(view.actions.map((a) => a.name));
  const stack = [...view.blocks];
  while (stack.length > 0) {
    const block = stack.pop()!;
    const children = childBlocks(block);
    if (children !== undefined) stack.push(...children);
    if (block.kind !== 'list' && block.kind !== 'component' && block.kind !== 'table') continue;
    if (names.has(block.name)) return false;
    names.add(block.name);
    if (block.actions.some((a) => viewActions.has(a.name))) return false;
  }
  return true;
}

export const SurfaceView = z.object({
  /** Which template built this view (`ask` for ad-hoc clarifiers); informational. */
  template: z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/),
  title: ShortText,
  blocks: z.array(BlockSchema).max(200),
  actions: z.array(ActionSpec).max(8),
}).refine(listsConsistent, 'list, table and component names must be unique, and an item action cannot also be a view action');
export type SurfaceView = z.infer<typeof SurfaceView>;

export const SurfaceData = z.object({
  draft: DataMapSchema,
  committed: DataMapSchema,
  ui: DataMapSchema,
});
export type SurfaceData = z.infer<typeof SurfaceData>;

export const Surface = z.object({
  id: SurfaceId,
  epoch: SurfaceEpoch,
  rev: SurfaceRev,
  nonce: Nonce,
  lifecycle: SurfaceLifecycle,
  view: SurfaceView,
  data: SurfaceData,
  /** Pointers of data keys removed since the last full init; clients need a rebuild. */
  tombstones: z.array(z.string()).max(1000),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Surface = z.infer<typeof Surface>;

export const TRANSCRIPT_ID_PATTERN = /^[a-z0-9_-]{1,40}$/;
export const TRANSCRIPT_ROLES = ['user', 'assistant', 'system'] as const;
export const MAX_TRANSCRIPT_TEXT = 20_000;
export const TranscriptEntry = z.object({
  id: z.string().regex(TRANSCRIPT_ID_PATTERN),
  role: z.enum(TRANSCRIPT_ROLES),
  text: z.string().max(MAX_TRANSCRIPT_TEXT),
  at: IsoTime,
});
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;

export const ToastLevel = z.enum(['info', 'success', 'warning', 'error']);
export type ToastLevel = z.infer<typeof ToastLevel>;

export const Toast = z.object({
  id: z.string().regex(/^[a-z0-9_-]{1,40}$/),
  level: ToastLevel,
  text: z.string().min(1).max(500),
  surfaceId: SurfaceId.optional(),
  at: IsoTime,
});
export type Toast = z.infer<typeof Toast>;

/** Bounds of the conversation's lists (exported for the memoised validator in validate.ts). */
export const MAX_SURFACES = 32;
export const MAX_TOASTS = 20;

/** Surface ids are unique within a conversation. */
export function surfaceIdsUnique(ir: { surfaces: readonly { id: string }[] }): boolean {
  return new Set(ir.surfaces.map((s) => s.id)).size === ir.surfaces.length;
}

export const ConversationIr = z
  .object({
    version: z.literal(IR_VERSION),
    conversationId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    /** Monotonic counter from which transcript and toast ids are derived. */
    seq: z.number().int().nonnegative(),
    transcript: z.array(TranscriptEntry),
    /** Ordered by opening; ids unique. Deleted surfaces stay (lifecycle `deleted`) so stale actions get 409. */
    surfaces: z.array(Surface).max(MAX_SURFACES),
    /** Most recent last; bounded by the transitions. */
    toasts: z.array(Toast).max(MAX_TOASTS),
  })
  .refine(surfaceIdsUnique, 'surface ids must be unique');
export type ConversationIr = z.infer<typeof ConversationIr>;
