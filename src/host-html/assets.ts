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
  const cssBytes = toBytes(readFileSync(fileURLToPath(new URL('./static/app.css', import.meta.url))));
  const hash = createHash('sha256').update(cssBytes).digest('hex').slice(0, 10);
  const css: Asset = { path: `/static/app-${hash}/app.css`, body: cssBytes, type: 'text/css; charset=utf-8' };
  return { htmx, sse, css, all: [htmx, sse, css] };
}
