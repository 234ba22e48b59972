export { createLocalBackend } from './local.ts';
export { createRedisBackend } from './redis/index.ts';
export type { RedisBackendOptions } from './redis/index.ts';
export type { Backend, BackendHealth } from './types.ts';
