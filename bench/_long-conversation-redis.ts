import { spawnSync } from 'node:child_process';

/** True when a `redis-server` binary is on the PATH (the long-conversation bench skips Redis without one). */
export function hasRedisServer(): boolean {
  return spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0;
}
