/*
 * The contract between the A2UI pages and an app's own elements (ComponentDefinition.element),
 * the same for the v0.8 and the v0.9 page: the page resolves the component's properties from
 * the A2UI stream (literals and data bindings), and hands the app's element plain values:
 *
 *   element.props    the component's properties, resolved (a bound one from the server's copy
 *                    of the data it reads, present only if it passes the property's schema)
 *   element.items    the collection's items when the component shows one (else []): plain
 *                    objects `{ key, …fields }` — `key` is the item's key, the fields those of
 *                    the component's `item` schema
 *   element.note     what a list would say under them ("Showing 25 of 40.", or '')
 *   element.actions  the per-item actions: [{ name, label, primary }]
 *
 * and the element asks for an item action by dispatching `surfacer-item-action` (bubbling,
 * composed) with `detail: { action, item }` (the action's name, the item's key). The page turns
 * that into the renderer's own action for the item — the very message the fallback list's
 * button sends — so the app's element never builds protocol messages.
 *
 * Pure helpers only here (tested in Node); the renderer-specific wrappers are in
 * app-components-v08.ts and v0_9/app-components.ts.
 */

/** What an app bundle tells the page: its catalogue's id and its components' element tags. */
export interface AppComponentsSpec {
  /** The app catalogue's id (v0.9 createSurface names it; v0.8 beginRendering may). */
  readonly catalogId: string;
  readonly components: ReadonlyArray<{ readonly name: string; readonly tag: string }>;
}

export const ITEM_ACTION_EVENT = 'surfacer-item-action';

export interface ItemActionDetail {
  readonly action: string;
  readonly item: string;
}

/** One per-item action as the app's element sees it. */
export interface ElementAction {
  readonly name: string;
  readonly label: string;
  readonly primary: boolean;
}

/** The properties the page sets on an app's element. */
export interface AppElementInput {
  props: Record<string, unknown>;
  items: Record<string, unknown>[];
  note: string;
  actions: ElementAction[];
}

/** The detail of an item-action event, or undefined when it is not one (an app's bug, ignored). */
export function itemActionDetail(event: Event): ItemActionDetail | undefined {
  const detail = (event as CustomEvent<unknown>).detail as Partial<ItemActionDetail> | null | undefined;
  if (detail === null || typeof detail !== 'object') return undefined;
  return typeof detail.action === 'string' && typeof detail.item === 'string' ? { action: detail.action, item: detail.item } : undefined;
}

/** Plain data: the v0.8 processor keeps maps as `Map`s (and lists as maps keyed "0", "1", …). */
export function plain(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

/** A collection as an array of plain objects: an array, or a map keyed "0", "1", … in index order. */
export function itemsOf(value: unknown): Record<string, unknown>[] {
  const data = plain(value);
  const list = Array.isArray(data)
    ? data
    : data !== null && typeof data === 'object'
      ? Object.entries(data as Record<string, unknown>).filter(([k]) => /^\d+$/.test(k)).sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v)
      : [];
  return list.filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object' && !Array.isArray(item));
}

/** The field of a collection's item on the wire that holds its key (compiler/components/view.ts). */
export const ITEM_KEY = 'key';

/** The index of the item whose key is `key` among `items`, or -1 (a key the page does not show is never sent). */
export function indexOfItem(items: readonly Record<string, unknown>[], key: string): number {
  return items.findIndex((item) => item[ITEM_KEY] === key);
}

/** The per-item actions of a component on the wire (`itemActions`: `{label, primary?, action}`), named by their event. */
export interface WireItemAction<A> { name: string; label: string; primary: boolean; action: A }

export function wireItemActions<A>(value: unknown, nameOf: (action: A) => unknown): WireItemAction<A>[] {
  const list = plain(value);
  const entries = Array.isArray(list) ? list : itemsOf(list);
  return entries.flatMap((entry: unknown) => {
    if (entry === null || typeof entry !== 'object') return [];
    const e = entry as { label?: unknown; primary?: unknown; action?: A };
    if (e.action === undefined) return [];
    const name = nameOf(e.action);
    if (typeof name !== 'string') return [];
    const label = literalOf(e.label);
    return [{ name, label: typeof label === 'string' ? label : name, primary: literalOf(e.primary) === true, action: e.action }];
  });
}

/** A value as it is (v0.9), or a v0.8 literal BoundValue's (`{literalString: "Take"}`). */
export function literalOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const v = value as { literalString?: unknown; literalNumber?: unknown; literalBoolean?: unknown };
  return v.literalString ?? v.literalNumber ?? v.literalBoolean;
}
