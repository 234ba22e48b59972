export { createMcpHost, MCP_PATH, PROTECTED_RESOURCE_PATHS } from './host.ts';
export type { McpHost, McpHostOptions } from './host.ts';
export { createMcpDoorServer, instructionsOf, MCP_ORIGIN } from './server.ts';
export { MCP_VIEW_URI, mcpViewHtml } from './view-html.ts';
export type { McpCaller, McpDoorDeps } from './server.ts';
export { directiveToolName, MESSAGE_TOOL, READ_TOOL, VIEW_ACTION_TOOL } from './tools.ts';
