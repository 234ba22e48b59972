// App-defined components at compile time: checking a `component` block against the app, its
// fallback for a client without the app's catalogue, and the app catalogue documents.
export { checkedBoundProps } from './bound.ts';
export { checkComponentBlock } from './check.ts';
export type { CheckedComponent, ComponentCompileOptions } from './check.ts';
export { componentFallback, hasComponents, UNAVAILABLE_NOTE, withFallbacks, withFallbacksOrNotes } from './fallback.ts';
export { appCatalogV09, COMMON_TYPES } from './catalog-v09.ts';
export type { CatalogDocumentV09, JsonSchema } from './catalog-v09.ts';
export { appCatalogSpecV09, wireSchemaV09 } from './wire-v09.ts';
export type { AppCatalogV09 } from './wire-v09.ts';
export { COMPONENT_BOUND_KEY, COMPONENT_ITEM_KEY, componentBoundPath, componentDataKey, componentView, hasComponentData } from './view.ts';
export { appCatalogFromDocumentV09 } from './catalog-load-v09.ts';
export { appCatalogSpecV08, wireSchemaV08 } from './wire-v08.ts';
export type { AppCatalogV08 } from './wire-v08.ts';
export { appCatalogV08 } from './catalog-v08.ts';
export type { CatalogDocumentV08 } from './catalog-v08.ts';
