import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/*
 * The two origins of the test's host, as examples/basic-host serves them (serve.ts there): the
 * host page on one, the sandbox proxy on another (the spec: "The Host and the Sandbox MUST have
 * different origins"), its document served with the view's CSP as a real
 * Content-Security-Policy header. The view itself is never fetched: the host sends its HTML to the
 * proxy, which loads it as the srcdoc of its inner iframe, and a srcdoc document inherits the
 * policy of the document that embeds it.
 */

/**
 * The CSP the spec requires of a host for a view whose resource declares no `ui.csp`
 * (specification/2026-01-26/apps.mdx, "UI Resource Format" → "Host Behavior" → "Restrictive
 * Default"), followed by what its "Sandbox proxy" section requires of the sandbox without
 * `frameDomains`/`baseUriDomains`: `frame-src 'none'`, `base-uri 'self'`, `object-src 'none'`.
 */
export const SPEC_DEFAULT_VIEW_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'none'",
].join('; ');
export const VIEW_CSP = [SPEC_DEFAULT_VIEW_CSP, "frame-src 'none'", "object-src 'none'", "base-uri 'self'"].join('; ');

/**
 * The view's CSP for a resource whose `_meta.ui.csp` declares `connectDomains`, as a host that
 * honours them builds it (the spec: they map to `connect-src`): VIEW_CSP with those origins
 * where it has `connect-src 'none'`.
 */
export function viewCsp(connectDomains: readonly string[] = []): string {
  return connectDomains.length === 0 ? VIEW_CSP : VIEW_CSP.replace("connect-src 'none'", `connect-src ${connectDomains.join(' ')}`);
}

/**
 * The `_meta.ui.csp` a host page passed in the sandbox proxy's URL (`?csp=<JSON>`, as
 * examples/basic-host passes it): its `connectDomains`, each an http(s) origin, else none.
 */
function connectDomainsOf(query: URLSearchParams): string[] {
  const text = query.get('csp');
  if (text === null) return [];
  let csp: { connectDomains?: unknown };
  try {
    csp = JSON.parse(text) as { connectDomains?: unknown };
  } catch {
    return [];
  }
  const domains = Array.isArray(csp.connectDomains) ? csp.connectDomains : [];
  return domains.filter((d): d is string => typeof d === 'string' && /^https?:\/\/[^\s;,'"]+$/.test(d) && new URL(d).origin === d);
}

const HOST_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP Apps host (test)</title>
<style>
  :root { color-scheme: light; --bg: #f3f4f6; --bubble: #ffffff; --text: #1f2328; --muted: #6b7280; --line: #e5e7eb; --you: #e3e9f8; }
  :root[data-theme="dark"] { color-scheme: dark; --bg: #1e1f22; --bubble: #26282c; --text: #e9ebee; --muted: #9aa1ab; --line: #2d3035; --you: #273352; }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.5 system-ui, "DejaVu Sans", sans-serif; }
  .chat { max-width: 760px; margin: 0 auto; padding: 16px; display: flex; flex-direction: column; gap: 12px; }
  .you { align-self: flex-end; max-width: 80%; padding: 8px 12px; border-radius: 14px; background: var(--you); }
  .assistant { display: flex; flex-direction: column; gap: 6px; }
  .assistant p { margin: 0; }
  .tool { font-size: 12px; color: var(--muted); }
  #view { display: block; width: 100%; height: 60px; border: 0; }
  .composer { margin-top: 4px; padding: 10px 12px; border: 1px solid var(--line); border-radius: 12px; background: var(--bubble); color: var(--muted); }
</style>
</head>
<body>
<main class="chat">
  <div class="you">create a character card</div>
  <div class="assistant">
    <p>Here is a character card to fill in.</p>
    <div class="tool">Surfacer · surfacer_say</div>
    <iframe id="view" title="Surfacer"></iframe>
  </div>
  <div class="composer">Reply…</div>
</main>
<script type="module" src="/host.js"></script>
</body>
</html>
`;

const SANDBOX_PAGE = `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<style>html, body { margin: 0; height: 100%; overflow: hidden; } iframe { display: block; width: 100%; height: 100%; border: 0; }</style>
</head>
<body>
<script src="/sandbox.js"></script>
</body>
</html>
`;

export interface ViewHosts {
  /** The host page's URL (http://127.0.0.1:<port>). */
  hostUrl: string;
  hostOrigin: string;
  /** The sandbox proxy's document, on its own origin. */
  sandboxUrl: string;
  /** Every path each server was asked for, in order (host:port/path). */
  requests: string[];
  close(): Promise<void>;
}

async function bundle(entry: string): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, write: false, logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** This test's host page and the sandbox proxy. */
export function startViewHosts(): Promise<ViewHosts> {
  return startHosts({ page: HOST_PAGE, script: fileURLToPath(new URL('./host-page.ts', import.meta.url)) });
}

/**
 * A host on two origins: `page` (whose script is `/host.js`, bundled from `script`, a path) on
 * one, the sandbox proxy on the other, its document and script served with VIEW_CSP (the
 * document: viewCsp of the domains its URL names, if any).
 */
export async function startHosts(host: { page: string; script: string }): Promise<ViewHosts> {
  const [hostJs, sandboxJs] = await Promise.all([bundle(host.script), bundle(fileURLToPath(new URL('./sandbox-proxy.ts', import.meta.url)))]);
  const requests: string[] = [];
  const serve = (routes: Record<string, { type: string; body: string; csp?: (query: URLSearchParams) => string }>) => createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    requests.push(`${req.headers.host ?? ''}${path}`);
    const route = routes[path];
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': route.type,
      'Cache-Control': 'no-store',
      ...(route.csp === undefined ? {} : { 'Content-Security-Policy': route.csp(url.searchParams) }),
    });
    res.end(route.body);
  });
  const pageServer = serve({
    '/': { type: 'text/html; charset=utf-8', body: host.page },
    '/host.js': { type: 'text/javascript; charset=utf-8', body: hostJs },
  });
  const sandbox = serve({
    // The resource's declared domains, if the host page passed them: the view's CSP (the inner srcdoc inherits it).
    '/sandbox.html': { type: 'text/html; charset=utf-8', body: SANDBOX_PAGE, csp: (query) => viewCsp(connectDomainsOf(query)) },
    '/sandbox.js': { type: 'text/javascript; charset=utf-8', body: sandboxJs, csp: () => VIEW_CSP },
  });
  const [hostUrl, sandboxOrigin] = await Promise.all([listen(pageServer), listen(sandbox)]);
  const close = (server: Server) => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return {
    hostUrl, hostOrigin: new URL(hostUrl).origin, sandboxUrl: `${sandboxOrigin}/sandbox.html`, requests,
    close: async () => { await Promise.all([close(pageServer), close(sandbox)]); },
  };
}
