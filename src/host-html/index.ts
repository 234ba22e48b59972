export { createApp, HOST_SECURE_HEADERS } from './app.ts';
export type { HostApp } from './app.ts';
export { DEFAULT_HOST_LIMITS } from './deps.ts';
export type { HostDeps, HostLimits } from './deps.ts';
export { ListenError, startServer } from './server.ts';
export type { RunningServer } from './server.ts';
export { createConversationStack } from './wiring.ts';
export type { ConversationStackOptions } from './wiring.ts';
export { HTMX_CONFIG } from './views.ts';
