import type { SurfacerError } from '../../errors/index.ts';
import { allOf, DATE_REGEX, fieldPatterns, type ActionSpec, type DataValue, type FieldBlock, type IconName, type ListItemAction, type Surface } from '../../ui-ir/index.ts';
import type { ComponentCompileOptions } from '../components/check.ts';
import {
  INGRESS_CONTEXT_KEYS, layoutSurface, sliderBounds, type ComponentSink, type CustomComponentProps, type TextStyle,
} from '../a2ui-shared/index.ts';
import type { A2uiComponentType } from './catalogue.ts';
import { guardA2uiString, plainText } from './text.ts';
import type { A2uiAction, A2uiComponent } from './types.ts';

/**
 * v0.8 carries one pattern per TextField, which the official Lit renderer sets as its input's
 * HTML `pattern` (the whole value, the `v` flag, never applied to an empty value): the field's
 * pattern rules and its length as one (ui-ir/field-rules.ts). No messages: v0.8 has no place for
 * them; the server's refusal says them.
 */
function textFieldPattern(f: FieldBlock): string | undefined {
  if (f.control === 'number') return undefined;
  const parts = fieldPatterns(f).map((p) => p.regex);
  if (f.control === 'date') parts.push(DATE_REGEX);
  if (f.minLength !== undefined || f.maxLength !== undefined) parts.push(`[\\s\\S]{${f.minLength ?? 0},${f.maxLength ?? ''}}`);
  const all = allOf(parts);
  return all === undefined ? undefined : `^(?:${all})$`;
}

/**
 * IR view → one closed component set, root first, every component reachable from the root: the
 * shared layout (a2ui-shared/layout.ts) written as v0.8 components. Every Text is Markdown in
 * v0.8, so every literal is escaped, then guarded (text.ts). Fields bind `/draft/<name>`:
 * text→TextField shortText, textarea→longText, number→number, secret→obscured, date→date,
 * url/email→shortText + validationRegexp, tags→shortText ("a, b"), datetime/time→DateTimeInput,
 * checkbox→CheckBox, select→MultipleChoice (maxAllowedSelections 1), multiselect→MultipleChoice,
 * slider→Slider (both bounds always). DateTimeInput and MultipleChoice have no label property:
 * the label goes above them.
 */
export interface ComponentBuild {
  components: A2uiComponent[];
  rootId: string;
  warnings: SurfacerError[];
  /** Errors of the soft_fail kind: what was left out. */
  dropped: SurfacerError[];
}

export interface ComponentOptions {
  allowedActions?: ReadonlySet<string> | undefined;
  /** The app's components, when the client holds the app catalogue. */
  components?: ComponentCompileOptions | undefined;
}

/** Context keys owned by ingress; a field with one of these names is not sent with actions. */
export const RESERVED_CONTEXT_KEYS: ReadonlySet<string> = new Set(INGRESS_CONTEXT_KEYS.keys());

const TEXT_TYPE: Partial<Record<FieldBlock['control'], string>> = {
  text: 'shortText', textarea: 'longText', number: 'number', secret: 'obscured', date: 'date',
  url: 'shortText', email: 'shortText', tags: 'shortText',
};

/**
 * `{ [type]: props }` as a literal per type: a computed key costs a runtime call per component,
 * a literal is a preshaped object. Same single key, so the same JSON.
 */
function wrap(type: A2uiComponentType, props: Record<string, unknown>): A2uiComponent['component'] {
  switch (type) {
    case 'Text': return { Text: props };
    case 'Image': return { Image: props };
    case 'Icon': return { Icon: props };
    case 'Video': return { Video: props };
    case 'AudioPlayer': return { AudioPlayer: props };
    case 'Row': return { Row: props };
    case 'Column': return { Column: props };
    case 'List': return { List: props };
    case 'Card': return { Card: props };
    case 'Tabs': return { Tabs: props };
    case 'Divider': return { Divider: props };
    case 'Modal': return { Modal: props };
    case 'Button': return { Button: props };
    case 'CheckBox': return { CheckBox: props };
    case 'TextField': return { TextField: props };
    case 'DateTimeInput': return { DateTimeInput: props };
    case 'MultipleChoice': return { MultipleChoice: props };
    case 'Slider': return { Slider: props };
  }
}

class V08Components implements ComponentSink {
  readonly components: A2uiComponent[] = [];
  /** Context entries of the fields, built once and shared by every button (messages are immutable data). */
  private fieldContext: { names: readonly string[]; entries: NonNullable<A2uiAction['context']> } | undefined;

  constructor(private readonly surface: Surface) {}

