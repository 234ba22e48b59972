// Component property tables, taken from WC's zod schemas (what the official web client stores)
// rather than from the JSON catalog: ClientSim's state must equal WC's. Where the two differ
// (a2ui-v0.8.md §2.3) WC wins, except CheckBox (see VALIDATED_TYPES). Property order = WC's
// zod shape order, which fixes the order WC's output objects (and rendered children) have.

export type ValueType = 'string' | 'number' | 'boolean' | 'string[]';

export interface BoundSpec {
  readonly keys: Readonly<Record<string, ValueType>>;
  /** Strict zod objects reject unknown keys; non-strict ones strip them. */
  readonly strict: boolean;
}

export type PropSpec =
  | { readonly kind: 'bound'; readonly bound: BoundSpec; readonly required?: boolean }
  | { readonly kind: 'enum'; readonly values: readonly string[]; readonly required?: boolean }
  | { readonly kind: 'string' | 'number' | 'boolean' | 'ref' | 'children' | 'action' | 'tabItems' | 'options'; readonly required?: boolean };

const STRING_BV: BoundSpec = { keys: { path: 'string', literalString: 'string', literal: 'string' }, strict: true };
const CHECK_BV: BoundSpec = { keys: { path: 'string', literalBoolean: 'boolean' }, strict: true };
const SLIDER_BV: BoundSpec = { keys: { path: 'string', literalNumber: 'number' }, strict: true };
const ARRAY_BV: BoundSpec = { keys: { path: 'string', literalArray: 'string[]' }, strict: true };
export const OPTION_LABEL_BV: BoundSpec = { keys: { path: 'string', literalString: 'string' }, strict: true };
export const TAB_TITLE_BV: BoundSpec = { keys: { path: 'string', literalString: 'string' }, strict: false };
export const ACTION_VALUE_BV: BoundSpec = {
  keys: { path: 'string', literalString: 'string', literalNumber: 'number', literalBoolean: 'boolean' },
  strict: true,
};

const str = (required = false): PropSpec => ({ kind: 'bound', bound: STRING_BV, required });
const oneOf = (...values: string[]): PropSpec => ({ kind: 'enum', values });
const DISTRIBUTION = oneOf('start', 'center', 'end', 'spaceBetween', 'spaceAround', 'spaceEvenly');
const ALIGNMENT = oneOf('start', 'center', 'end', 'stretch');
const CHILDREN: PropSpec = { kind: 'children', required: true };
const CHECKBOX: Record<string, PropSpec> = { label: str(true), value: { kind: 'bound', bound: CHECK_BV, required: true } };

type Specs = Readonly<Record<string, PropSpec>>;

/** WC zod `AnyComponentSchema` keys, in its shape order (decides the "first" type key). */
export const WC_TYPE_ORDER: readonly string[] = [
  'Text', 'Image', 'Icon', 'Video', 'AudioPlayer', 'Row', 'Column', 'List', 'Card', 'Tabs',
  'Divider', 'Modal', 'Button', 'Checkbox', 'TextField', 'DateTimeInput', 'MultipleChoice', 'Slider',
];

/** The 18 v0.8 standard catalog types. */
export const STANDARD_TYPES: ReadonlySet<string> = new Set([
  'Text', 'Image', 'Icon', 'Video', 'AudioPlayer', 'Row', 'Column', 'List', 'Card', 'Tabs',
  'Divider', 'Modal', 'Button', 'CheckBox', 'TextField', 'DateTimeInput', 'MultipleChoice', 'Slider',
]);

/**
 * Types whose properties are validated and stripped. Divergence (deliberate): WC's zod key is
 * `Checkbox`, so WC never validates the real `CheckBox` and keeps its unknown properties (and
 * throws later in its render guard if `label`/`value` are missing). ClientSim validates
 * `CheckBox` with WC's Checkbox rules; `Checkbox` is validated too (as WC does) but is not a
 * standard type, so it also gets CLIENTSIM_UNKNOWN_COMPONENT_TYPE.
 */
export const VALIDATED_TYPES: ReadonlyMap<string, Specs> = new Map<string, Specs>([
  ['Text', { text: str(true), usageHint: oneOf('h1', 'h2', 'h3', 'h4', 'h5', 'caption', 'body') }],
  ['Image', {
    url: str(true),
    usageHint: oneOf('icon', 'avatar', 'smallFeature', 'mediumFeature', 'largeFeature', 'header'),
    fit: oneOf('contain', 'cover', 'fill', 'none', 'scale-down'),
    altText: str(),
  }],
  ['Icon', { name: str(true) }],
  ['Video', { url: str(true) }],
  ['AudioPlayer', { url: str(true), description: str() }],
  ['Row', { children: CHILDREN, distribution: DISTRIBUTION, alignment: ALIGNMENT }],
  ['Column', { children: CHILDREN, distribution: DISTRIBUTION, alignment: ALIGNMENT }],
  ['List', { children: CHILDREN, direction: oneOf('vertical', 'horizontal'), alignment: ALIGNMENT }],
  ['Card', { child: { kind: 'ref', required: true } }],
  ['Tabs', { tabItems: { kind: 'tabItems', required: true } }],
  ['Divider', { axis: oneOf('horizontal', 'vertical'), color: { kind: 'string' }, thickness: { kind: 'number' } }],
  ['Modal', { entryPointChild: { kind: 'ref', required: true }, contentChild: { kind: 'ref', required: true } }],
  ['Button', { child: { kind: 'ref', required: true }, action: { kind: 'action', required: true }, primary: { kind: 'boolean' } }],
  ['Checkbox', CHECKBOX],
  ['CheckBox', CHECKBOX],
  ['TextField', {
    text: str(), label: str(true),
    textFieldType: oneOf('shortText', 'number', 'date', 'longText', 'obscured'),
    validationRegexp: { kind: 'string' },
  }],
  ['DateTimeInput', { value: str(true), enableDate: { kind: 'boolean' }, enableTime: { kind: 'boolean' }, outputFormat: { kind: 'string' } }],
  ['MultipleChoice', {
    selections: { kind: 'bound', bound: ARRAY_BV, required: true }, options: { kind: 'options' },
    maxAllowedSelections: { kind: 'number' }, type: oneOf('checkbox', 'chips'), filterable: { kind: 'boolean' },
  }],
  ['Slider', { value: { kind: 'bound', bound: SLIDER_BV, required: true }, minValue: { kind: 'number' }, maxValue: { kind: 'number' }, label: str() }],
]);

export const STANDARD_CATALOG_IDS: ReadonlySet<string> = new Set([
  'https://a2ui.org/specification/v0_8/standard_catalog_definition.json',
  'https://a2ui.org/specification/v0_8/catalogs/minimal/minimal_catalog.json',
]);
