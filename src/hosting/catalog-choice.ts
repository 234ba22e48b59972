import { BASIC_CATALOG_ID, BASIC_CATALOG_IDS } from '../a2ui-v0_9-protocol/index.ts';
import type { A2uiVersion } from '../compiler/index.ts';

/*
 * Catalogue negotiation, per client (design: docs/a2ui.md "Catalogue negotiation"). An app with
 * components of its own has an app catalogue (the basic components + its own, under an id the
 * app names). A client gets the app's components when it says it has that catalogue, and their
 * basic-catalogue fallback otherwise: a client that says nothing, or lists only the basic
 * catalogue, can always render what it gets. Pure functions: the hosts read what a client
 * advertised (query, A2A metadata, AG-UI forwarded props) and hand it here.
 */

/** What a client's stream is compiled with: the app's components, or their fallbacks. */
export type CatalogChoice = 'app' | 'basic';

/** The app catalogue as negotiation needs it: its id and the names of its own components. */
export interface AppCatalogOffer {
  readonly id: string;
  readonly components: readonly string[];
}

/** What of an app (AppDefinition) negotiation reads. */
export interface AppWithCatalog {
  readonly catalog?: { readonly id: string } | undefined;
  readonly components?: { list(): readonly { readonly name: string }[] } | undefined;
}

/** The app catalogue a server offers; undefined for an app without components (every client is a basic one). */
export function appCatalogOffer(app: AppWithCatalog): AppCatalogOffer | undefined {
  const components = app.components?.list().map((c) => c.name) ?? [];
  return app.catalog === undefined || components.length === 0 ? undefined : { id: app.catalog.id, components };
}

/** What one client advertised for one wire version, read defensively. */
export interface AdvertisedCatalogs {
  /** `supportedCatalogIds` (or our stream's `catalog` query parameters). */
  readonly ids: readonly string[];
  /** Inline catalogues: their id and the component names they define. */
  readonly inline: readonly { readonly catalogId: string; readonly components: readonly string[] }[];
}

export const NOTHING_ADVERTISED: AdvertisedCatalogs = { ids: [], inline: [] };

/** Bounds on what is read from a client (ids are URLs; a catalogue may be large, its names not). */
const MAX_IDS = 32;
const MAX_ID_LENGTH = 2048;
const MAX_INLINE = 8;
const MAX_INLINE_COMPONENTS = 256;

/**
 * 'app' when the client advertised the app catalogue's id, or inlined a catalogue under that id
 * that defines every one of the app's components, and in v0.9 Surfacer's Table (a client that holds an older copy without
 * one of them would fail on it: it gets the fallback). 'basic' otherwise, and always for an app
 * without components.
 */
export function chooseCatalog(app: AppCatalogOffer | undefined, advertised: AdvertisedCatalogs, version: A2uiVersion = '0.9'): CatalogChoice {
  if (app === undefined || app.components.length === 0) return 'basic';
  if (advertised.ids.includes(app.id)) return 'app';
  const inline = advertised.inline.find((c) => c.catalogId === app.id);
  if (inline === undefined) return 'basic';
  const defined = new Set(inline.components);
  // The v0.9 app catalogue also holds Surfacer's Table (a table block is emitted as it).
  const needed = version === '0.8' ? app.components : [...app.components, ...V09_BUILT_IN];
  return needed.every((name) => defined.has(name)) ? 'app' : 'basic';
}

/** Components Surfacer puts in every v0.9 app catalogue (compiler/components/table-component.ts). */
const V09_BUILT_IN = ['Table'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function ids(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_IDS).filter((id): id is string => typeof id === 'string' && id !== '' && id.length <= MAX_ID_LENGTH);
}

function inlineCatalogs(value: unknown): AdvertisedCatalogs['inline'] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, MAX_INLINE).flatMap((c) => {
    if (!isObject(c) || typeof c.catalogId !== 'string' || c.catalogId.length > MAX_ID_LENGTH) return [];
    // Own keys only: a component named like an Object.prototype member is just a name here.
    const components = isObject(c.components) ? Object.keys(c.components).slice(0, MAX_INLINE_COMPONENTS) : [];
    return [{ catalogId: c.catalogId, components }];
  });
}

function merge(parts: readonly unknown[]): AdvertisedCatalogs {
  const objects = parts.filter(isObject);
  return {
    ids: objects.flatMap((p) => ids(p.supportedCatalogIds)).slice(0, MAX_IDS),
    inline: objects.flatMap((p) => inlineCatalogs(p.inlineCatalogs)).slice(0, MAX_INLINE),
  };
}

