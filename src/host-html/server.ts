import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { HostApp } from './app.ts';

export interface RunningServer {
  port: number;
  url: string;
  server: Server;
  /** Graceful: SSE streams told to finish, idle sockets closed, the rest cut after `deadlineMs`. */
  close(deadlineMs?: number): Promise<void>;
}

/**
 * The address could not be listened on, in words a person can act on (the port is taken, needs
 * privileges, or the host is not this machine's); `code` is Node's (EADDRINUSE, EACCES, …).
 */
export class ListenError extends Error {
  override name = 'ListenError';
  constructor(message: string, readonly code: string, readonly address: string, options?: ErrorOptions) {
    super(message, options);
  }
}

function listenError(error: NodeJS.ErrnoException, hostname: string, port: number): Error {
  const address = `${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new ListenError(`${address} is already in use (another Surfacer, or another program, listens there)`, error.code, address, { cause: error });
    case 'EACCES':
      return new ListenError(`${address} needs privileges this process does not have (ports below 1024 usually do)`, error.code, address, { cause: error });
    case 'EADDRNOTAVAIL':
      return new ListenError(`${hostname} is not an address of this machine`, error.code, address, { cause: error });
    default:
      return error;
  }
}

/** Longer than the idle timeout of common clients and load balancers (see startServer). */
export const KEEP_ALIVE_MS = 65_000;

export function startServer(app: Pick<HostApp, 'fetch' | 'closeStreams'>, options: { port?: number; hostname?: string } = {}): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port ?? 0, hostname }) as Server;
    // An idle keep-alive socket is closed by whichever side times out first. If that is the
    // server while a client (or a load balancer, commonly 60 s) sends its next request on it,
    // the request dies with ECONNRESET, and a POST is not retried. Node's 5 s default loses that
    // race against undici's 4 s as soon as the event loop lags; outlasting the usual idle
    // timeouts makes the client side close first.
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.headersTimeout = KEEP_ALIVE_MS + 1_000;
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, hostname, options.port ?? 0)));
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      let closing: Promise<void> | undefined;
      resolve({
        port, server,
        url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`,
        close(deadlineMs = 5000) {
          closing ??= new Promise<void>((done) => {
            // server.close() waits for every open connection: end SSE streams first, then
            // idle keep-alive sockets, and cut whatever is left (a socket that never sent a
            // request, a stuck client) after the deadline.
            app.closeStreams();
            const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
            // Streams end asynchronously and leave keep-alive sockets idle: sweep until closed.
            const sweep = setInterval(() => server.closeIdleConnections(), 25);
            server.close(() => { clearTimeout(timer); clearInterval(sweep); done(); });
            server.closeIdleConnections();
          });
          return closing;
        },
      });
    });
  });
}
