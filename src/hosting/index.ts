/** What both hosts (src/host-html, src/host-a2ui) share at the HTTP edge: SSE transport, rate limits, security headers. */
export { clientAddress, createRateLimiter } from './rate-limit.ts';
export type { RateLimiter } from './rate-limit.ts';
export { secureHeadersOnNode } from './secure-headers.ts';
export {
  createDrainBatcher, createHeartbeat, nodeSink, openPushConnection, SHUTDOWN_RETRY_MS, SSE_PING, SSE_SHUTDOWN_FAREWELL, sseFrame, webSink,
} from './sse.ts';
export type { DrainBatcher, Heartbeat, NodeSinkOptions, PushConnection, PushConnectionOptions, SseChunk, SseSink } from './sse.ts';
export { SharedFrame } from './shared-frame.ts';
export { bearerTokenAuthenticator, chooseAgentAuthenticate, isLoopbackHost, LOCAL_PRINCIPAL, ownerOfPrincipal, parseApiTokens } from './agent-auth.ts';
export type { Authenticate, Principal } from './agent-auth.ts';
export { admitCaller, agentGate, bodyTextOf, isJsonContentType, isLoopbackAddress, principalOf, readLimitedText, unauthorized } from './agent-gate.ts';
export type { AgentGateOptions } from './agent-gate.ts';
export { agentCors, AgentOriginsError, parseAgentOrigins, parsedUrl } from './agent-cors.ts';
export { createHeldSurfaces } from './held-surfaces.ts';
export { PAGE_MESSAGES, recentTranscript } from './recent-transcript.ts';
export type { HeldSurfaces } from './held-surfaces.ts';
export {
  advertisedInAguiContext, advertisedInCapabilities, advertisedInQuery, appCatalogOffer, basicCatalogIdOf, chooseCatalog, mergeAdvertised, namingBasicCatalog,
  NOTHING_ADVERTISED,
} from './catalog-choice.ts';
export type { AdvertisedCatalogs, AppCatalogOffer, AppWithCatalog, CatalogChoice } from './catalog-choice.ts';
export { nodeEndOfLifeWarning, TESTED_NODE_LINES } from './node-runtime.ts';
export { appThemeStylesheet, themeStylesheet } from './theme-css.ts';
