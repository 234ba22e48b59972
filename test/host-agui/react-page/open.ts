import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { ServeHandle } from '../../../src/cli/commands/serve.ts';
import type { SurfacerOptions } from '../../../src/server/index.ts';
import type { E2eServer } from '../../e2e/support/stack.ts';
import { HttpClient } from '../../support/http-client.ts';
import { startAgui } from '../support.ts';
import { TABLE_CSS } from '../../../examples/clients/react-a2ui-table.ts';

/*
 * The React page of the AG-UI browser tests (react-page/main.ts: the official @a2ui/react v0.9
 * renderer fed by the official HttpAgent), served into a Chromium page by route.
 */

let bundled: Promise<{ js: string; css: string }> | undefined;

/** The React page, bundled like the A2UI pages' clients (esbuild, ESM, for browsers). */
async function bundle(): Promise<{ js: string; css: string }> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, write: false, outdir: '/tmp/agui-react-page',
    define: { 'process.env.NODE_ENV': '"production"' }, logLevel: 'silent',
  });
  const out = (ext: string): string => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: out('.js'), css: out('.css') };
}

// @a2ui/react ships its CSS modules empty: the page styles the basic catalogue itself.
const PAGE_CSS = `
  body { font: 15px/1.4 system-ui, sans-serif; margin: 24px; color: #1c1c1c; }
  .surface { border: 1px solid #ccc; border-radius: 8px; padding: 16px; max-width: 640px; margin-bottom: 16px; }
  label { display: block; font-weight: 600; margin: 8px 0 4px; }
  input, textarea { width: 100%; box-sizing: border-box; padding: 6px 8px; border: 1px solid #999; border-radius: 4px; font: inherit; }
  textarea { min-height: 64px; }
  input[type="radio"], input[type="checkbox"] { width: auto; margin: 0 6px 0 0; }
  button { margin-top: 12px; padding: 6px 14px; border-radius: 4px; border: 1px solid #245; background: #2b5d9b; color: white; font: inherit; cursor: pointer; }
  button:disabled { opacity: .5; cursor: not-allowed; }
  h1, h2, h3, h4 { margin: 4px 0 8px; }
`;

/** Serves the page under `${url}/agui-react/` and opens it with `query` (token, thread, say, catalog). */
export async function openReactPage(react: Page, url: string, query: Record<string, string>): Promise<void> {
  const page = await (bundled ??= bundle());
  await react.route(`${url}/agui-react/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path.endsWith('/app.js')) return route.fulfill({ contentType: 'text/javascript', body: page.js });
    return route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html><head><meta charset="utf-8"><title>AG-UI + @a2ui/react</title><style>${PAGE_CSS}${TABLE_CSS}${page.css}</style></head>`
        + '<body><div id="root"></div><script type="module" src="/agui-react/app.js"></script></body></html>',
    });
  });
  await react.goto(`${url}/agui-react/index.html?${new URLSearchParams(query)}`);
}

/**
 * The AG-UI server the React page talks to: its bearer token is mapped to a browser session's
 * owner (`owners`: token → owner) by a library `authenticate`, as an app that signs its own users
 * in would do, so the page and the htmx page share that session's conversations.
 */
export async function startReactStack(owners: ReadonlyMap<string, string>, options: Partial<SurfacerOptions> = {}): Promise<E2eServer> {
  const stack = await startAgui({
    ...options,
    authenticate: (request) => {
      const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      const owner = token === undefined ? undefined : owners.get(token);
      return owner === undefined ? undefined : { id: 'react-page', owner };
    },
  });
  return {
    url: stack.url, errors: stack.errors, client: () => new HttpClient(stack.url), close: stack.close,
    handle: { conversations: stack.surfacer.conversations } as unknown as ServeHandle,
  };
}
