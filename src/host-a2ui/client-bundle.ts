import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
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
  /**
   * The script defines the app's own elements (the page may advertise the app catalogue). False
   * for an app without any, and when they could not be bundled (an installed package has no
   * esbuild, or the bundle failed): the page then shows the components' fallbacks.
   */
  appComponents?: boolean;
}

/**
 * An app's own elements, bundled into its pages' clients (ComponentDefinition.element): the
 * component's name, its element's tag, and the module defining it — a `file:` URL (as
 * `new URL('./x.ts', import.meta.url).href` gives), an absolute path, or a path relative to the
 * working directory.
 */
export interface AppElements {
  /** The app catalogue's id. */
  readonly catalogId: string;
  readonly elements: ReadonlyArray<{ readonly component: string; readonly tag: string; readonly module: string }>;
}

/** The shape of an app the bundler reads (AppDefinition's `components` and `catalog`). */
export interface AppWithElements {
  readonly components?: { list(): ReadonlyArray<{ readonly name: string; readonly element?: { readonly tag: string; readonly module: string } }> } | undefined;
  readonly catalog?: { readonly id: string } | undefined;
}

/**
 * The elements of `app`'s components; undefined when it has none, no catalogue id, or a
 * component without an element (its pages could not render the app catalogue whole: they ask for
 * the basic one and show the fallbacks).
 */
export function appElementsOf(app: AppWithElements): AppElements | undefined {
  const catalogId = app.catalog?.id;
  const components = app.components?.list() ?? [];
  if (catalogId === undefined || components.length === 0 || components.some((c) => c.element === undefined)) return undefined;
  return { catalogId, elements: components.map((c) => ({ component: c.name, tag: c.element!.tag, module: c.element!.module })) };
}

