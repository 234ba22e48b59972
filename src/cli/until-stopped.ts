import type { Readable } from 'node:stream';

/**
 * Until the process is told to stop (SIGINT, SIGTERM, or `stop` aborting: how tests stop a
 * command in process) or, when given, `input` ends (an MCP host closing our standard input).
 * Every listener is removed once it resolves, so commands run one after another in one process
 * leave none behind.
 */
export function untilStopped(stop?: AbortSignal, input?: Readable): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      input?.off('end', done);
      input?.off('close', done);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    input?.once('end', done);
    input?.once('close', done);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    stop?.addEventListener('abort', done, { once: true });
    if (stop?.aborted || input?.readableEnded) done();
  });
}
