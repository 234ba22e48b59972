import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * The fault suite's processes (instances, the prober) and how the test talks to them: forked
 * with tsx, one JSON argument, then questions and answers over the IPC channel. A child says
 * `{ ready }` once it serves and may send `{ event }` at any time.
 */
type Message = { ready: unknown } | { event: unknown } | { id: number; result: unknown } | { id: number; error: string };

export interface Child {
  ask<T>(question: { op: string }): Promise<T>;
  /** Unsolicited messages (`{ event }`), in order. */
  onEvent(listener: (event: unknown) => void): void;
  /** Asks `{ op: 'close' }` (the child answers, then leaves) and waits for it to exit. */
  close(): Promise<void>;
  kill(): Promise<void>;
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const live = new Set<ChildProcess>();
// A test worker that dies must not leave processes behind.
process.once('exit', () => { for (const child of live) child.kill('SIGKILL'); });

/** Forks `entry` (a .ts module) with `arg`; resolves with what it said when ready. */
export async function forkChild(entry: URL, arg: unknown, timeoutMs = 30_000): Promise<{ child: Child; ready: unknown }> {
  const proc = fork(fileURLToPath(entry), [JSON.stringify(arg)], { cwd: REPO, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  live.add(proc);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => { live.delete(proc); resolve(); }));
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const listeners: Array<(event: unknown) => void> = [];
  let next = 0;
  let onReady: (value: unknown) => void = () => {};
  proc.on('message', (message: Message) => {
    if ('ready' in message) return onReady(message.ready);
    if ('event' in message) return listeners.forEach((listener) => listener(message.event));
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if ('error' in message) waiter?.reject(new Error(message.error));
    else waiter?.resolve(message.result);
  });
  void exited.then(() => { for (const waiter of pending.values()) waiter.reject(new Error(`${entry.pathname} exited`)); });
  const kill = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  };
  const child: Child = {
    ask: <T>(question: { op: string }) => new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      proc.send({ ...question, id });
    }),
    onEvent: (listener) => { listeners.push(listener); },
    async close() {
      if (proc.connected) await child.ask({ op: 'close' }).catch(() => {});
      await exited;
    },
    kill,
  };
  try {
    const ready = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${entry.pathname} not ready in ${timeoutMs} ms`)), timeoutMs);
      onReady = (value) => { clearTimeout(timer); resolve(value); };
      void exited.then(() => { clearTimeout(timer); reject(new Error(`${entry.pathname} exited before it was ready`)); });
    });
    return { child, ready };
  } catch (error) {
    await kill();
    throw error;
  }
}

/** In the child: answers the parent's questions with `answer`, says `ready`; `{ op: 'close' }` is answered, then the child leaves. */
export function serveParent<Q extends { op: string }>(answer: (question: Q) => Promise<unknown>, ready: unknown): void {
  process.on('message', (request: Q & { id: number }) => {
    void answer(request).then(
      (result) => { process.send!({ id: request.id, result }); if (request.op === 'close') process.disconnect(); },
      (error: unknown) => { process.send!({ id: request.id, error: String(error) }); },
    );
  });
  // The suite's process is gone (a worker that died, or the close): nothing stays behind.
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready });
}