  /**
   * Adds a component `<base>.<Type>`. Role suffixes (`.label`) and type names are constant safe
   * words, so appending them equals `componentId(surfaceId, [...parts, role], type)`.
   */
  private add(base: string, type: A2uiComponentType, props: Record<string, unknown>): string {
    const id = `${base}.${type}`;
    this.components.push({ id, component: wrap(type, props) });
    return id;
  }

  root(base: string, body: string): string {
    return this.add(base, 'Card', { child: body });
  }

  text(base: string, text: string, style: TextStyle): string {
    return this.add(base, 'Text', { text: { literalString: plainText(text) }, usageHint: style });
  }

  boundText(base: string, path: string, style: TextStyle): string {
    return this.add(base, 'Text', { text: { path }, usageHint: style });
  }

  column(base: string, children: string[]): string {
    return this.add(base, 'Column', { children: { explicitList: children } });
  }

  row(base: string, children: string[], layout?: { align?: 'center'; justify?: 'end' }): string {
    const props: Record<string, unknown> = { children: { explicitList: children } };
    if (layout?.align !== undefined) props.alignment = layout.align;
    if (layout?.justify !== undefined) props.distribution = layout.justify;
    return this.add(base, 'Row', props);
  }

  divider(base: string): string {
    return this.add(base, 'Divider', {});
  }

  image(base: string, url: string, alt: string): string {
    const props: Record<string, unknown> = { url: { literalString: url }, fit: 'contain' };
    if (alt !== '') props.altText = { literalString: guardA2uiString(alt) };
    return this.add(base, 'Image', props);
  }

  input(f: FieldBlock, key: string, rawLabel: string): { id: string; labelAbove: boolean } {
    const path = `/draft/${f.name}`;
    const label = guardA2uiString(rawLabel);
    let input: string;
    switch (f.control) {
      case 'checkbox':
        input = this.add(key, 'CheckBox', { label: { literalString: label }, value: { path } });
        break;
      case 'datetime':
      case 'time':
        input = this.add(key, 'DateTimeInput', { value: { path }, enableDate: f.control === 'datetime', enableTime: true });
        break;
      case 'select':
      case 'multiselect': {
        const props: Record<string, unknown> = {
          selections: { path },
          options: (f.options ?? []).map((o) => ({ label: { literalString: guardA2uiString(o.label) }, value: guardA2uiString(o.value) })),
        };
        if (f.control === 'select') props.maxAllowedSelections = 1;
        input = this.add(key, 'MultipleChoice', props);
        break;
      }
      case 'slider': {
        const { min, max } = sliderBounds(f.min, f.max);
        input = this.add(key, 'Slider', { label: { literalString: label }, value: { path }, minValue: min, maxValue: max });
        break;
      }
      default: {
        const props: Record<string, unknown> = { label: { literalString: label }, text: { path }, textFieldType: TEXT_TYPE[f.control] ?? 'shortText' };
        const pattern = textFieldPattern(f);
        if (pattern !== undefined) props.validationRegexp = pattern;
        input = this.add(key, 'TextField', props);
      }
    }
    const labelAbove = f.control === 'datetime' || f.control === 'time' || f.control === 'select' || f.control === 'multiselect';
    return { id: input, labelAbove };
  }

  button(base: string, label: string, action: ActionSpec, fieldNames: readonly string[]): string {
    if (this.fieldContext?.names !== fieldNames) {
      const entries: NonNullable<A2uiAction['context']> = fieldNames.map((name) => ({ key: name, value: { path: `/draft/${name}` } }));
      entries.push({ key: 'nonce', value: { literalString: this.surface.nonce } }, { key: 'rev', value: { literalString: String(this.surface.rev) } });
      this.fieldContext = { names: fieldNames, entries };
    }
    const act: A2uiAction = { name: action.name, context: this.fieldContext.entries.slice() };
    return this.add(base, 'Button', { child: label, primary: action.primary, action: act });
  }

  card(base: string, child: string): string {
    return this.add(base, 'Card', { child });
  }

  boundImage(base: string, path: string, alt: string): string {
    const props: Record<string, unknown> = { url: { path }, fit: 'contain', usageHint: 'smallFeature' };
    if (alt !== '') props.altText = { literalString: guardA2uiString(alt) };
    return this.add(base, 'Image', props);
  }

  /** A template over a map-encoded list (keys "0", "1", …; data.ts): one item per key, in order. */
  list(base: string, itemId: string, dataPath: string): string {
    return this.add(base, 'List', { children: { template: { componentId: itemId, dataBinding: dataPath } }, direction: 'vertical' });
  }

