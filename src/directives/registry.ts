import type { z } from 'zod';
import type { ErrorCode } from '../errors/index.ts';
import type { ConversationIr, Draw, TransitionResult } from '../ui-ir/index.ts';
import type { DirectiveLimits } from './limits.ts';

/** Warning codes a normaliser may raise; strict mode turns each into DIRECTIVE_NON_CANONICAL. */
export type DirectiveWarningCode = Extract<ErrorCode, `DIRECTIVE_WARN_${string}`>;

/**
 * Handed to a definition's `normalise`. Pointers are relative to the payload (`/ops/0/path`);
 * the validator prefixes `/directives/<i>/payload`.
 */
export interface NormaliseContext {
  warn(code: DirectiveWarningCode, pointer: string, detail: string): void;
  fail(code: ErrorCode, pointer: string, detail: string): void;
}

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
  /**
   * Optional repair step run on the (already key-case-normalised) payload before the schema:
   * patch-op aliases, segment paths, template names. Receives a private copy it may return
   * modified; reports every change through `ctx.warn` so strict mode can refuse it.
   */
  normalise?(payload: unknown, ctx: NormaliseContext): unknown;
  /** A canonical payload, shown in the prompt catalogue and the docs; tests check it validates. */
  example?: P;
  /**
   * Pure: applies one validated payload to the IR. An error's `pointer`, if any, is relative to
   * the payload (`/surface`); the runner prefixes the directive's position. `context.limits` are
   * the run's budgets, for what only the IR can tell (e.g. how many items a list holds after);
   * the runner always passes them, a caller without budgets of its own may leave them out
   * (the defaults apply).
   */
  apply(ir: ConversationIr, payload: P, draw: Draw, context?: ApplyContext): TransitionResult;
}

export interface ApplyContext {
  readonly limits: DirectiveLimits;
}

export interface DirectiveRegistry {
  readonly definitions: readonly DirectiveDefinition[];
  /**
   * Canonical or alias lookup; `alias` is true when the name was not canonical. Besides the
   * registered aliases, a camelCase or upper-case spelling of a canonical or alias name
   * (`ui.showForm`, `UI.TOAST`) resolves as an alias.
   */
  resolve(name: string): { definition: DirectiveDefinition; alias: boolean } | undefined;
}

/** `ui.showForm` → `ui.show_form`, `UI.Toast` → `ui.toast`, `show-form` → `show_form`. */
export function foldDirectiveName(name: string): string {
  return name.trim().replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[-\s]+/g, '_').toLowerCase();
}

export function createDirectiveRegistry(definitions: readonly DirectiveDefinition<any>[]): DirectiveRegistry {
  const byName = new Map<string, { definition: DirectiveDefinition; alias: boolean }>();
  const byFolded = new Map<string, DirectiveDefinition>();
  for (const definition of definitions) {
    for (const [name, alias] of [[definition.type, false], ...definition.aliases.map((a) => [a, true] as const)] as const) {
      if (byName.has(name)) throw new Error(`directive name "${name}" registered twice`);
      byName.set(name, { definition, alias });
      const folded = foldDirectiveName(name);
      const previous = byFolded.get(folded);
      if (previous !== undefined && previous !== definition) throw new Error(`directive name "${name}" is ambiguous`);
      byFolded.set(folded, definition);
    }
  }
  return {
    definitions,
    resolve: (name) => {
      const exact = byName.get(name);
      if (exact !== undefined) return exact;
      const folded = byFolded.get(foldDirectiveName(name));
      return folded === undefined ? undefined : { definition: folded, alias: true };
    },
  };
}
