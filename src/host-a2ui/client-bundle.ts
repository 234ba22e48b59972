import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface ClientAsset {
  /** Versioned URL path, e.g. `/assets/a2ui-client-<hash>.js`. */
  path: string;
  contents: string;
  /** Strong ETag (quoted content hash). */
  etag: string;
  contentType: string;
}

export interface A2uiClientAssets {
  script: ClientAsset;
  style: ClientAsset;
}

const ENTRY = fileURLToPath(new URL('./client/main.ts', import.meta.url));
const STYLESHEET = new URL('./client/page.css', import.meta.url);
/**
 * Where `npm run build` puts the bundle (scripts/build-package.mjs, same options as below), so an
 * installed package serves it without esbuild or the client's sources; a checkout has none and
 * bundles on first use.
 */
export const PREBUILT_CLIENT = new URL('./client/a2ui-client.js', import.meta.url);

/**
 * The one esbuild configuration, shared by the in-process build and scripts/build-client.mjs.
 * No source map, no metafile, no absolute paths in the output: the same sources and lockfile
 * give the same bytes (and so the same hashed file name) on every machine.
 */
// Not typed as esbuild's BuildOptions: the published .d.ts must not need esbuild (a dev
// dependency); esbuild.build() checks the shape where it is called.
export const CLIENT_BUILD_OPTIONS = {
  entryPoints: [ENTRY],
  bundle: true,
  format: 'esm' as const,
  platform: 'browser' as const,
  target: 'es2022',
  minify: true,
  sourcemap: false,
  legalComments: 'eof' as const,
  charset: 'utf8' as const,
  write: false,
  logLevel: 'silent' as const,
};

let script: Promise<ClientAsset> | undefined;
let style: Promise<ClientAsset> | undefined;

/**
 * Bundles the browser client (official Lit renderer + our wiring) with esbuild on first use and
 * keeps it in memory, so `npm start` on a fresh clone needs no build step. esbuild is loaded
 * only here, and only when the A2UI page is first asked for.
 */
export function buildA2uiClient(): Promise<ClientAsset> {
  script ??= bundleScript().catch((error: unknown) => {
    script = undefined;
    throw error;
  });
  return script;
}

/** The page's own stylesheet (palette variables, layout of the chrome around the surfaces). */
export function loadA2uiClientStyle(): Promise<ClientAsset> {
  style ??= readFile(STYLESHEET, 'utf8').then((css) => asset('css', css, 'text/css; charset=utf-8')).catch((error: unknown) => {
    style = undefined;
    throw error;
  });
  return style;
}

export async function a2uiClientAssets(): Promise<A2uiClientAssets> {
  const [s, c] = await Promise.all([buildA2uiClient(), loadA2uiClientStyle()]);
  return { script: s, style: c };
}

async function bundleScript(): Promise<ClientAsset> {
  const prebuilt = await readFile(PREBUILT_CLIENT, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (prebuilt !== undefined) return asset('js', prebuilt, 'text/javascript; charset=utf-8');
  const esbuild = await import('esbuild');
  const result = await esbuild.build({ ...CLIENT_BUILD_OPTIONS });
  const output = result.outputFiles?.[0];
  if (output === undefined) throw new Error('esbuild produced no output for the A2UI client');
  return asset('js', output.text, 'text/javascript; charset=utf-8');
}

function asset(ext: 'js' | 'css', contents: string, contentType: string): ClientAsset {
  const hash = createHash('sha256').update(contents).digest('hex').slice(0, 16);
  return { path: `/assets/a2ui-client-${hash}.${ext}`, contents, etag: `"${hash}"`, contentType };
}
