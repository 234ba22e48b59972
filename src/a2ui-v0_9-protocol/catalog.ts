import { z } from 'zod';
import {
  Action, Checkable, ChildList, CommonProps, ComponentId, DynamicBoolean, DynamicNumber, DynamicString, DynamicStringList,
} from './common.ts';

/**
 * The v0.9 basic catalogue: per component type, the strict schema of its properties (all keys
 * but `id` and `component`), as `@a2ui/web_core` 0.11 validates them before it changes any
 * state (src/v0_9/basic_catalog/components/basic_components.js). Enum defaults are left out:
 * the processor stores properties as sent, never the parsed result.
 */
export const BASIC_CATALOG_ID = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

/**
 * The same basic catalogue under the id the v0.9 spec's `json/basic_catalog.json` gives it, which
 * `@a2ui/web_core` 0.10 (and so CopilotKit's A2UI renderer) registers. A client that names only
 * this id is answered with it (hosting/catalog-choice.ts `basicCatalogIdOf`).
 */
export const BASIC_CATALOG_SPEC_ID = 'https://a2ui.org/specification/v0_9/basic_catalog.json';

/** Both published ids of the v0.9 basic catalogue: one catalogue. */
export const BASIC_CATALOG_IDS: readonly string[] = [BASIC_CATALOG_ID, BASIC_CATALOG_SPEC_ID];

export const ICON_NAMES = [
  'accountCircle', 'add', 'arrowBack', 'arrowForward', 'attachFile', 'calendarToday', 'call', 'camera', 'check', 'close',
  'delete', 'download', 'edit', 'event', 'error', 'fastForward', 'favorite', 'favoriteOff', 'folder', 'help', 'home', 'info',
  'locationOn', 'lock', 'lockOpen', 'mail', 'menu', 'moreVert', 'moreHoriz', 'notificationsOff', 'notifications', 'pause',
  'payment', 'person', 'phone', 'photo', 'play', 'print', 'refresh', 'rewind', 'search', 'send', 'settings', 'share',
  'shoppingCart', 'skipNext', 'skipPrevious', 'star', 'starHalf', 'starOff', 'stop', 'upload', 'visibility', 'visibilityOff',
  'volumeDown', 'volumeMute', 'volumeOff', 'volumeUp', 'warning',
] as const;

/** The basic catalogue's client-side functions (usable in `checks` and dynamic values). */
export const BASIC_FUNCTION_NAMES = [
  'add', 'subtract', 'multiply', 'divide', 'equals', 'not_equals', 'greater_than', 'less_than', 'and', 'or', 'not', 'contains',
  'starts_with', 'ends_with', 'required', 'regex', 'length', 'numeric', 'email', 'formatString', 'formatNumber',
  'formatCurrency', 'formatDate', 'pluralize', 'openUrl',
] as const;

const layout = (justify: readonly [string, ...string[]], align: readonly [string, ...string[]]) => z.strictObject({
  ...CommonProps,
  children: ChildList,
  justify: z.enum(justify).optional(),
  align: z.enum(align).optional(),
});

