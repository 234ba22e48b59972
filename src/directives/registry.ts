import type { z } from 'zod';
import type { ConversationIr, Draw, TransitionResult } from '../ui-ir/index.ts';

/**
 * A directive type as the app registers it. The payload schema is the single source of truth:
 * it validates, and its JSON Schema is what the model is shown.
 */
export interface DirectiveDefinition<P = unknown> {
  /** Canonical type, e.g. `ui.show_form`. */
  type: string;
  /** Other spellings a model uses (`show_form`, `ui.showForm`); resolved with a warning. */
  aliases: readonly string[];
  description: string;
  payload: z.ZodType<P>;
  /** Pure: applies one validated payload to the IR. */
  apply(ir: ConversationIr, payload: P, draw: Draw): TransitionResult;
}

export interface DirectiveRegistry {
  readonly definitions: readonly DirectiveDefinition[];
  /** Canonical or alias lookup; `alias` is true when the name was not canonical. */
  resolve(name: string): { definition: DirectiveDefinition; alias: boolean } | undefined;
}

export function createDirectiveRegistry(definitions: readonly DirectiveDefinition<any>[]): DirectiveRegistry {
  const byName = new Map<string, { definition: DirectiveDefinition; alias: boolean }>();
  for (const definition of definitions) {
    for (const [name, alias] of [[definition.type, false], ...definition.aliases.map((a) => [a, true] as const)] as const) {
      if (byName.has(name)) throw new Error(`directive name "${name}" registered twice`);
      byName.set(name, { definition, alias });
    }
  }
  return { definitions, resolve: (name) => byName.get(name) };
}
