import { createHash } from 'node:crypto';

/**
 * Every key and channel Surfacer uses, under one prefix (several deployments or test runs can
 * share a server). A conversation's keys carry its id in braces, a Redis Cluster hash tag, so the
 * keys (and the change channel) one script touches for a conversation share a slot. Sessions'
 * conversation sets, rate buckets and idempotency keys are touched one at a time: each hashes on
 * its own name, spreading them over the shards.
 */
export interface RedisKeys {
  log(cid: string): string;
  channel(cid: string): string;
  owner(owner: string): string;
  turn(cid: string): string;
  /** The latest checkpoint of the conversation's folded state (conversation/checkpoint.ts). */
  checkpoint(cid: string): string;
  /** Written by a replay's confirmation, so the WAIT after it covers every entry before (see log-store). */
  confirmed(cid: string): string;
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

export function redisKeys(prefix = 'surfacer:', options: { cluster?: boolean } = {}): RedisKeys {
  const digest = (key: string): string => createHash('sha256').update(key).digest('base64url');
  // An owner's record list and key hash are updated by one script: in a cluster they share a
  // slot through a hash tag on the owner's digest. On one server the names stay as they always
  // were (a tag would move existing libraries out of sight).
  const owned = (name: string, part: 'list' | 'keys', owner: string): string => (options.cluster
    ? `${prefix}records:${name}:{${digest(owner)}}:${part}`
    : `${prefix}records:${name}:${part}:${digest(owner)}`);
  return {
    log: (cid) => `${prefix}{${cid}}:log`,
    channel: (cid) => `${prefix}{${cid}}:changed`,
    owner: (owner) => `${prefix}owner:${owner}`,
    turn: (cid) => `${prefix}{${cid}}:turn`,
    confirmed: (cid) => `${prefix}{${cid}}:confirmed`,
    checkpoint: (cid) => `${prefix}{${cid}}:checkpoint`,
    cancel: `${prefix}turn-cancel`,
    bucket: (name, key) => `${prefix}rate:${name}:${digest(key)}`,
    idempotency: (name, key) => `${prefix}idem:${name}:${digest(key)}`,
    recordCounter: (name) => `${prefix}records:${name}:n`,
    recordList: (name, owner) => owned(name, 'list', owner),
    recordKeys: (name, owner) => owned(name, 'keys', owner),
  };
}
