import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ComponentRegistry } from '../app-kit/component.ts';

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
  /** The app's component stylesheets (ComponentDefinition.css) as one file; none when no component has any. */
  components?: Asset;
  /** The app's theme (AppDefinition.theme) as custom properties, linked last; none without a theme. */
  theme?: Asset;
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

/**
 * htmx and its SSE extension from node_modules (no CDN), our own stylesheet and script, and the
 * app's component stylesheets (`components`) and its theme stylesheet (`themeCss`). Read once.
 */
export function loadAssets(components?: ComponentRegistry, themeCss?: string): Assets {
  const htmx = packageAsset('htmx.org', 'dist/htmx.min.js', 'htmx.min.js', 'text/javascript; charset=utf-8');
  const sse = packageAsset('htmx-ext-sse', 'dist/sse.min.js', 'sse.min.js', 'text/javascript; charset=utf-8');
  const css = ownAsset('app.css', 'text/css; charset=utf-8');
  const js = ownAsset('app.js', 'text/javascript; charset=utf-8');
  const styles = componentStylesheet(components);
  // Same reasoning as the component stylesheet: our origin, a URL that names its content.
  const theme = themeCss === undefined ? undefined : hashedAsset('theme', 'theme.css', toBytes(Buffer.from(themeCss, 'utf8')), 'text/css; charset=utf-8');
  return {
    htmx, sse, css, js, ...(styles ? { components: styles } : {}), ...(theme ? { theme } : {}),
    all: [htmx, sse, css, js, ...(styles ? [styles] : []), ...(theme ? [theme] : [])],
  };
}

/** A file of ./static under a path that names its content (so it is cached for a year). */
function ownAsset(name: string, type: string): Asset {
  return hashedAsset('app', name, toBytes(readFileSync(fileURLToPath(new URL(`./static/${name}`, import.meta.url)))), type);
}

function hashedAsset(prefix: string, name: string, body: Uint8Array<ArrayBuffer>, type: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return { path: `/static/${prefix}-${hash}/${name}`, body, type };
}

/**
 * Every component's `css`, in the registry's order, as one stylesheet linked from the page: a
 * file of our own origin, so the CSP's style-src 'self' admits it with no inline style and no
 * hash to keep in step. Its URL names its content, so a changed stylesheet is a new URL and the
 * old one may be cached for a year. defineComponent checked each (scoped to its class).
 */
function componentStylesheet(components: ComponentRegistry | undefined): Asset | undefined {
  const parts = (components?.list() ?? []).filter((c) => c.css !== undefined && c.css.trim() !== '')
    .map((c) => `/* ${c.name} */\n${c.css!.trim()}\n`);
  if (parts.length === 0) return undefined;
  return hashedAsset('components', 'components.css', toBytes(Buffer.from(parts.join('\n'), 'utf8')), 'text/css; charset=utf-8');
}