/** A module reference of AppElements as a file path. */
export function elementModulePath(module: string): string {
  if (module.startsWith('file:')) return fileURLToPath(module);
  return isAbsolute(module) ? module : resolve(module);
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
const BUNDLES: Readonly<Record<Bundle, { entry: string; page: string; start: string; prefix: string; prebuilt: URL }>> = {
  v0_8: {
    entry: fileURLToPath(new URL('./client/main.ts', import.meta.url)), prefix: 'a2ui-client-',
    page: fileURLToPath(new URL('./client/page-v08.ts', import.meta.url)), start: 'startV08Page',
    prebuilt: new URL('./client/a2ui-client.js', import.meta.url),
  },
  v0_9: {
    entry: fileURLToPath(new URL('./client/v0_9/main.ts', import.meta.url)), prefix: 'a2ui-client-v09-',
    page: fileURLToPath(new URL('./client/v0_9/page.ts', import.meta.url)), start: 'startV09Page',
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

const scripts = new Map<string, Promise<ClientAsset | undefined>>();
let style: Promise<ClientAsset> | undefined;

/**
 * Bundles the browser client of a wire version's page (official Lit renderer + our wiring) with
 * esbuild on first use and keeps it in memory, so `npm start` on a fresh clone needs no build
 * step. esbuild is loaded only here, and only when such a page is first asked for.
 */
export async function buildA2uiClient(version: A2uiVersion = '0.8'): Promise<ClientAsset> {
  return (await cachedScript(bundleOf(version), undefined))!;
}

/** What a caller hears of an app client that cannot be bundled. */
export interface AppClientOptions {
  /**
   * Told once per app and page version when its client cannot be bundled (an element module
   * that does not resolve or compile, an unreadable prebuilt file); the pages then use the plain
   * client and the basic catalogue, and the failure is remembered (never bundled again).
   */
  onBundleError?: (error: unknown) => void;
}

/**
 * The client of a wire version's page for an app with elements of its own: the page's code, the
 * app's element modules, then the page started with the app's components. Undefined when it
 * cannot be bundled here (no esbuild: an installed package; or the bundle fails); the plain
 * client serves then.
 */
export async function buildA2uiAppClient(version: A2uiVersion, app: AppElements, options: AppClientOptions = {}): Promise<ClientAsset | undefined> {
  return cachedScript(bundleOf(version), app, options);
}

function cachedScript(bundle: Bundle, app: AppElements | undefined, options: AppClientOptions = {}): Promise<ClientAsset | undefined> {
  const key = app === undefined ? bundle : `${bundle}\n${JSON.stringify(app)}`;
  let script = scripts.get(key);
  if (script === undefined) {
    script = app === undefined
      ? bundleScript(bundle).catch((error: unknown) => {
        // The plain client has no fallback: the next request tries again.
        scripts.delete(key);
        throw error;
      })
      // An app's client falls back to the plain one, and its failure stays cached: the asset
      // route is unauthenticated, so a request must never start another esbuild run.
      : bundleAppScript(bundle, app).catch((error: unknown) => {
        options.onBundleError?.(error);
        return undefined;
      });
    scripts.set(key, script);
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

/** The page's script and stylesheet; with `app`, the script holds the app's elements when it can. */
export async function a2uiClientAssets(version: A2uiVersion = '0.8', app?: AppElements, options: AppClientOptions = {}): Promise<A2uiClientAssets> {
  const [own, c] = await Promise.all([app === undefined ? undefined : buildA2uiAppClient(version, app, options), loadA2uiClientStyle()]);
  if (own !== undefined) return { script: own, style: c, appComponents: true };
  return { script: await buildA2uiClient(version), style: c, appComponents: false };
}

/** The generated entry of an app's bundle (JSON literals: no name or path is ever spliced as code). */
export function appClientEntry(bundle: Bundle, app: AppElements): string {
  const { page, start } = BUNDLES[bundle];
  const spec = { catalogId: app.catalogId, components: app.elements.map((e) => ({ name: e.component, tag: e.tag })) };
  return [
    `import { ${start} } from ${JSON.stringify(page)};`,
    ...app.elements.map((e) => `import ${JSON.stringify(elementModulePath(e.module))};`),
    `${start}(${JSON.stringify(spec)});`,
    '',
  ].join('\n');
}

/**
 * Where `npm run build` puts the prebuilt client of an app's page (the demo's: what an installed
 * package serves without esbuild), named by the app's catalogue id and components — not by the
 * modules' paths, which differ between machines.
 */
export function prebuiltAppClient(version: A2uiVersion, app: AppElements): URL {
  const bundle = bundleOf(version);
  const key = createHash('sha256')
    .update(JSON.stringify([bundle, app.catalogId, app.elements.map((e) => [e.component, e.tag])]))
    .digest('hex').slice(0, 16);
  return new URL(`./client/a2ui-client-app-${key}.js`, import.meta.url);
}

async function bundleAppScript(bundle: Bundle, app: AppElements): Promise<ClientAsset | undefined> {
  const prebuilt = await readFile(prebuiltAppClient(bundle === 'v0_8' ? '0.8' : '0.9', app), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (prebuilt !== undefined) return asset('js', prebuilt, 'text/javascript; charset=utf-8', BUNDLES[bundle].prefix);
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const result = await esbuild.build({
    ...CLIENT_BUILD_OPTIONS,
    entryPoints: undefined,
    stdin: { contents: appClientEntry(bundle, app), resolveDir: dirname(BUNDLES[bundle].page), sourcefile: 'app-client.ts', loader: 'ts' },
  });
  const output = result.outputFiles?.[0];
  if (output === undefined) throw new Error(`esbuild produced no output for the app's A2UI client (${bundle})`);
  return asset('js', output.text, 'text/javascript; charset=utf-8', BUNDLES[bundle].prefix);
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

/** The app's theme stylesheet (hosting/theme-css.ts) as the renderer pages link it. */
export const THEME_ASSET_PREFIX = 'a2ui-theme-';
export function a2uiThemeAsset(css: string): ClientAsset {
  return asset('css', css, 'text/css; charset=utf-8', THEME_ASSET_PREFIX);
}

function asset(ext: 'js' | 'css', contents: string, contentType: string, prefix = BUNDLES.v0_8.prefix): ClientAsset {
  const hash = createHash('sha256').update(contents).digest('hex').slice(0, 16);
  return { path: `/assets/${prefix}${hash}.${ext}`, contents, etag: `"${hash}"`, contentType };
}
