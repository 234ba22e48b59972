// Small helpers for defining an app on the public API (src/index.ts): lists in, registries out.
export { defineAction, defineApp, defineDirective, itemActionNames } from './define.ts';
export type { AppSpec } from './define.ts';
