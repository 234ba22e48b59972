import type { AppDefinition } from '../conversation/app-definition.ts';
import { createDirectiveRegistry, type DirectiveDefinition } from '../directives/index.ts';
import { createActionRegistry, type ActionDefinition } from '../ingress/index.ts';
import type { Planner } from '../planner/types.ts';

/** What `defineApp` takes: lists instead of registries (it builds them, checking for clashes). */
export interface AppSpec {
  /** Shown in page titles. */
  name: string;
  /** Directive types the model may emit (their payload schemas are its JSON Schema). */
  directives: readonly DirectiveDefinition<any>[];
  /** Actions the UI's buttons may carry (the ingress allowlist). */
  actions: readonly ActionDefinition[];
  /** Deterministic planner used when no model is configured or reachable. */
  offlinePlanner: Planner;
}

/**
 * An AppDefinition from plain lists. Throws when two directives (or aliases) or two actions
 * share a name: an app with a clash would be ambiguous to the model and to ingress.
 */
export function defineApp(spec: AppSpec): AppDefinition {
  return {
    name: spec.name,
    directives: createDirectiveRegistry(spec.directives),
    actions: createActionRegistry(spec.actions),
    offlinePlanner: spec.offlinePlanner,
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