  /**
   * Inside the template the item's key is read through an item-relative path without a leading
   * `/` (WC resolves it against the item: `<list>/<n>/key`); the list name, nonce and rev are
   * literals, which WC leaves alone inside an action.
   */
  itemButton(base: string, label: string, action: ListItemAction, listName: string, keyPath: string): string {
    const context: NonNullable<A2uiAction['context']> = [
      { key: 'list', value: { literalString: listName } },
      { key: 'item', value: { path: keyPath } },
      { key: 'nonce', value: { literalString: this.surface.nonce } },
      { key: 'rev', value: { literalString: String(this.surface.rev) } },
    ];
    return this.add(base, 'Button', { child: label, primary: action.primary, action: { name: action.name, context } });
  }

  controlButton(base: string, label: string, action: string, context: Readonly<Record<string, string>>, primary: boolean): string {
    const entries: NonNullable<A2uiAction['context']> = Object.entries(context).map(([key, value]) => ({ key, value: { literalString: guardA2uiString(value) } }));
    entries.push({ key: 'nonce', value: { literalString: this.surface.nonce } }, { key: 'rev', value: { literalString: String(this.surface.rev) } });
    return this.add(base, 'Button', { child: label, primary, action: { name: action, context: entries } });
  }

  icon(base: string, name: IconName): string {
    return this.add(base, 'Icon', { name: { literalString: name } });
  }

  video(base: string, url: string): string {
    return this.add(base, 'Video', { url: { literalString: url } });
  }

  audio(base: string, url: string, description: string): string {
    const props: Record<string, unknown> = { url: { literalString: url } };
    if (description !== '') props.description = { literalString: guardA2uiString(description) };
    return this.add(base, 'AudioPlayer', props);
  }

  /** Tab titles are resolved like a Text's string, but not rendered as Markdown: guarded only. */
  tabs(base: string, tabs: ReadonlyArray<{ title: string; child: string }>): string {
    return this.add(base, 'Tabs', { tabItems: tabs.map((t) => ({ title: { literalString: guardA2uiString(t.title) }, child: t.child })) });
  }

  modal(base: string, trigger: string, content: string): string {
    return this.add(base, 'Modal', { entryPointChild: trigger, contentChild: content });
  }

  /**
   * A v0.8 Button must carry an action, and LIT sends it when the modal opens (a userAction the
   * server would have to reject), so the trigger is a Card around the label: LIT opens the
   * modal on a click anywhere on its entry point.
   */
  modalTrigger(base: string, label: string): string {
    return this.add(base, 'Card', { child: label });
  }

  /**
   * `{ "<Name>": {…} }`: a literal property as the BoundValue of its kind (strings guarded like
   * every v0.8 string), a bound one as `{path}`; a collection binds `items` and `note`, and each
   * item button carries the very action a list item's Button does (its `item` an item-relative
   * path the element resolves in the item's data context). A literal with no v0.8 form (a map,
   * a list of non-strings) cannot be sent: the surface fails (never invalid A2UI).
   */
  custom(base: string, type: string, props: CustomComponentProps): string {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(props.literals)) out[key] = literalV08(type, key, value);
    for (const [key, path] of Object.entries(props.bound)) out[key] = { path };
    const { collection } = props;
    if (collection !== undefined) {
      out.items = { path: collection.itemsPath };
      out.note = { path: collection.notePath };
      if (collection.actions.length > 0) {
        out.itemActions = collection.actions.map(({ action, listName, keyPath }) => ({
          label: { literalString: guardA2uiString(action.label) }, primary: action.primary,
          action: {
            name: action.name,
            context: [
              { key: 'list', value: { literalString: listName } },
              { key: 'item', value: { path: keyPath } },
              { key: 'nonce', value: { literalString: this.surface.nonce } },
              { key: 'rev', value: { literalString: String(this.surface.rev) } },
            ],
          },
        }));
      }
    }
    const id = `${base}.${type}`;
    this.components.push({ id, component: { [type]: out } });
    return id;
  }
}

export function buildComponents(surface: Surface, options: ComponentOptions = {}): ComponentBuild {
  const sink = new V08Components(surface);
  const layout = layoutSurface(surface, sink, options.allowedActions, INGRESS_CONTEXT_KEYS, options.components);
  return { components: sink.components, rootId: layout.rootId, warnings: layout.warnings, dropped: layout.dropped };
}

function literalV08(type: string, key: string, value: DataValue): Record<string, unknown> {
  if (typeof value === 'string') return { literalString: guardA2uiString(value) };
  if (typeof value === 'number') return { literalNumber: value };
  if (typeof value === 'boolean') return { literalBoolean: value };
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return { literalArray: value.map((v) => guardA2uiString(v as string)) };
  throw new Error(`${type}.${key}: a literal v0.8 cannot carry (only strings, numbers, booleans and lists of strings)`);
}
