import { createHash } from 'node:crypto';

/**
 * Every key and channel Surfacer uses, under one prefix (several deployments or test runs can
 * share a server). A conversation's keys carry its id in braces, a Redis Cluster hash tag, so the
 * keys one script touches for a conversation would share a slot.
 */
export interface RedisKeys {
  log(cid: string): string;
  channel(cid: string): string;
  owner(owner: string): string;
  turn(cid: string): string;
  /** The one channel turn cancellations travel on (every instance listens). */
  readonly cancel: string;
  /** Client-chosen keys (addresses, idempotency keys) are hashed: bounded length, no separators. */
  bucket(name: string, key: string): string;
  idempotency(name: string, key: string): string;
  /** An app's records (KeyedRecords): the number counter, an owner's list, an owner's key → record hash. */
  recordCounter(name: string): string;
  recordList(name: string, owner: string): string;
  recordKeys(name: string, owner: string): string;
}

export function redisKeys(prefix = 'surfacer:'): RedisKeys {
  const digest = (key: string): string => createHash('sha256').update(key).digest('base64url');
  return {
    log: (cid) => `${prefix}{${cid}}:log`,
    channel: (cid) => `${prefix}{${cid}}:changed`,
    owner: (owner) => `${prefix}owner:${owner}`,
    turn: (cid) => `${prefix}{${cid}}:turn`,
    cancel: `${prefix}turn-cancel`,
    bucket: (name, key) => `${prefix}rate:${name}:${digest(key)}`,
    idempotency: (name, key) => `${prefix}idem:${name}:${digest(key)}`,
    recordCounter: (name) => `${prefix}records:${name}:n`,
    recordList: (name, owner) => `${prefix}records:${name}:list:${digest(owner)}`,
    recordKeys: (name, owner) => `${prefix}records:${name}:keys:${digest(owner)}`,
  };
}
