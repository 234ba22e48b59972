export { createA2uiHub, DEFAULT_HUB_LIMITS, HubClosedError } from './hub.ts';
export type {
  A2uiHub, DropReason, HubEvent, HubLimits, HubOptions, HubSink, HubStats, HubSubscription, InitReason, SubscribeResult,
} from './hub.ts';
export { mountA2uiRoutes, A2UI_CLIENT_HEADER, SNAPSHOT_CHECKPOINT_HEADER, SNAPSHOT_CONTENT_TYPE } from './routes.ts';
export type { A2uiRouteDeps } from './routes.ts';
export { a2uiClientAssets, buildA2uiClient, loadA2uiClientStyle } from './client-bundle.ts';
export type { A2uiClientAssets, ClientAsset } from './client-bundle.ts';
export { initMessages, surfaceIdOf } from './messages.ts';
export type { A2uiServerMessage } from './messages.ts';
export { formatEventId, parseEventId } from './event-id.ts';
