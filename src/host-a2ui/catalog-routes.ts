import { createHash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { BASIC_CATALOG_ID } from '../a2ui-v0_9-protocol/index.ts';
import { STANDARD_CATALOG_ID } from '../compiler/index.ts';
import { makeError } from '../errors/index.ts';

/*
 * The app catalogue, served: what a client needs to render the app's own components (their
 * JSON Schemas under the catalogue id), and the A2UI server capabilities (which catalogues this
 * server generates). Public, like an agent card: a catalogue describes components, never a
 * conversation; nothing here reads a session or a token. Cacheable: the documents are generated
 * once from the app's zod schemas and change only with a deploy, so they carry an ETag and a
 * short max-age rather than `immutable` (their URLs hold no content hash).
 */

export const CATALOG_PATHS = {
  '0.8': '/a2ui/catalog/v0.8.json',
  '0.9': '/a2ui/catalog/v0.9.json',
  capabilities: '/a2ui/capabilities.json',
} as const;

export interface CatalogDocuments {
  /** The app catalogue for v0.8 (`{catalogId, components, styles}`); absent: the app has none. */
  readonly v08?: object;
  /** The app catalogue for v0.9.x (A2UI's catalogue schema, `catalogId` first); absent: the app has none. */
  readonly v09?: object;
  /** `a2uiServerCapabilities`: per version, the catalogue ids this server generates. */
  readonly capabilities: object;
}

/**
 * A2UI's server capabilities object (v0.9 `server_capabilities.json`; v0.8 flat under its own
 * key): per version, the catalogues this server generates, the app's first. Inline catalogues
 * are never generated from (catalog-choice.ts reads one only as a copy of the app's).
 */
export function serverCapabilities(appCatalogId: string | undefined): object {
  const ids = (basic: string): string[] => (appCatalogId === undefined ? [basic] : [appCatalogId, basic]);
  return {
    'v0.8': { supportedCatalogIds: ids(STANDARD_CATALOG_ID), acceptsInlineCatalogs: false },
    'v0.9': { supportedCatalogIds: ids(BASIC_CATALOG_ID), acceptsInlineCatalogs: false },
  };
}

interface Served { readonly body: string; readonly etag: string }

const MAX_AGE_S = 300;

function served(document: object): Served {
  const body = JSON.stringify(document);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

function answer(c: Context, doc: Served | undefined, what: string): Response {
  if (doc === undefined) return c.json(makeError('HTTP_NOT_FOUND', `this app has no ${what}`), 404);
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': `public, max-age=${MAX_AGE_S}`,
    ETag: doc.etag,
    'X-Content-Type-Options': 'nosniff',
    // Any origin may read it (a renderer on another site validates against it); it carries no credentials.
    'Access-Control-Allow-Origin': '*',
  };
  if (c.req.header('if-none-match') === doc.etag) return c.body(null, 304, headers);
  return c.body(doc.body, 200, headers);
}

/** Mounts the catalogue routes; `documents` is read once (a thrown generator fails the start, not a request). */
export function mountCatalogRoutes(app: Hono, documents: CatalogDocuments): void {
  const v08 = documents.v08 === undefined ? undefined : served(documents.v08);
  const v09 = documents.v09 === undefined ? undefined : served(documents.v09);
  const capabilities = served(documents.capabilities);
  app.get(CATALOG_PATHS['0.8'], (c) => answer(c, v08, 'v0.8 catalogue'));
  app.get(CATALOG_PATHS['0.9'], (c) => answer(c, v09, 'v0.9 catalogue'));
  app.get(CATALOG_PATHS.capabilities, (c) => answer(c, capabilities, 'capabilities'));
}
