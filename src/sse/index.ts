export { createHeartbeat, nodeSink, openPushConnection, SSE_PING, sseFrame, webSink } from './transport.ts';
export type { Heartbeat, PushConnection, PushConnectionOptions, SseSink } from './transport.ts';
