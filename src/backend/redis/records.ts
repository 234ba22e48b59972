import type { KeyedRecords } from '../types.ts';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { redisScript } from './script.ts';

/*
 * Records shared by every instance. The number comes from INCR on one counter, so two instances
 * saving at once never build the same id. The record is stored by one script: if (owner, key)
 * already names a record (another instance saved it first, or this is a retry), that one is
 * returned and nothing is stored; otherwise it is kept under the key and appended to the owner's
 * list. A number drawn by a save that lost is skipped: ids stay unique, not gapless.
 */
const SAVE = redisScript(`
if ARGV[1] ~= '' then
  local known = redis.call('HGET', KEYS[1], ARGV[1])
  if known then return known end
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
redis.call('RPUSH', KEYS[2], ARGV[2])
return ARGV[2]
`);

export function createRedisRecords<T>(
  connection: RedisConnection, keys: RedisKeys, name: string, parse: (value: unknown) => T,
): KeyedRecords<T> {
  return {
    async save(owner, key, make) {
      // A retry finds its record without drawing a number.
      if (key !== undefined) {
        const known = await connection.call((client) => client.hGet(keys.recordKeys(name, owner), key), { key: keys.recordKeys(name, owner), span: { name: 'records.find', command: 'HGET' } });
        if (known !== null && known !== undefined) return parse(JSON.parse(known));
      }
      const n = await connection.call((client) => client.incr(keys.recordCounter(name)), { key: keys.recordCounter(name), span: { name: 'records.next-id', command: 'INCR' } });
      const record = make(n);
      const stored = await connection.durable(keys.recordKeys(name, owner), (node) => SAVE.run(node, [keys.recordKeys(name, owner), keys.recordList(name, owner)], [key ?? '', JSON.stringify(record)]), { span: { name: 'records.save', command: 'EVALSHA' } });
      return parse(JSON.parse(String(stored)));
    },
    async list(owner) {
      const texts = await connection.call((client) => client.lRange(keys.recordList(name, owner), 0, -1), { key: keys.recordList(name, owner), span: { name: 'records.list', command: 'LRANGE' } });
      return texts.map((text) => parse(JSON.parse(text))).reverse();
    },
  };
}