export const BASIC_COMPONENT_SCHEMAS = {
  Text: z.strictObject({ ...CommonProps, text: DynamicString, variant: z.enum(['h1', 'h2', 'h3', 'h4', 'h5', 'caption', 'body']).optional() }),
  Image: z.strictObject({
    ...CommonProps,
    url: DynamicString,
    description: DynamicString.optional(),
    fit: z.enum(['contain', 'cover', 'fill', 'none', 'scaleDown']).optional(),
    variant: z.enum(['icon', 'avatar', 'smallFeature', 'mediumFeature', 'largeFeature', 'header']).optional(),
  }),
  Icon: z.strictObject({
    ...CommonProps,
    name: z.union([z.enum(ICON_NAMES), z.strictObject({ svgPath: z.string() }), z.strictObject({ path: z.string() })]),
  }),
  Video: z.strictObject({ ...CommonProps, url: DynamicString }),
  AudioPlayer: z.strictObject({ ...CommonProps, url: DynamicString, description: DynamicString.optional() }),
  Row: layout(['center', 'end', 'spaceAround', 'spaceBetween', 'spaceEvenly', 'start', 'stretch'], ['start', 'center', 'end', 'stretch']),
  Column: layout(['start', 'center', 'end', 'spaceBetween', 'spaceAround', 'spaceEvenly', 'stretch'], ['center', 'end', 'start', 'stretch']),
  List: z.strictObject({
    ...CommonProps,
    children: ChildList,
    direction: z.enum(['vertical', 'horizontal']).optional(),
    align: z.enum(['start', 'center', 'end', 'stretch']).optional(),
    listStyle: z.enum(['ordered', 'unordered', 'none']).optional(),
  }),
  Card: z.strictObject({ ...CommonProps, child: ComponentId }),
  Tabs: z.strictObject({ ...CommonProps, tabs: z.array(z.strictObject({ title: DynamicString, child: ComponentId })).min(1) }),
  Modal: z.strictObject({ ...CommonProps, trigger: ComponentId, content: ComponentId }),
  Divider: z.strictObject({ ...CommonProps, axis: z.enum(['horizontal', 'vertical']).optional() }),
  Button: z.strictObject({
    ...CommonProps,
    child: ComponentId,
    variant: z.enum(['default', 'primary', 'borderless']).optional(),
    action: Action.optional(),
    ...Checkable,
  }),
  TextField: z.strictObject({
    ...CommonProps,
    label: DynamicString,
    value: DynamicString.optional(),
    variant: z.enum(['longText', 'number', 'shortText', 'obscured']).optional(),
    validationRegexp: z.string().optional(),
    ...Checkable,
  }),
  CheckBox: z.strictObject({ ...CommonProps, label: DynamicString, value: DynamicBoolean, ...Checkable }),
  ChoicePicker: z.strictObject({
    ...CommonProps,
    label: DynamicString.optional(),
    variant: z.enum(['multipleSelection', 'mutuallyExclusive']).optional(),
    options: z.array(z.strictObject({ label: DynamicString, value: z.string() })),
    value: DynamicStringList,
    displayStyle: z.enum(['checkbox', 'chips']).optional(),
    filterable: z.boolean().optional(),
    ...Checkable,
  }),
  Slider: z.strictObject({
    ...CommonProps,
    label: DynamicString.optional(),
    min: z.number().optional(),
    max: z.number(),
    value: DynamicNumber,
    ...Checkable,
  }),
  DateTimeInput: z.strictObject({
    ...CommonProps,
    value: DynamicString,
    enableDate: z.boolean().optional(),
    enableTime: z.boolean().optional(),
    // The package's union also lists date/time/datetime strings, which DynamicString already takes.
    min: DynamicString.optional(),
    max: DynamicString.optional(),
    label: DynamicString.optional(),
    ...Checkable,
  }),
} as const;

export type BasicComponentType = keyof typeof BASIC_COMPONENT_SCHEMAS;

export const BASIC_COMPONENT_TYPES = Object.keys(BASIC_COMPONENT_SCHEMAS) as BasicComponentType[];

export function isBasicComponentType(type: string): type is BasicComponentType {
  return Object.hasOwn(BASIC_COMPONENT_SCHEMAS, type);
}

/**
 * Properties that hold component ids, per type (what the renderer resolves to child nodes; every
 * other string stays a string): a single id, a child list (ids or a template), or a list of
 * objects holding an id under `key` (Tabs).
 */
export type ChildRef =
  | { readonly prop: string; readonly kind: 'single' }
  | { readonly prop: string; readonly kind: 'list' }
  | { readonly prop: string; readonly kind: 'nested'; readonly key: string };

export const CHILD_REFS: Readonly<Record<BasicComponentType, readonly ChildRef[]>> = {
  Text: [], Image: [], Icon: [], Video: [], AudioPlayer: [], Divider: [], TextField: [], CheckBox: [], ChoicePicker: [],
  Slider: [], DateTimeInput: [],
  Row: [{ prop: 'children', kind: 'list' }],
  Column: [{ prop: 'children', kind: 'list' }],
  List: [{ prop: 'children', kind: 'list' }],
  Card: [{ prop: 'child', kind: 'single' }],
  Button: [{ prop: 'child', kind: 'single' }],
  Modal: [{ prop: 'trigger', kind: 'single' }, { prop: 'content', kind: 'single' }],
  Tabs: [{ prop: 'tabs', kind: 'nested', key: 'child' }],
};
