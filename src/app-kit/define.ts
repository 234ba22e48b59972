import type { AppDefinition } from '../conversation/app-definition.ts';
import { ComponentDefinitionError, createComponentRegistry, type ComponentDefinition } from './component.ts';
import { createDirectiveRegistry, type DirectiveDefinition } from '../directives/index.ts';
import { createActionRegistry, type ActionDefinition } from '../ingress/index.ts';
import { resolveTheme } from './theme.ts';

/**
 * What `defineApp` takes: an AppDefinition with lists instead of registries (it builds them,
 * checking for clashes). Derived from AppDefinition, so whatever an app may define there, it may
 * define here too.
 */
export type AppSpec = Omit<AppDefinition, 'directives' | 'actions' | 'components'> & {
  /** Directive types the model may emit (their payload schemas are its JSON Schema). */
  directives: readonly DirectiveDefinition<any>[];
  /** Actions the UI's buttons may carry (the ingress allowlist). */
  actions: readonly ActionDefinition[];
  /** The app's own components (defineComponent); `catalog` is required with any. */
  components?: readonly ComponentDefinition<any, any>[];
};

/** A catalogue id is an absolute https URL (A2UI catalogue ids are URIs; https makes them the app's). */
export function isCatalogId(id: unknown): id is string {
  if (typeof id !== 'string' || id.length > 2048) return false;
  try {
    return new URL(id).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * An AppDefinition from plain lists. Throws when two directives (or aliases) or two actions
 * share a name: an app with a clash would be ambiguous to the model and to ingress. Throws a
 * ThemeError for a theme that fails its schema or WCAG AA contrast (the reason names the colour
 * and the ratio): refused at start rather than shown unreadable.
 */
export function defineApp(spec: AppSpec): AppDefinition {
  const { directives, actions, components, ...rest } = spec;
  if (rest.catalog !== undefined && !isCatalogId(rest.catalog.id)) {
    throw new ComponentDefinitionError(`catalog id ${JSON.stringify(rest.catalog.id)} is not an https URL`);
  }
  if (components !== undefined && components.length > 0 && rest.catalog === undefined) {
    throw new ComponentDefinitionError('an app with components names its catalogue: catalog: { id: "https://…" }');
  }
  // The parsed theme (trimmed font list): what the hosts emit is what was checked.
  const theme = rest.theme === undefined ? {} : { theme: resolveTheme(rest.theme).theme };
  return {
    ...rest, ...theme, directives: createDirectiveRegistry(directives), actions: createActionRegistry(actions),
    ...(components === undefined ? {} : { components: createComponentRegistry(components) }),
  };
}

/** Identity, for inference: the payload type `P` comes from the schema, so `apply` is typed. */
export function defineDirective<P>(definition: DirectiveDefinition<P>): DirectiveDefinition<P> {
  return definition;
}

/** Identity, for a checked object literal. */
export function defineAction(definition: ActionDefinition): ActionDefinition {
  return definition;
}

/** Names of the per-item actions (`scope: 'item'`) among `actions`: the allowlist of the list directives. */
export function itemActionNames(actions: readonly ActionDefinition[]): string[] {
  return actions.filter((a) => a.scope === 'item').map((a) => a.name);
}
