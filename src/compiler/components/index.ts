// App-defined components at compile time: checking a `component` block against the app, its
// fallback for a client without the app's catalogue, and the app catalogue documents.
export { checkComponentBlock } from './check.ts';
export type { CheckedComponent, ComponentCompileOptions } from './check.ts';
export { componentFallback, hasComponents, UNAVAILABLE_NOTE, withFallbacks, withFallbacksOrNotes } from './fallback.ts';
