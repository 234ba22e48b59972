import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { E2E_SESSION_SECRET } from '../../e2e/support/stack.ts';

/**
 * An instance run as an operator runs it: `node bin/surfacer.mjs serve --port 0 --redis URL`
 * in a process of its own (SURFACER_SESSION_SECRET and SURFACER_REDIS_PREFIX in its
 * environment), so a test can SIGKILL it: no shutdown, no goodbye to its clients.
 */
export interface ChildInstance {
  readonly url: string;
  readonly pid: number;
  /** What it wrote to stderr so far (its log: pino JSON lines, `"level":"warn"` …). */
  stderr(): string;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

const BIN = fileURLToPath(new URL('../../../bin/surfacer.mjs', import.meta.url));
const live = new Set<ChildProcess>();
// A test worker that dies must not leave instances behind.
process.once('exit', () => { for (const child of live) child.kill('SIGKILL'); });

export async function startChildInstance(redisUrl: string, prefix: string, timeoutMs = 30_000): Promise<ChildInstance> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--redis', redisUrl], {
    env: { ...process.env, SURFACER_SESSION_SECRET: E2E_SESSION_SECRET, SURFACER_REDIS_PREFIX: prefix },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { live.delete(child); resolve(); }));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`instance did not start in ${timeoutMs} ms: ${stderr}`)), timeoutMs);
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match) { clearTimeout(timer); resolve(match[1]!); }
      });
      child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`instance exited (${code ?? signal}): ${stderr}`)); });
    });
    return { url, pid: child.pid!, stderr: () => stderr, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}
