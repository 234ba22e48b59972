// Small helpers for defining an app on the public API (src/index.ts): lists in, registries out.
export { defineAction, defineApp, defineDirective, isCatalogId, itemActionNames } from './define.ts';
export { ComponentDefinitionError, createComponentRegistry, defineComponent, fallbackListOf } from './component.ts';
export { componentClass, componentCssProblem, MAX_COMPONENT_CSS } from './component-css.ts';
export type { ComponentDefinition, ComponentRegistry } from './component.ts';
export type { AppSpec } from './define.ts';
export {
  AppThemeSchema, contrastRatio, MIN_CONTRAST, ON_PRIMARY_COLOURS, resolveTheme, safeResolveTheme, textOnPrimary, ThemeError,
} from './theme.ts';
export type { AppTheme, ResolvedTheme, ThemeCheck } from './theme.ts';
