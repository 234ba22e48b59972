export { createA2uiHub, DEFAULT_HUB_LIMITS, HubClosedError } from './hub.ts';
export type {
  A2uiHub, DropReason, HubEvent, HubLimits, HubOptions, HubSink, HubStats, HubSubscription, InitReason, SubscribeResult,
} from './hub.ts';
export { createA2uiBridges } from './bridge.ts';
export type { A2uiBridges, BridgeOptions } from './bridge.ts';
export { A2UI_ORIGIN, asTheIrHeldIt, createA2uiHost } from './host.ts';
export type { A2uiHost, A2uiHostOptions } from './host.ts';
export type { A2uiFeed } from './feed.ts';
export { mountA2uiRoutes, A2UI_CLIENT_HEADER, SNAPSHOT_CHECKPOINT_HEADER, SNAPSHOT_CONTENT_TYPE } from './routes.ts';
export type { A2uiRouteDeps } from './routes.ts';
export { connectCommands } from './page.ts';
export { a2uiClientAssets, buildA2uiClient, loadA2uiClientStyle } from './client-bundle.ts';
export type { A2uiClientAssets, ClientAsset } from './client-bundle.ts';
export { initMessages, surfaceIdOf } from './messages.ts';
export type { A2uiServerMessage } from './messages.ts';
export { formatEventId, parseEventId, streamNameOf } from './event-id.ts';
