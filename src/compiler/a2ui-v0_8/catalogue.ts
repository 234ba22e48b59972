/**
 * The A2UI v0.8 standard catalogue as data: what the validator checks and the compiler may emit.
 * Written from `server_to_client_with_standard_catalog.json` (a test keeps the two in sync);
 * hand-written so the runtime does not depend on the renderer package.
 * `MultipleChoice.variant`/`filterable` are deliberately absent: the resolved schema lacks them
 * and WC strips `variant` (a2ui-v0.8.md §2.3, §0.6).
 */
import { ICON_NAMES } from '../../ui-ir/index.ts';

/** `Object.prototype.hasOwnProperty`: in a for-in over the same object V8 folds `.call` away (Object.hasOwn it does not). */
const hasOwn = Object.prototype.hasOwnProperty;

export const STANDARD_CATALOG_ID = 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json';

export const STANDARD_COMPONENT_TYPES = [
  'Text', 'Image', 'Icon', 'Video', 'AudioPlayer', 'Row', 'Column', 'List', 'Card', 'Tabs',
  'Divider', 'Modal', 'Button', 'CheckBox', 'TextField', 'DateTimeInput', 'MultipleChoice', 'Slider',
] as const;
export type A2uiComponentType = (typeof STANDARD_COMPONENT_TYPES)[number];

export type LiteralKey = 'literalString' | 'literalNumber' | 'literalBoolean' | 'literalArray';

export type PropSpec =
  | { kind: 'bound'; literal: LiteralKey; literalEnum?: readonly string[]; url?: boolean }
  | { kind: 'ref' }
  | { kind: 'children' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'string' }
  | { kind: 'boolean' }
  | { kind: 'number' }
  | { kind: 'integer' }
  | { kind: 'action' }
  | { kind: 'tabItems' }
  | { kind: 'options' };

export interface ComponentSpec {
  readonly props: Readonly<Record<string, PropSpec>>;
  readonly required: readonly string[];
}

const str = { kind: 'bound', literal: 'literalString' } as const;
const url = { kind: 'bound', literal: 'literalString', url: true } as const;
const num = { kind: 'bound', literal: 'literalNumber' } as const;
const bool = { kind: 'bound', literal: 'literalBoolean' } as const;
const layout = (extra: Record<string, PropSpec>): ComponentSpec => ({
  props: { children: { kind: 'children' }, alignment: { kind: 'enum', values: ['start', 'center', 'end', 'stretch'] }, ...extra },
  required: ['children'],
});
const distribution: PropSpec = {
  kind: 'enum', values: ['start', 'center', 'end', 'spaceBetween', 'spaceAround', 'spaceEvenly'],
};

export const CATALOGUE: Readonly<Record<A2uiComponentType, ComponentSpec>> = {
  Text: {
    props: { text: str, usageHint: { kind: 'enum', values: ['h1', 'h2', 'h3', 'h4', 'h5', 'caption', 'body'] } },
    required: ['text'],
  },
  Image: {
    props: {
      url, altText: str,
      fit: { kind: 'enum', values: ['contain', 'cover', 'fill', 'none', 'scale-down'] },
      usageHint: { kind: 'enum', values: ['icon', 'avatar', 'smallFeature', 'mediumFeature', 'largeFeature', 'header'] },
    },
    required: ['url'],
  },
  // The IR's icon names are v0.8's, in the schema's order (the catalogue test holds them to it).
  Icon: { props: { name: { kind: 'bound', literal: 'literalString', literalEnum: ICON_NAMES } }, required: ['name'] },
  Video: { props: { url }, required: ['url'] },
  AudioPlayer: { props: { url, description: str }, required: ['url'] },
  Row: layout({ distribution }),
  Column: layout({ distribution }),
  List: layout({ direction: { kind: 'enum', values: ['vertical', 'horizontal'] } }),
  Card: { props: { child: { kind: 'ref' } }, required: ['child'] },
  Tabs: { props: { tabItems: { kind: 'tabItems' } }, required: ['tabItems'] },
  Divider: { props: { axis: { kind: 'enum', values: ['horizontal', 'vertical'] } }, required: [] },
  Modal: { props: { entryPointChild: { kind: 'ref' }, contentChild: { kind: 'ref' } }, required: ['entryPointChild', 'contentChild'] },
  Button: { props: { child: { kind: 'ref' }, primary: { kind: 'boolean' }, action: { kind: 'action' } }, required: ['child', 'action'] },
  CheckBox: { props: { label: str, value: bool }, required: ['label', 'value'] },
  TextField: {
    props: {
      label: str, text: str,
      textFieldType: { kind: 'enum', values: ['date', 'longText', 'number', 'shortText', 'obscured'] },
      validationRegexp: { kind: 'string' },
    },
    required: ['label'],
  },
  DateTimeInput: { props: { value: str, enableDate: { kind: 'boolean' }, enableTime: { kind: 'boolean' } }, required: ['value'] },
  MultipleChoice: {
    props: {
      selections: { kind: 'bound', literal: 'literalArray' },
      options: { kind: 'options' },
      maxAllowedSelections: { kind: 'integer' },
    },
    required: ['selections', 'options'],
  },
  Slider: { props: { label: str, value: num, minValue: { kind: 'number' }, maxValue: { kind: 'number' } }, required: ['value'] },
};

