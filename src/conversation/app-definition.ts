import type { ComponentRegistry } from '../app-kit/component.ts';
import type { AppTheme } from '../app-kit/theme.ts';
import type { DirectiveRegistry } from '../directives/registry.ts';
import type { ActionRegistry } from '../ingress/actions.ts';
import type { Planner } from '../planner/types.ts';
import type { ToolRegistry } from '../tools/index.ts';

/**
 * Words the hosts show around the app's panels (page title, message box, empty state). Each has a
 * neutral default, so an app built on Surfacer never shows another app's examples.
 */
export interface AppTexts {
  /** A line under the title. */
  description?: string;
  /** The message box's placeholder. Default "Type a message". */
  placeholder?: string;
  /** Shown while no panel is open. Default "Nothing here yet. Ask for something to get started." */
  emptyState?: string;
  /** Example requests offered to a newcomer (the htmx page lists them; none by default). */
  hints?: readonly string[];
}

/** Everything product-specific, injected into the infrastructure. */
export interface AppDefinition {
  /** Shown in page titles. */
  name: string;
  directives: DirectiveRegistry;
  actions: ActionRegistry;
  /** Deterministic keyword planner used when no model is configured or reachable. */
  offlinePlanner: Planner;
  /** Read-only tools the model may call before it answers (the tool loop); none by default. */
  tools?: ToolRegistry;
  /** What the pages say besides the panels; neutral defaults where absent. */
  texts?: AppTexts;
  /** The app's own components (defineComponent), placed by `component` blocks; none by default. */
  components?: ComponentRegistry;
  /**
   * The app catalogue (the basic catalogue's components and the app's) and its stable id, an
   * https URL the app names; required when the app has components.
   */
  catalog?: AppCatalogRef;
  /**
   * The app's look (primary colour, font, corner radius, light/dark): the pages' CSS variables,
   * A2UI v0.8 `beginRendering.styles` and v0.9 `createSurface.theme`. Absent: Surfacer's own.
   */
  theme?: AppTheme;
}

export interface AppCatalogRef {
  id: string;
}
