import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface Asset {
  /** Versioned URL path: the content never changes under it, so it is cached for a year. */
  path: string;
  body: Uint8Array<ArrayBuffer>;
  type: string;
}

export interface Assets {
  htmx: Asset;
  sse: Asset;
  css: Asset;
  /** The page's own behaviours (Enter sends, scrolling new panels into view); the page works without it. */
  js: Asset;
  all: Asset[];
}

const require = createRequire(import.meta.url);

function packageAsset(pkg: string, file: string, name: string, type: string): Asset {
  const { version } = require(`${pkg}/package.json`) as { version: string };
  return { path: `/static/${pkg.replace(/\W+/g, '-')}-${version}/${name}`, body: toBytes(readFileSync(require.resolve(`${pkg}/${file}`))), type };
}

function toBytes(buffer: Buffer): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(new ArrayBuffer(buffer.byteLength));
  bytes.set(buffer);
  return bytes;
}

/** htmx and its SSE extension from node_modules (no CDN), and our own stylesheet. Read once. */
export function loadAssets(): Assets {
  const htmx = packageAsset('htmx.org', 'dist/htmx.min.js', 'htmx.min.js', 'text/javascript; charset=utf-8');
  const sse = packageAsset('htmx-ext-sse', 'dist/sse.min.js', 'sse.min.js', 'text/javascript; charset=utf-8');
  const css = ownAsset('app.css', 'text/css; charset=utf-8');
  const js = ownAsset('app.js', 'text/javascript; charset=utf-8');
  return { htmx, sse, css, js, all: [htmx, sse, css, js] };
}

/** A file of ./static under a path that names its content (so it is cached for a year). */
function ownAsset(name: string, type: string): Asset {
  const body = toBytes(readFileSync(fileURLToPath(new URL(`./static/${name}`, import.meta.url))));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return { path: `/static/app-${hash}/${name}`, body, type };
}
