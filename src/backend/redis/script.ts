import { createHash } from 'node:crypto';
import { ErrorReply } from 'redis';
import type { RedisCommands } from './connection.ts';

/** What a script runs on: a connection, or one that watches what is sent on it (durable writes). */
export type ScriptClient = Pick<RedisCommands, 'evalSha' | 'eval'>;

/** A Lua script run by its SHA1 (EVALSHA), loaded on first use and after a server restart (NOSCRIPT). */
export interface RedisScript {
  run(client: ScriptClient, keys: string[], args: string[]): Promise<unknown>;
}

export function redisScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    async run(client, keys, args) {
      try {
        return await client.evalSha(sha, { keys, arguments: args });
      } catch (error) {
        if (!(error instanceof ErrorReply) || !error.message.startsWith('NOSCRIPT')) throw error;
        return client.eval(source, { keys, arguments: args });
      }
    },
  };
}