export function isStandardType(type: string): type is A2uiComponentType {
  return hasOwn.call(CATALOGUE, type);
}

/**
 * Visits the ids a component refers to, in order: `child`-like props, explicit children,
 * the template component (`index` -1), tab children. Allocation-free for the validator's hot path.
 */
export function forEachChildRef(
  type: string, props: Record<string, unknown>,
  visit: (id: unknown, prop: string, index: number, template: boolean) => void,
): void {
  const refs = isStandardType(type) ? REF_PROPS[type] : undefined;
  if (refs === undefined) return;
  for (const [name, kind] of refs) {
    if (!hasOwn.call(props, name)) continue;
    const value = props[name];
    if (kind === 'ref') visit(value, name, -1, false);
    else if (kind === 'children' && isRecord(value)) {
      const list = value.explicitList;
      if (Array.isArray(list)) for (let i = 0; i < list.length; i += 1) visit(list[i], name, i, false);
      if (isRecord(value.template)) visit(value.template.componentId, name, -1, true);
    } else if (kind === 'tabItems' && Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        const item: unknown = value[i];
        if (isRecord(item)) visit(item.child, name, i, false);
      }
    }
  }
}

/** Per type, the properties that hold component ids (absent for leaf types). */
const REF_PROPS: Partial<Record<A2uiComponentType, RefProp[]>> = (() => {
  const out: Partial<Record<A2uiComponentType, RefProp[]>> = {};
  for (const type of STANDARD_COMPONENT_TYPES) {
    const list: RefProp[] = [];
    for (const [name, spec] of Object.entries(CATALOGUE[type].props)) {
      if (spec.kind === 'ref' || spec.kind === 'children' || spec.kind === 'tabItems') list.push([name, spec.kind]);
    }
    if (list.length > 0) out[type] = list;
  }
  return out;
})();

type RefProp = [string, 'ref' | 'children' | 'tabItems'];

/** The ids a component refers to (strings only), in order: `forEachChildRef` without a callback. */
export function childIds(type: string, props: Record<string, unknown>): readonly string[] {
  return refIds(isStandardType(type) ? REF_PROPS[type] : undefined, props);
}

/**
 * A lookup table: null prototype, so a plain property read answers "is it there?" (no inherited
 * names), which V8 does faster than a Map for these small fixed key sets.
 */
export type Table<T> = Readonly<Record<string, T | undefined>>;

export function tableOf<T>(entries: Iterable<readonly [string, T]>): Table<T> {
  const out = Object.create(null) as Record<string, T>;
  for (const [key, value] of entries) out[key] = value;
  return out;
}

/** Everything the validator needs about a standard type, in one lookup. */
export interface TypeInfo {
  readonly type: A2uiComponentType;
  readonly spec: ComponentSpec;
  /** The property specs by name (one lookup answers "known?" and "which spec?"). */
  readonly props: Table<PropSpec>;
  readonly refs: readonly RefProp[] | undefined;
}

export const TYPE_INFO: Table<TypeInfo> = tableOf(STANDARD_COMPONENT_TYPES.map((type) => [type, {
  type, spec: CATALOGUE[type], props: tableOf(Object.entries(CATALOGUE[type].props)), refs: REF_PROPS[type],
}] as const));

/** The result for leaf types (shared, never written). */
const NO_IDS: readonly string[] = Object.freeze([]);

/** `childIds` for a type already looked up. */
export function refIds(refs: readonly RefProp[] | undefined, props: Record<string, unknown>): readonly string[] {
  if (refs === undefined) return NO_IDS;
  const out: string[] = [];
  for (let r = 0; r < refs.length; r += 1) {
    const [name, kind] = refs[r]!;
    if (!hasOwn.call(props, name)) continue;
    const value = props[name];
    if (kind === 'ref') {
      if (typeof value === 'string') out.push(value);
    } else if (kind === 'children') {
      if (!isRecord(value)) continue;
      const list = value.explicitList;
      if (Array.isArray(list)) {
        for (let i = 0; i < list.length; i += 1) {
          const id: unknown = list[i];
          if (typeof id === 'string') out.push(id);
        }
      }
      const template = value.template;
      if (isRecord(template) && typeof template.componentId === 'string') out.push(template.componentId);
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        const item: unknown = value[i];
        if (isRecord(item) && typeof item.child === 'string') out.push(item.child);
      }
    }
  }
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
