import { BASIC_CATALOG_ID, BASIC_CATALOG_IDS } from '../a2ui-v0_9-protocol/index.ts';
import { STANDARD_CATALOG_ID, type A2uiVersion } from '../compiler/index.ts';
import { advertisedInCapabilities, basicCatalogIdOf, chooseCatalog, mergeAdvertised, NOTHING_ADVERTISED, type AppCatalogOffer, type CatalogChoice } from '../hosting/index.ts';

/*
 * The A2UI extension for A2A (google/A2UI specification/v0_8, v0_9, v0_9_1
 * docs/a2ui_extension_specification.md): its URIs, MIME types and catalogues per version, and
 * how a client's message chooses the wire version of that turn's answer. Pure functions.
 */

export const A2UI_EXTENSION_BASE = 'https://a2ui.org/a2a-extension/a2ui';

/** The versions this agent serves, newest first (the order a choice prefers). */
export const SERVED_VERSIONS: readonly A2uiVersion[] = ['0.9.1', '0.9', '0.8'];

export const A2UI_EXTENSION_URIS: Readonly<Record<A2uiVersion, string>> = {
  '0.8': `${A2UI_EXTENSION_BASE}/v0.8`,
  '0.9': `${A2UI_EXTENSION_BASE}/v0.9`,
  '0.9.1': `${A2UI_EXTENSION_BASE}/v0.9.1`,
};

/** v0.9.1 renamed the MIME type; clients of earlier versions look for the old one. */
export const A2UI_MIME = 'application/a2ui+json';
export const A2UI_MIME_LEGACY = 'application/json+a2ui';

export function mimeTypeOf(version: A2uiVersion): string {
  return version === '0.9.1' ? A2UI_MIME : A2UI_MIME_LEGACY;
}

/** The one catalogue each wire version is compiled against. */
export const CATALOG_IDS: Readonly<Record<A2uiVersion, string>> = {
  '0.8': STANDARD_CATALOG_ID,
  '0.9': BASIC_CATALOG_ID,
  '0.9.1': BASIC_CATALOG_ID,
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The capabilities objects of a message's metadata (`a2uiClientCapabilities`; v1.0 renderers `a2uiRendererCapabilities`). */
function capabilitiesOf(metadata: unknown): Record<string, unknown>[] {
  if (!isObject(metadata)) return [];
  return [metadata.a2uiClientCapabilities, metadata.a2uiRendererCapabilities].filter(isObject);
}

/**
 * The wire version of one turn's answer, or undefined for a text-only answer. Capabilities come
 * from the message's metadata and apply to that message only; without any, the newest version
 * the client activated is answered with its basic catalogue (none activated: text only); a version counts when they list
 * its catalogue, or the app's catalogue (which holds the basic components: a client that names
 * only it renders everything we send). Among those, the newest the client activated
 * (`A2A-Extensions` header or the message's `extensions`) wins; when it activated none of them,
 * the newest it supports (v0.9 before v0.9.1 unless it names v0.9.1, since v0.9 is what released
 * v0.9 renderers validate).
 */
export function chooseWireVersion(metadata: unknown, activated: readonly string[], appCatalogId?: string): A2uiVersion | undefined {
  const capabilities = capabilitiesOf(metadata);
  // A client that activated a version and named no catalogue can render only that version's
  // basic one (the official A2UI sample shell sends just the X-A2A-Extensions header).
  if (capabilities.length === 0) return SERVED_VERSIONS.find((v) => activated.includes(A2UI_EXTENSION_URIS[v]));
  const lists = (c: Record<string, unknown>, v: A2uiVersion): boolean => {
    const ids = advertisedInCapabilities(c, v).ids;
    const basic = v === '0.8' ? [CATALOG_IDS[v]] : BASIC_CATALOG_IDS;
    return ids.some((id) => basic.includes(id)) || (appCatalogId !== undefined && ids.includes(appCatalogId));
  };
  const supported = SERVED_VERSIONS.filter((v) => capabilities.some((c) => lists(c, v)));
  if (supported.length === 0) return undefined;
  const asked = supported.find((v) => activated.includes(A2UI_EXTENSION_URIS[v]));
  if (asked !== undefined) return asked;
  if (supported.includes('0.9')) return capabilities.some((c) => isObject(c['v0.9.1'])) ? '0.9.1' : '0.9';
  return supported[0];
}

/** The catalogue a message's answer in `version` is compiled with: the app's when its capabilities name it (catalog-choice.ts). */
export function chooseMessageCatalog(metadata: unknown, version: A2uiVersion, app: AppCatalogOffer | undefined): CatalogChoice {
  return capabilitiesOf(metadata).some((c) => chooseCatalog(app, advertisedInCapabilities(c, version), version) === 'app') ? 'app' : 'basic';
}

/** The id a v0.9.x answer names the basic catalogue by: the one of its two published ids the message named (catalog-choice.ts). */
export function chooseBasicCatalogId(metadata: unknown, version: A2uiVersion): string {
  if (version === '0.8') return BASIC_CATALOG_ID;
  return basicCatalogIdOf(capabilitiesOf(metadata).map((c) => advertisedInCapabilities(c, version)).reduce(mergeAdvertised, NOTHING_ADVERTISED));
}
