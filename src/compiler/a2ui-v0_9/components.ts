import type { BasicComponentType } from '../../a2ui-v0_9-protocol/index.ts';
import type { SurfacerError } from '../../errors/index.ts';
import type { ActionSpec, FieldBlock, IconName, ListItemAction, Surface } from '../../ui-ir/index.ts';
import {
  escapeMarkdown, INGRESS_CONTEXT_KEYS, layoutSurface, sliderBounds, type AppTableProps, type ComponentSink, type ControlAction, type CustomComponentProps,
  type TextStyle,
} from '../a2ui-shared/index.ts';
import { TABLE_COMPONENT } from '../components/table-component.ts';
import type { ComponentCompileOptions } from '../components/check.ts';
import { fieldChecks, submitCheck, type CheckRule } from './field-checks.ts';
import type { A2uiV09Component } from './types.ts';

/**
 * IR view → the flat v0.9 component list of one surface, root first: the shared layout
 * (a2ui-shared/layout.ts) written as v0.9 components. The root's id is `root` (v0.9 has no root
 * attribute). Every v0.9 input carries its own label: text/textarea/number/secret/url/email/tags
 * → TextField, date/datetime/time → DateTimeInput, checkbox → CheckBox, select/multiselect →
 * ChoicePicker, slider → Slider.
 *
 * Text: the basic catalogue renders only the `body` variant as Markdown (h1–h5 and caption are
 * shown as they are), so only body text is Markdown-escaped. No other guard: v0.9 never reads a
 * string as JSON or as a component id (test/compiler/a2ui-v0_9/text-guards.test.ts).
 */
export interface ComponentBuild {
  components: A2uiV09Component[];
  warnings: SurfacerError[];
  /** Errors of the soft_fail kind: what was left out. */
  dropped: SurfacerError[];
}

export const ROOT_ID = 'root';

/**
 * Context keys a field may not use: ingress's own, and the two the official renderer reads as a
 * binding when it resolves a Button's action (a context with a `path` or `call` key is taken for
 * a DataBinding or FunctionCall as a whole, and the click throws before anything is sent).
 */
export const RESERVED_CONTEXT_KEYS_V09: ReadonlyMap<string, string> = new Map([
  ...INGRESS_CONTEXT_KEYS,
  ['path', 'the v0.9 renderer (it reads such a context as a data binding)'],
  ['call', 'the v0.9 renderer (it reads such a context as a function call)'],
]);

const TEXT_VARIANT: Partial<Record<FieldBlock['control'], string>> = { textarea: 'longText', number: 'number', secret: 'obscured' };

class V09Components implements ComponentSink {
  readonly components: A2uiV09Component[] = [];
  /**
   * The context of the buttons that send `names`, built once: every button of a surface sends the
   * same fields, nonce and rev, and compiled messages are values nobody writes to, so the buttons
   * share one object (on a large form it has a key per field: building it is the builder's
   * biggest single cost).
   */
  private fieldContext: { names: readonly string[]; context: Record<string, unknown> } | undefined;
  /** Every input's checks so far: a submit button repeats them (renderers disable a button by its own checks only). */
  private readonly checks: CheckRule[] = [];

  constructor(private readonly surface: Surface) {}

  private add(base: string, type: BasicComponentType, props: Record<string, unknown>): string {
    const id = `${base}.${type}`;
    this.components.push({ id, component: type, ...props });
    return id;
  }

  root(_base: string, body: string): string {
    this.components.push({ id: ROOT_ID, component: 'Card', child: body });
    return ROOT_ID;
  }

  text(base: string, text: string, style: TextStyle): string {
    return this.add(base, 'Text', { text: style === 'body' ? escapeMarkdown(text) : text, variant: style });
  }

  boundText(base: string, path: string, style: TextStyle): string {
    return this.add(base, 'Text', { text: { path }, variant: style });
  }

  column(base: string, children: string[]): string {
    return this.add(base, 'Column', { children });
  }

  row(base: string, children: string[], layout?: { align?: 'center'; justify?: 'end' }): string {
    return this.add(base, 'Row', { children, ...layout });
  }

  divider(base: string): string {
    return this.add(base, 'Divider', {});
  }

  image(base: string, url: string, alt: string): string {
    return this.add(base, 'Image', { url, fit: 'contain', ...(alt === '' ? {} : { description: alt }) });
  }

  input(f: FieldBlock, key: string, label: string): { id: string; labelAbove: boolean } {
    const value = { path: `/draft/${f.name}` };
    const own = fieldChecks(f);
    this.checks.push(...own);
    const checks = own.length === 0 ? {} : { checks: own };
    switch (f.control) {
      case 'checkbox': return { id: this.add(key, 'CheckBox', { label, value, ...checks }), labelAbove: false };
      case 'date':
      case 'datetime':
      case 'time':
        return { id: this.add(key, 'DateTimeInput', { label, value, enableDate: f.control !== 'time', enableTime: f.control !== 'date', ...checks }), labelAbove: false };
      case 'select':
      case 'multiselect': {
        const options = (f.options ?? []).map((o) => ({ label: o.label, value: o.value }));
        const variant = f.control === 'select' ? 'mutuallyExclusive' : 'multipleSelection';
        return { id: this.add(key, 'ChoicePicker', { label, options, value, variant, ...checks }), labelAbove: false };
      }
      case 'slider': {
        const { min, max } = sliderBounds(f.min, f.max);
        return { id: this.add(key, 'Slider', { label, min, max, value, ...checks }), labelAbove: false };
      }
      default:
        return { id: this.add(key, 'TextField', { label, value, variant: TEXT_VARIANT[f.control] ?? 'shortText', ...checks }), labelAbove: false };
    }
  }

