import type { DirectiveRegistry } from '../directives/registry.ts';
import type { ActionRegistry } from '../ingress/actions.ts';
import type { Planner } from '../planner/types.ts';
import type { ToolRegistry } from '../tools/index.ts';

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
}
