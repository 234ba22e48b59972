import type { RateLimiter } from '../../hosting/rate-limit.ts';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { redisScript } from './script.ts';

/*
 * The same token bucket as hosting/rate-limit.ts, kept in a Redis hash and updated by a script,
 * so every instance takes from one bucket. Time is the Redis server's (instances' clocks may
 * differ). A bucket expires once it would be full again anyway.
 */
const TAKE = redisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local perMinute = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) / 60000 * perMinute)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / perMinute * 60000) + 1000)
return allowed
`);

export function createRedisRateLimiter(
  connection: RedisConnection, keys: RedisKeys, name: string, options: { perMinute: number; burst: number },
): RateLimiter {
  if (!(options.perMinute > 0) || !(options.burst >= 1)) throw new RangeError('invalid rate limit');
  return {
    async take(key) {
      const allowed = await connection.call((client) => TAKE.run(client, [keys.bucket(name, key)], [String(options.perMinute), String(options.burst)]), { key: keys.bucket(name, key), span: { name: 'rate-limit.take', command: 'EVALSHA' } });
      return allowed === 1;
    },
  };
}
