import type { AppDefinition } from '../conversation/app-definition.ts';
import { createDirectiveRegistry, type DirectiveDefinition } from '../directives/index.ts';
import { createActionRegistry, type ActionDefinition } from '../ingress/index.ts';

/**
 * What `defineApp` takes: an AppDefinition with lists instead of registries (it builds them,
 * checking for clashes). Derived from AppDefinition, so whatever an app may define there, it may
 * define here too.
 */
export type AppSpec = Omit<AppDefinition, 'directives' | 'actions'> & {
  /** Directive types the model may emit (their payload schemas are its JSON Schema). */
  directives: readonly DirectiveDefinition<any>[];
  /** Actions the UI's buttons may carry (the ingress allowlist). */
  actions: readonly ActionDefinition[];
};

/**
 * An AppDefinition from plain lists. Throws when two directives (or aliases) or two actions
 * share a name: an app with a clash would be ambiguous to the model and to ingress.
 */
export function defineApp(spec: AppSpec): AppDefinition {
  const { directives, actions, ...rest } = spec;
  return { ...rest, directives: createDirectiveRegistry(directives), actions: createActionRegistry(actions) };
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