/**
 * What an `a2uiClientCapabilities` object (A2UI's client capabilities schema; A2A message
 * metadata, AG-UI forwarded props) advertises for `version`. v0.8 writes it flat
 * (`{supportedCatalogIds, inlineCatalogs}`), v0.9.x under a version key (`{"v0.9": {...}}`); a
 * v0.9.1 object may use either "v0.9" (its schema) or "v0.9.1". Anything else reads as nothing.
 */
export function advertisedInCapabilities(capabilities: unknown, version: A2uiVersion): AdvertisedCatalogs {
  if (!isObject(capabilities)) return NOTHING_ADVERTISED;
  return version === '0.8' ? merge([capabilities, capabilities['v0.8']]) : merge([capabilities['v0.9'], capabilities['v0.9.1']]);
}

/** The `catalog` query parameters of our A2UI stream, snapshot and page (ids only: a GET has no body for inline catalogues). */
export function advertisedInQuery(values: readonly string[] | undefined): AdvertisedCatalogs {
  return { ids: ids(values ?? []), inline: [] };
}

/** Both reads of one client (e.g. AG-UI forwarded props and context), within the same bounds. */
export function mergeAdvertised(a: AdvertisedCatalogs, b: AdvertisedCatalogs): AdvertisedCatalogs {
  return { ids: [...a.ids, ...b.ids].slice(0, MAX_IDS), inline: [...a.inline, ...b.inline].slice(0, MAX_INLINE) };
}

/*
 * CopilotKit's A2UI renderer (@copilotkit/react-core 1.74 `A2UICatalogContext`) announces its
 * catalogue in every run's `RunAgentInput.context`, never in forwarded props: an entry whose
 * description starts "A2UI Component Schema" holds `JSON.stringify({catalogId, components})` (the
 * inline-catalogue shape), and one starting "A2UI catalog capabilities" lists the ids as text
 * lines `- <id>`. Both descriptions are CopilotKit's constants, shared with @ag-ui/a2ui-middleware.
 */
const SCHEMA_ENTRY = 'A2UI Component Schema';
const CAPABILITIES_ENTRY = 'A2UI catalog capabilities';
const MAX_CONTEXT_ENTRIES = 64;
const LISTED_ID = /^- (\S+)/;

/** What an AG-UI run's `context` advertises (CopilotKit's entries above); anything else reads as nothing. */
export function advertisedInAguiContext(context: unknown): AdvertisedCatalogs {
  if (!Array.isArray(context)) return NOTHING_ADVERTISED;
  const listed: string[] = [];
  const inline: unknown[] = [];
  for (const entry of context.slice(0, MAX_CONTEXT_ENTRIES)) {
    if (!isObject(entry) || typeof entry.description !== 'string' || typeof entry.value !== 'string') continue;
    if (entry.description.startsWith(SCHEMA_ENTRY)) {
      try {
        inline.push(JSON.parse(entry.value));
      } catch {
        // Not the schema CopilotKit sends: nothing advertised by it.
      }
    } else if (entry.description.startsWith(CAPABILITIES_ENTRY)) {
      for (const line of entry.value.split('\n', MAX_IDS * 4)) {
        const id = LISTED_ID.exec(line)?.[1];
        if (id !== undefined) listed.push(id);
      }
    }
  }
  // A schema entry is a catalogue the client holds whole: an inline copy, checked like one.
  return { ids: ids(listed), inline: inlineCatalogs(inline) };
}

/**
 * The id a basic-catalogue answer names in its createSurface: the one of the two published ids
 * of the v0.9 basic catalogue the client named (by id, or inline), ours when it named neither.
 */
export function basicCatalogIdOf(advertised: AdvertisedCatalogs): string {
  const named = [...advertised.ids, ...advertised.inline.map((c) => c.catalogId)];
  if (named.includes(BASIC_CATALOG_ID)) return BASIC_CATALOG_ID;
  return named.find((id) => BASIC_CATALOG_IDS.includes(id)) ?? BASIC_CATALOG_ID;
}

/**
 * `messages` with every createSurface of the basic catalogue naming `basicId` instead (the
 * compilers name BASIC_CATALOG_ID); the same array when there is nothing to rename.
 */
export function namingBasicCatalog<M>(messages: readonly M[], basicId: string): readonly M[] {
  if (basicId === BASIC_CATALOG_ID) return messages;
  return messages.map((message) => {
    const create = (message as { createSurface?: { catalogId?: unknown } }).createSurface;
    if (create === undefined || create.catalogId !== BASIC_CATALOG_ID) return message;
    return { ...message, createSurface: { ...create, catalogId: basicId } } as M;
  });
}
