import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { A2uiVersion } from '../compiler/index.ts';

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

/**
 * Two pages, two bundles: the official Lit renderer of v0.8 and that of v0.9 both define
 * `<a2ui-surface>` (and other element names), so they can never share a page. The v0.9 page
 * serves v0.9 and v0.9.1 (the version it speaks is a data attribute of the page).
 */
type Bundle = 'v0_8' | 'v0_9';
/**
 * `prebuilt`: where `npm run build` puts the bundle (scripts/build-package.mjs, same options as
 * below), so an installed package serves it without esbuild or the client's sources; a checkout
 * has none and bundles on first use.
 */
const BUNDLES: Readonly<Record<Bundle, { entry: string; prefix: string; prebuilt: URL }>> = {
  v0_8: {
    entry: fileURLToPath(new URL('./client/main.ts', import.meta.url)), prefix: 'a2ui-client-',
    prebuilt: new URL('./client/a2ui-client.js', import.meta.url),
  },
  v0_9: {
    entry: fileURLToPath(new URL('./client/v0_9/main.ts', import.meta.url)), prefix: 'a2ui-client-v09-',
    prebuilt: new URL('./client/a2ui-client-v09.js', import.meta.url),
  },
};
const bundleOf = (version: A2uiVersion): Bundle => (version === '0.8' ? 'v0_8' : 'v0_9');
const STYLESHEET = new URL('./client/page.css', import.meta.url);
/** Where `npm run build` writes each page's prebuilt client, by the wire versions it serves. */
export const PREBUILT_CLIENTS: ReadonlyArray<{ version: A2uiVersion; file: URL }> = [
  { version: '0.8', file: BUNDLES.v0_8.prebuilt },
  { version: '0.9', file: BUNDLES.v0_9.prebuilt },
];

/** The wire version whose page an asset file name (`a2ui-client-[v09-]<hash>.js|css`) belongs to. */
export function clientBundleOfAsset(file: string): A2uiVersion {
  return file.startsWith(BUNDLES.v0_9.prefix) ? '0.9' : '0.8';
}

/**
 * The one esbuild configuration, shared by the in-process build and scripts/build-client.mjs.
 * No source map, no metafile, no absolute paths in the output: the same sources and lockfile
 * give the same bytes (and so the same hashed file name) on every machine.
 */
// Not typed as esbuild's BuildOptions: the published .d.ts must not need esbuild (a dev
// dependency); esbuild.build() checks the shape where it is called.
export const CLIENT_BUILD_OPTIONS = {
  entryPoints: [BUNDLES.v0_8.entry],
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

const scripts = new Map<Bundle, Promise<ClientAsset>>();
let style: Promise<ClientAsset> | undefined;

/**
 * Bundles the browser client of a wire version's page (official Lit renderer + our wiring) with
 * esbuild on first use and keeps it in memory, so `npm start` on a fresh clone needs no build
 * step. esbuild is loaded only here, and only when such a page is first asked for.
 */
export function buildA2uiClient(version: A2uiVersion = '0.8'): Promise<ClientAsset> {
  const bundle = bundleOf(version);
  let script = scripts.get(bundle);
  if (script === undefined) {
    script = bundleScript(bundle).catch((error: unknown) => {
      scripts.delete(bundle);
      throw error;
    });
    scripts.set(bundle, script);
  }
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

export async function a2uiClientAssets(version: A2uiVersion = '0.8'): Promise<A2uiClientAssets> {
  const [s, c] = await Promise.all([buildA2uiClient(version), loadA2uiClientStyle()]);
  return { script: s, style: c };
}

async function bundleScript(bundle: Bundle): Promise<ClientAsset> {
  const prebuilt = await readFile(BUNDLES[bundle].prebuilt, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (prebuilt !== undefined) return asset('js', prebuilt, 'text/javascript; charset=utf-8', BUNDLES[bundle].prefix);
  const esbuild = await import('esbuild');
  const result = await esbuild.build({ ...CLIENT_BUILD_OPTIONS, entryPoints: [BUNDLES[bundle].entry] });
  const output = result.outputFiles?.[0];
  if (output === undefined) throw new Error(`esbuild produced no output for the A2UI client (${bundle})`);
  return asset('js', output.text, 'text/javascript; charset=utf-8', BUNDLES[bundle].prefix);
}

function asset(ext: 'js' | 'css', contents: string, contentType: string, prefix = BUNDLES.v0_8.prefix): ClientAsset {
  const hash = createHash('sha256').update(contents).digest('hex').slice(0, 16);
  return { path: `/assets/${prefix}${hash}.${ext}`, contents, etag: `"${hash}"`, contentType };
}
