import type { z } from 'zod';
import type { ConversationIr, Draw, Surface, ToastLevel, TransitionResult } from '../ui-ir/index.ts';

/**
 * An allowlisted action as the app registers it. Ingress checks envelope, surface, nonce,
 * epoch, rev and limits itself; the action owns only its context schema and its effect.
 */
export interface ActionDefinition {
  /** Stable name carried by buttons (`form.submit`). */
  name: string;
  description: string;
  /**
   * `item`: a per-item action, offered by a surface's lists on each item (ui-ir ListBlock). Its
   * request carries the list's name and the item's key, which ingress checks against what the
   * surface shows and hands to `handle` as `context.list` and `context.item`. Ingress accepts it
   * only from an item button, and a `surface` action (the default) only from the view's buttons.
   */
  readonly scope?: 'surface' | 'item';
  /**
   * Schema of the context beyond the ingress-owned keys (`nonce`, `rev`), for this surface; for
   * an item action also beyond `list` and `item`.
   * It coerces what real clients send: numbers as strings, "on"/"true" booleans, empty strings.
   */
  contextSchema(surface: Surface): z.ZodType<Record<string, unknown>>;
  /** Pure: applies a validated action. `toast` is shown to the user after it succeeds. */
  handle(ir: ConversationIr, surface: Surface, context: Record<string, unknown>, draw: Draw):
    | { ok: true; ir: ConversationIr; toast?: { level: ToastLevel; text: string } }
    | Extract<TransitionResult, { ok: false }>;
}

export interface ActionRegistry {
  readonly definitions: readonly ActionDefinition[];
  resolve(name: string): ActionDefinition | undefined;
}

export function createActionRegistry(definitions: readonly ActionDefinition[]): ActionRegistry {
  const byName = new Map<string, ActionDefinition>();
  for (const d of definitions) {
    if (byName.has(d.name)) throw new Error(`action "${d.name}" registered twice`);
    byName.set(d.name, d);
  }
  return { definitions, resolve: (name) => byName.get(name) };
}
