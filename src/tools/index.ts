/**
 * Read-only tools an app registers for the model's tool loop (src/llm chat planner): the
 * registry (names, zod inputs, generated JSON Schemas) and its binding to one conversation.
 */
export { bindTools } from './bind.ts';
export { createToolRegistry, DEFAULT_TOOL_TIMEOUT_MS, TOOL_NAME } from './registry.ts';
export type { ToolContext, ToolDefinition, ToolRegistry } from './registry.ts';