  button(base: string, label: string, action: ActionSpec, fieldNames: readonly string[]): string {
    if (this.fieldContext?.names !== fieldNames) {
      const context: Record<string, unknown> = {};
      for (const name of fieldNames) context[name] = { path: `/draft/${name}` };
      context.nonce = this.surface.nonce;
      context.rev = this.surface.rev;
      this.fieldContext = { names: fieldNames, context };
    }
    const { context } = this.fieldContext;
    const checks = action.role === 'submit' ? submitCheck(this.checks) : [];
    return this.add(base, 'Button', {
      child: label, variant: action.primary ? 'primary' : 'default', action: { event: { name: action.name, context } },
      ...(checks.length === 0 ? {} : { checks }),
    });
  }

  card(base: string, child: string): string {
    return this.add(base, 'Card', { child });
  }

  boundImage(base: string, path: string, alt: string): string {
    return this.add(base, 'Image', { url: { path }, fit: 'contain', variant: 'smallFeature', ...(alt === '' ? {} : { description: alt }) });
  }

  /** A template over a plain array: one item per element, each with the data path `<list>/<i>`. */
  list(base: string, itemId: string, dataPath: string): string {
    return this.add(base, 'List', { children: { componentId: itemId, path: dataPath }, direction: 'vertical' });
  }

  /** The item's key is a binding relative to the item (`key` → `<list>/<i>/key`); the rest are literals. */
  itemButton(base: string, label: string, action: ListItemAction, listName: string, keyPath: string): string {
    return this.add(base, 'Button', { child: label, variant: action.primary ? 'primary' : 'default', action: this.itemAction(action, listName, keyPath) });
  }

  controlButton(base: string, label: string, action: string, context: Readonly<Record<string, string>>, primary: boolean): string {
    return this.add(base, 'Button', { child: label, variant: primary ? 'primary' : 'default', action: this.controlAction({ name: action, context }) });
  }

  private controlAction(action: ControlAction): { event: { name: string; context: Record<string, unknown> } } {
    return { event: { name: action.name, context: { ...action.context, nonce: this.surface.nonce, rev: this.surface.rev } } };
  }

  /** The item's key is a binding relative to the item (a row's `key`), as on a list item's Button. */
  private itemAction(action: ListItemAction, listName: string, keyPath: string): { event: { name: string; context: Record<string, unknown> } } {
    return { event: { name: action.name, context: { list: listName, item: { path: keyPath }, nonce: this.surface.nonce, rev: this.surface.rev } } };
  }

  /** Flat like every v0.9 component: the shown page's rows and note bound, the rest literal. */
  appTable(base: string, t: AppTableProps): string {
    const id = `${base}.${TABLE_COMPONENT}`;
    this.components.push({
      id, component: TABLE_COMPONENT,
      ...(t.caption === undefined ? {} : { caption: t.caption }),
      columns: t.columns.map(({ sort, ...c }) => ({ ...c, ...(sort === undefined ? {} : { sortAction: this.controlAction(sort) }) })),
      rows: { path: t.rowsPath }, note: { path: t.notePath },
      page: t.page, pages: t.pages, total: t.total, pageLabel: t.pageLabel,
      ...(t.previous === undefined ? {} : { previousAction: this.controlAction(t.previous) }),
      ...(t.next === undefined ? {} : { nextAction: this.controlAction(t.next) }),
      ...(t.rowActions.length === 0 ? {} : {
        rowActions: t.rowActions.map(({ action, listName, keyPath }) => ({ label: action.label, primary: action.primary, action: this.itemAction(action, listName, keyPath) })),
      }),
    });
    return id;
  }

  icon(base: string, name: IconName): string {
    return this.add(base, 'Icon', { name });
  }

  video(base: string, url: string): string {
    return this.add(base, 'Video', { url });
  }

  audio(base: string, url: string, description: string): string {
    return this.add(base, 'AudioPlayer', { url, ...(description === '' ? {} : { description }) });
  }

  tabs(base: string, tabs: ReadonlyArray<{ title: string; child: string }>): string {
    return this.add(base, 'Tabs', { tabs: tabs.map((t) => ({ title: t.title, child: t.child })) });
  }

  modal(base: string, trigger: string, content: string): string {
    return this.add(base, 'Modal', { trigger, content });
  }

  /** A v0.9 Button's action is optional: without one, opening the modal sends nothing to the server. */
  modalTrigger(base: string, label: string): string {
    return this.add(base, 'Button', { child: label, variant: 'default' });
  }

  /**
   * Flat like every v0.9 component: literals as they are, bound properties as `{path}`; a
   * collection binds `items` and `note`, and each item button carries the very action a list
   * item's Button does (its `item` bound relative to the item: the element resolves it there).
   */
  custom(base: string, type: string, props: CustomComponentProps): string {
    const out: Record<string, unknown> = { ...props.literals };
    for (const [key, path] of Object.entries(props.bound)) out[key] = { path };
    const { collection } = props;
    if (collection !== undefined) {
      out.items = { path: collection.itemsPath };
      out.note = { path: collection.notePath };
      if (collection.actions.length > 0) {
        out.itemActions = collection.actions.map(({ action, listName, keyPath }) => ({
          label: action.label, primary: action.primary,
          action: this.itemAction(action, listName, keyPath),
        }));
      }
    }
    const id = `${base}.${type}`;
    this.components.push({ id, component: type, ...out });
    return id;
  }
}

export function buildComponents(surface: Surface, allowedActions?: ReadonlySet<string>, components?: ComponentCompileOptions): ComponentBuild {
  const sink = new V09Components(surface);
  const layout = layoutSurface(surface, sink, allowedActions, RESERVED_CONTEXT_KEYS_V09, components);
  return { components: sink.components, warnings: layout.warnings, dropped: layout.dropped };
}
