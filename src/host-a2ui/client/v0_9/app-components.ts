/// <reference lib="dom" />
/*
 * The app's components on the v0.9 page: one Catalog under the app catalogue's id holding the
 * basic catalogue's components and functions plus one wrapper per app component. The official
 * surface renders a component through its catalogue entry's `tagName` with `.context` (its
 * ComponentContext); the wrapper reads the component's properties from the context — literals as
 * they are, `{path}` bindings from the data model, re-read when the data changes — and hands them
 * to the app's element as plain values (app-elements.ts). An item action the element asks for
 * is dispatched as the component's own wire action for that item (`itemActions[i].action`, resolved
 * against the item's data context), so the server gets what the fallback list's button sends.
 */
import { pageBasicCatalog } from './overrides.ts';
import { ContextHold } from './context-hold.ts';
import { TABLE_TAG } from './table-element.ts';
import { Catalog, type ComponentContext, type WebComponentImplementation } from '@a2ui/web_core/v0_9';
import {
  indexOfItem, ITEM_ACTION_EVENT, itemActionDetail, itemsOf, plain, wireItemActions, type AppComponentsSpec, type AppElementInput,
  type ElementAction, type WireItemAction,
} from '../app-elements.ts';

/** Properties that describe the collection and its actions, not the component's own. */
const STRUCTURAL = new Set(['id', 'component', 'items', 'note', 'itemActions', 'weight', 'accessibility']);

type Binding = { path: string };
const isBinding = (value: unknown): value is Binding =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as Binding).path === 'string' && Object.keys(value).length === 1;

type WireAction = WireItemAction<{ event?: { name?: unknown } }>;

/** A wrapper element class for one app component: it renders the app's element `tag` in its light DOM. */
function wrapperFor(tag: string): CustomElementConstructor {
  return class AppComponentV09 extends HTMLElement {
    #hold = new ContextHold();
    #unsubscribe: Array<() => void> = [];
    #inner: (HTMLElement & Partial<AppElementInput>) | undefined;
    #items: Record<string, unknown>[] = [];
    #itemsPath: string | undefined;
    #actions: WireAction[] = [];

    constructor() {
      super();
      this.addEventListener(ITEM_ACTION_EVENT, (event) => this.#onItemAction(event));
    }

    set context(context: ComponentContext) {
      this.#hold.take(context, () => this.#bind());
    }

    get context(): ComponentContext | undefined {
      return this.#hold.context;
    }

    connectedCallback(): void {
      if (this.#inner === undefined) {
        this.#inner = document.createElement(tag) as HTMLElement & Partial<AppElementInput>;
        this.append(this.#inner);
        this.#push();
      }
    }

    disconnectedCallback(): void {
      for (const off of this.#unsubscribe) off();
      this.#unsubscribe = [];
      this.#hold.release();
    }

    /** (Re)reads every property and subscribes to the bound ones. */
    #bind(): void {
      const context = this.#hold.context;
      if (context === undefined) return;
      for (const off of this.#unsubscribe) off();
      this.#unsubscribe = [];
      const properties = context.componentModel.properties as Record<string, unknown>;
      const props: Record<string, unknown> = {};
      const read = <T>(value: unknown, set: (v: T | undefined) => void): void => {
        if (!isBinding(value)) { set(value as T); return; }
        const sub = context.dataContext.subscribeDynamicValue<T>(value, (v) => { set(v); this.#push(); });
        this.#unsubscribe.push(() => sub.unsubscribe());
        set(sub.value);
      };
      for (const [key, value] of Object.entries(properties)) {
        if (STRUCTURAL.has(key)) continue;
        read<unknown>(value, (v) => { props[key] = plain(v); });
      }
      this.#itemsPath = isBinding(properties.items) ? properties.items.path : undefined;
      read<unknown>(properties.items, (v) => { this.#items = itemsOf(v); });
      read<unknown>(properties.note, (v) => { this.#note = typeof v === 'string' ? v : ''; });
      this.#actions = wireItemActions(properties.itemActions, (a: { event?: { name?: unknown } }) => a.event?.name);
      this.#props = props;
      this.#push();
    }

    #props: Record<string, unknown> = {};
    #note = '';

    #push(): void {
      const inner = this.#inner;
      if (inner === undefined) return;
      inner.props = { ...this.#props };
      inner.items = this.#items.map((item) => ({ ...item }));
      inner.note = this.#note;
      inner.actions = this.#actions.map(({ name, label, primary }): ElementAction => ({ name, label, primary }));
    }

    #onItemAction(event: Event): void {
      const context = this.#hold.context;
      const detail = itemActionDetail(event);
      if (context === undefined || detail === undefined) return;
      event.stopPropagation();
      const action = this.#actions.find((a) => a.name === detail.action);
      const index = indexOfItem(this.#items, detail.item);
      if (action === undefined || index < 0 || this.#itemsPath === undefined) return;
      // The item's own data context: `{path: "key"}`-style bindings in the action read the item.
      const itemContext = context.dataContext.nested(this.#itemsPath).nested(String(index));
      void context.dispatchAction(itemContext.resolveAction(action.action as never));
    }
  };
}

const PASS_THROUGH = {
  safeParse: (data: unknown) => ({ success: true as const, data }),
} as unknown as WebComponentImplementation['schema'];

/** Tag of the page's wrapper of the app element `tag` (its own name: the app may not define it). */
export const wrapperTag = (tag: string): string => `surfacer-v09-${tag}`;

/**
 * The catalogue the v0.9 page's processor is made with: the app catalogue when the bundle holds
 * the app's elements (the basic components under the app's id, plus its own), the basic one
 * otherwise (then a stream that names the app catalogue is refused, never half-rendered).
 */
export function appCatalogV09(spec: AppComponentsSpec | undefined): Catalog<WebComponentImplementation>[] {
  const basic = pageBasicCatalog();
  if (spec === undefined || spec.components.length === 0) return [basic];
  const own = spec.components.map(({ name, tag }): WebComponentImplementation => {
    const wrapper = wrapperTag(tag);
    if (customElements.get(wrapper) === undefined) customElements.define(wrapper, wrapperFor(tag));
    // The wrapper reads the raw properties itself, and the server checked them against the app's
    // zod schema: the processor's check (its only use of the schema here) lets them through. Not
    // a zod object: zod 4 probes `new Function` on first use, which the page's CSP forbids.
    return { name, tagName: wrapper, schema: PASS_THROUGH };
  });
  // Surfacer's Table (a table block's component in every app catalogue): its element is in every bundle.
  const table: WebComponentImplementation = { name: 'Table', tagName: TABLE_TAG, schema: PASS_THROUGH };
  return [
    basic,
    new Catalog(spec.catalogId, [...basic.components.values(), table, ...own], [...basic.functions.values()]),
  ];
}
