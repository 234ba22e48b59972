import { ServerResponse } from 'node:http';
import { Hono, type MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

type SecureHeadersOptions = NonNullable<Parameters<typeof secureHeaders>[0]>;

/**
 * hono's secureHeaders, with the same header lines, set the cheap way on @hono/node-server.
 *
 * hono's middleware sets them on the finished Response, which turns @hono/node-server's
 * lightweight response into a WHATWG Headers object: a bare handler answering 5 KB loses a
 * tenth to a quarter of its throughput to it (BENCHMARKS.md). On node-server the lines go
 * straight onto the Node response before the handler runs instead (`writeHead` merges them
 * in); they are learnt once from hono's own middleware, so hono stays the one description of
 * them. Elsewhere (app.request, other runtimes) hono's middleware runs as is. Unlike hono's
 * default `overwrite`, a header a handler sets itself wins over these lines (writeHead's own
 * headers take precedence): routes under this middleware must not set them.
 */
export function secureHeadersOnNode(options: SecureHeadersOptions): MiddlewareHandler {
  const middleware = secureHeaders(options);
  let lines: Promise<Array<[string, string]>> | undefined;
  const learn = (): Promise<Array<[string, string]>> => (lines ??= (async () => {
    const probe = new Hono();
    probe.use('*', middleware);
    probe.get('/', (c) => c.body(null, 204));
    const found: Array<[string, string]> = [];
    (await probe.request('/')).headers.forEach((value, name) => { found.push([name, value]); });
    return found;
  })());
  // Once learnt, read without an await: one microtask less on every request.
  let learnt: Array<[string, string]> | undefined;
  return async (c, next) => {
    const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
    if (!(outgoing instanceof ServerResponse)) return middleware(c, next);
    for (const [name, value] of learnt ?? (learnt = await learn())) outgoing.setHeader(name, value);
    await next();
  };
}
