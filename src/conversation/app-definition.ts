import type { DirectiveRegistry } from '../directives/registry.ts';
import type { ActionRegistry } from '../ingress/actions.ts';
import type { Planner } from '../planner/types.ts';

/** Everything product-specific, injected into the infrastructure. */
export interface AppDefinition {
  /** Shown in page titles. */
  name: string;
  directives: DirectiveRegistry;
  actions: ActionRegistry;
  /** Deterministic keyword planner used when no model is configured or reachable. */
  offlinePlanner: Planner;
}
