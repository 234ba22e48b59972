import { z } from 'zod';

/** A tool name as both providers accept it (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ToolContext {
  /** The conversation the turn belongs to, and its owner: a tool sees only what that user may see. */
  readonly conversation: { readonly id: string; readonly owner: string | undefined };
  /** Aborted on cancel, on the tool's timeout and when the turn's tool loop runs out of time. */
  readonly signal: AbortSignal;
}

/**
 * A read-only tool an app registers: the model may call it before it answers with directives
 * (the hybrid run of design §1). Read-only is the contract: a tool looks something up and
 * changes nothing, because a turn's tool calls are only traced, never replayed (the fold needs
 * only the model's final answer), and a cancelled or repeated turn may call it again. Anything
 * that changes the world is an action's effect (ActionEffect), which the log records.
 */
export interface ToolDefinition<I = any> {
  name: string;
  /** What the tool answers, for the model. */
  description: string;
  /** The arguments; their JSON Schema (z.toJSONSchema) is what the model is shown. */
  input: z.ZodType<I>;
  /** Resolves with plain JSON (what the model is given); a throw is fed back to the model as an error. */
  handler(input: I, context: ToolContext): Promise<unknown>;
  /** Default DEFAULT_TOOL_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface ToolRegistry {
  readonly definitions: readonly ToolDefinition[];
  /** Own-property lookup: names come from the model. */
  resolve(name: string): ToolDefinition | undefined;
  /** Each tool's name, description and parameters' JSON Schema, generated once. */
  readonly schemas: readonly { name: string; description: string; parameters: Record<string, unknown> }[];
}

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

export function createToolRegistry(definitions: readonly ToolDefinition[]): ToolRegistry {
  const byName = new Map<string, ToolDefinition>();
  for (const d of definitions) {
    if (!TOOL_NAME.test(d.name)) throw new Error(`tool name "${d.name}" must match ${TOOL_NAME}`);
    if (byName.has(d.name)) throw new Error(`tool "${d.name}" registered twice`);
    byName.set(d.name, d);
  }
  const schemas = definitions.map((d) => {
    // The `$schema` URI means nothing to a model; the rest is the schema the input validates with.
    const { $schema: _uri, ...parameters } = z.toJSONSchema(d.input, { io: 'input' }) as Record<string, unknown>;
    return { name: d.name, description: d.description, parameters };
  });
  return { definitions, resolve: (name) => byName.get(name), schemas };
}
