/**
 * The properties the compilers add to an app component that shows a collection (the catalogue
 * declares them; defineComponent keeps an app from using these names).
 */
export const COLLECTION_PROPS = { items: 'items', note: 'note', itemActions: 'itemActions' } as const;

/** Names an app component's property cannot have: the envelope's, the protocol's common ones, the collection's. */
export const RESERVED_PROP_NAMES: ReadonlySet<string> = new Set(['id', 'component', 'accessibility', 'weight', ...Object.values(COLLECTION_PROPS)]);
