// Small helpers for defining an app on the public API (src/index.ts): lists in, registries out.
export { defineAction, defineApp, defineDirective, isCatalogId, itemActionNames } from './define.ts';
export { ComponentDefinitionError, createComponentRegistry, defineComponent, fallbackListOf } from './component.ts';
export type { ComponentDefinition, ComponentRegistry } from './component.ts';
export type { AppSpec } from './define.ts';
