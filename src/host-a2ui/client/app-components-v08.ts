/// <reference lib="dom" />
/*
 * The app's components on the v0.8 page, through the official renderer's extension point
 * (`componentRegistry`, read by <a2ui-root> when `enableCustomElements` is on, as overrides.ts
 * does for TextField and Button): one wrapper per app component, a subclass of the official
 * Root, so it gets the component node, the processor and the surface like any component, and
 * re-renders when data it read changes (Root is a SignalWatcher). It reads the component's
 * properties — v0.8 literals (`literalString`, …) and `{path}` bindings from the data model — and
 * hands them to the app's element as plain values (app-elements.ts). An item action the element
 * asks for goes out as the component's own wire action with the item's data context: the page's
 * `a2uiaction` listener builds the very `userAction` the fallback list's button would.
 */
import { componentRegistry, Root } from '@a2ui/lit/ui';
import { Events, type Types } from '@a2ui/lit/v0_8';
import { nothing } from 'lit';
import { unsafeStatic, html as staticHtml } from 'lit/static-html.js';
import {
  indexOfItem, ITEM_ACTION_EVENT, itemActionDetail, itemsOf, plain, wireItemActions, type AppComponentsSpec, type ElementAction,
  type WireItemAction,
} from './app-elements.ts';

const STRUCTURAL = new Set(['items', 'note', 'itemActions']);

type Literal = { literalString?: unknown; literalNumber?: unknown; literalBoolean?: unknown; literalArray?: unknown; path?: unknown };

type WireAction = WireItemAction<Types.Action>;

function wrapperFor(tag: string): typeof Root {
  const inner = unsafeStatic(tag);
  return class AppComponentV08 extends Root {
    #items: Record<string, unknown>[] = [];
    #itemsPath: string | undefined;
    #actions: WireAction[] = [];

    constructor() {
      super();
      this.addEventListener(ITEM_ACTION_EVENT, (event) => this.#onItemAction(event));
    }

    /** A v0.8 value: a literal as it is, a `{path}` read from the data model (relative to the node's data context). */
    #value(value: unknown): unknown {
      const v = plain(value);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      const o = v as Literal;
      if (typeof o.path === 'string' && Object.keys(o).length === 1) {
        if (this.processor === null || this.component === null) return undefined;
        return plain(this.processor.getData(this.component, o.path, this.surfaceId ?? undefined));
      }
      for (const key of ['literalString', 'literalNumber', 'literalBoolean', 'literalArray'] as const) {
        if (o[key] !== undefined) return o[key];
      }
      return v;
    }

    override render() {
      const node = this.component as (Types.AnyComponentNode & { properties?: Record<string, unknown> }) | null;
      if (node === null || node.properties === undefined) return nothing;
      const properties = node.properties;
      const props: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(properties)) {
        if (!STRUCTURAL.has(key)) props[key] = this.#value(value);
      }
      const items = properties.items as Literal | undefined;
      this.#itemsPath = typeof items?.path === 'string' && this.processor !== null
        ? this.processor.resolvePath(items.path, this.dataContextPath)
        : undefined;
      this.#items = items === undefined ? [] : itemsOf(this.#value(items));
      const note = this.#value(properties.note);
      this.#actions = wireItemActions(properties.itemActions, (a: Types.Action) => a.name);
      const actions = this.#actions.map(({ name, label, primary }): ElementAction => ({ name, label, primary }));
      return staticHtml`<${inner} .props=${props} .items=${this.#items} .note=${typeof note === 'string' ? note : ''} .actions=${actions}></${inner}>`;
    }

    #onItemAction(event: Event): void {
      const detail = itemActionDetail(event);
      if (detail === undefined) return;
      event.stopPropagation();
      const action = this.#actions.find((a) => a.name === detail.action)?.action;
      const index = indexOfItem(this.#items, detail.item);
      if (action === undefined || index < 0 || this.#itemsPath === undefined) return;
      this.dispatchEvent(new Events.StateEvent({
        eventType: 'a2ui.action', action, dataContextPath: `${this.#itemsPath}/${index}`,
        sourceComponentId: this.id, sourceComponent: this.component,
      }));
    }
  };
}

/** Tag of the page's wrapper of the app element `tag`. */
export const wrapperTagV08 = (tag: string): string => `surfacer-v08-${tag}`;

/** Registers a wrapper per app component (once per page, before any surface renders). */
export function registerAppComponentsV08(spec: AppComponentsSpec | undefined): void {
  for (const { name, tag } of spec?.components ?? []) {
    componentRegistry.register(name, wrapperFor(tag) as unknown as CustomElementConstructor, wrapperTagV08(tag));
  }
}
