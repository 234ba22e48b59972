export { createLocalBackend } from './local.ts';
export { createRedisBackend } from './redis/index.ts';
export type { RedisBackendOptions } from './redis/index.ts';
export { createMemoryRecords } from './memory-records.ts';
export type { Backend, BackendHealth, KeyedRecords } from './types.ts';
