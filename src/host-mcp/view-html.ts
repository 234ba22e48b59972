import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { CLIENT_BUILD_OPTIONS } from '../host-a2ui/client-bundle.ts';

/*
 * Surfacer's MCP App view as the one HTML document a host loads into its sandboxed iframe: the
 * browser code of ./view/ (the ext-apps App and the official A2UI v0.9 Lit renderer) bundled by
 * esbuild and inlined, with its stylesheet, into a `<script type="module">` and a `<style>`. No
 * other request of any kind: the document works under the spec's default CSP for views
 * (`default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline';
 * img-src 'self' data:; media-src 'self' data:; connect-src 'none'`).
 *
 * As the A2UI pages' clients (host-a2ui/client-bundle.ts): `npm run build` writes the finished
 * document beside this module (scripts/build-package.mjs), so an installed package serves it
 * without esbuild; a checkout bundles it on first use. Either way it is made once per process.
 */

/** The view's resource URI (the tools' `_meta.ui.resourceUri`). */
export const MCP_VIEW_URI = 'ui://surfacer/view.html';
/** The MIME type of an MCP App view (ext-apps' RESOURCE_MIME_TYPE). */
export const MCP_VIEW_MIME = RESOURCE_MIME_TYPE;

const ENTRY = fileURLToPath(new URL('./view/main.ts', import.meta.url));
const STYLESHEET = new URL('./view/view.css', import.meta.url);
/** Where `npm run build` writes the finished document; a checkout has none. */
export const PREBUILT_MCP_VIEW = new URL('./view/surfacer-view.html', import.meta.url);

let view: Promise<string> | undefined;

/**
 * The view's HTML: the prebuilt document when the package has one, else bundled with esbuild on
 * first use; kept in memory (a failure is not: the next call tries again). The same sources and
 * lockfile give the same bytes.
 */
export function mcpViewHtml(): Promise<string> {
  view ??= loadView().catch((error: unknown) => {
    view = undefined;
    throw error;
  });
  return view;
}

async function loadView(): Promise<string> {
  const prebuilt = await readFile(PREBUILT_MCP_VIEW, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return prebuilt ?? buildMcpViewHtml();
}

/** Bundles ./view/main.ts (the A2UI clients' esbuild options) and writes the document. */
export async function buildMcpViewHtml(): Promise<string> {
  const [script, css] = await Promise.all([bundleView(), readFile(STYLESHEET, 'utf8')]);
  return mcpViewDocument(script, css);
}

async function bundleView(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({ ...CLIENT_BUILD_OPTIONS, entryPoints: [ENTRY] });
  const output = result.outputFiles?.[0];
  if (output === undefined) throw new Error('esbuild produced no output for the MCP App view');
  return output.text;
}

/**
 * `code` made safe inside a `<script>` element: every `</script` (which would end it early) is
 * written `<\/script`, which a string, template or regular-expression literal or a comment (the
 * only places a bundle has one) reads the same. A `<!--` (DOMPurify's strings have some) is
 * harmless unless the tokenizer then meets `<script` before `-->`: the real `</script>` would
 * not end the element. Refused rather than rewritten (no rewrite of it means the same in every
 * literal).
 */
export function inlineScript(code: string): string {
  const escaped = code.replace(/<\/(script)/gi, '<\\/$1');
  if (scriptDataEndState(escaped) === 'double') {
    throw new Error('the MCP App view\'s bundle has "<!--" then "<script": it cannot be inlined in a <script> element');
  }
  return escaped;
}

/**
 * The state the HTML tokenizer is in after reading `text` as a script element's content
 * (HTML § 13.2.5, script data states): `double` means a `</script>` would not end the element.
 * Assumes no `</script` in `text`.
 */
export function scriptDataEndState(text: string): 'data' | 'escaped' | 'double' {
  let state: 'data' | 'escaped' | 'double' = 'data';
  let dashes = 0;
  const tagAt = (i: number): boolean => /^script[\t\n\f\r />]/i.test(text.slice(i, i + 7));
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (state === 'data') {
      if (text.startsWith('<!--', i)) {
        state = 'escaped';
        dashes = 2;
        i += 3;
      }
      continue;
    }
    if (c === '-') {
      dashes += 1;
      continue;
    }
    if (c === '>' && dashes >= 2) state = 'data';
    else if (c === '<' && state === 'escaped' && tagAt(i + 1)) state = 'double';
    else if (c === '<' && state === 'double' && text[i + 1] === '/' && tagAt(i + 2)) state = 'escaped';
    dashes = 0;
  }
  return state;
}

/** `css` made safe inside a `<style>` element. */
export function inlineStyle(css: string): string {
  if (/<\/style/i.test(css)) throw new Error('the MCP App view\'s stylesheet contains "</style"');
  return css;
}

/** The whole document: markup the view fills in (main.ts), its stylesheet and its script. */
export function mcpViewDocument(script: string, css: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<title>Surfacer</title>',
    `<style>\n${inlineStyle(css).trim()}\n</style>`,
    '</head>',
    '<body>',
    '<main id="sv-app" class="sv" data-state="waiting">',
    '<p id="sv-status" class="sv-status" role="status">Waiting for the assistant…</p>',
    '<div id="sv-notice" class="sv-notice-region" role="status" aria-live="polite"></div>',
    '<section id="sv-surfaces" class="sv-surfaces" aria-label="Surfacer panels"></section>',
    '</main>',
    `<script type="module">\n${inlineScript(script).trim()}\n</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
