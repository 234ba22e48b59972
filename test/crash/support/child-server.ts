import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../../bin/surfacer.mjs', import.meta.url));
const READY = /Surfacer listening on (http:\/\/\S+)/;
const READY_TIMEOUT_MS = 30_000;

/** One start of the real server process: `node bin/surfacer.mjs serve`, what `npm start` runs. */
export interface ChildServer {
  readonly url: string;
  /** From spawn to the "listening" line (tsx start-up included). */
  readonly startupMs: number;
  /** What the server wrote to stderr (its logger's JSON lines). */
  stderr(): string;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful shutdown); resolves with the exit code. */
  terminate(): Promise<number | null>;
}

/** A port nothing listens on now; the server is restarted on it, as users restart theirs. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** `node bin/surfacer.mjs replay LOG`, the command users run. */
export function replayCli(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'replay', file], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += String(chunk); });
    child.stderr.on('data', (chunk) => { stderr += String(chunk); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function startChildServer(options: { port: number; dataDir: string; env: Record<string, string> }): Promise<ChildServer> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(options.port), '--data', options.dataDir, '--planner', 'offline'], {
    cwd: REPO, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => { stderr += String(chunk); });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: unknown): void => {
      stdout += String(chunk);
      const match = READY.exec(stdout);
      if (match) {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${stderr}`));
    };
    // A server that never comes up is killed: the exit above then rejects.
    const timer = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
  const startupMs = performance.now() - started;
  child.stdout!.resume();
  return {
    url,
    startupMs,
    stderr: () => stderr,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async terminate() {
      child.kill('SIGTERM');
      return exited(child);
    },
  };
}

/**
 * Restarts on `port`, as users restart their server; if another process took the port while the
 * server was down (another test's listen(0) may get it), on a fresh one.
 */
export async function restartChildServer(options: { port: number; dataDir: string; env: Record<string, string> }): Promise<ChildServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startChildServer(options);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
      options = { ...options, port: await freePort() };
    }
  }
}
