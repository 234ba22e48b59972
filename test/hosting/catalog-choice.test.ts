import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASIC_CATALOG_ID, BASIC_CATALOG_SPEC_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { STANDARD_CATALOG_ID } from '../../src/compiler/index.ts';
import { pageStreamUrl } from '../../src/host-a2ui/routes.ts';
import {
  advertisedInAguiContext, advertisedInCapabilities, advertisedInQuery, basicCatalogIdOf, chooseCatalog, NOTHING_ADVERTISED, namingBasicCatalog,
  type AppCatalogOffer,
} from '../../src/hosting/index.ts';

/** Catalogue negotiation, per client: the app's components only to a client that has the app catalogue. */
const APP: AppCatalogOffer = { id: 'https://desk.example/a2ui/catalog.json', components: ['TicketTable', 'BarChart'] };

describe('chooseCatalog', () => {
  it('the app catalogue id advertised: app; nothing, or only the basic catalogue: basic', () => {
    expect(chooseCatalog(APP, { ids: [BASIC_CATALOG_ID, APP.id], inline: [] })).toBe('app');
    expect(chooseCatalog(APP, { ids: [APP.id], inline: [] })).toBe('app');
    expect(chooseCatalog(APP, { ids: [BASIC_CATALOG_ID], inline: [] })).toBe('basic');
    expect(chooseCatalog(APP, NOTHING_ADVERTISED)).toBe('basic');
    // An id is compared whole: a prefix or another spelling is another catalogue.
    expect(chooseCatalog(APP, { ids: [`${APP.id}?v=2`, APP.id.toUpperCase()], inline: [] })).toBe('basic');
  });

  it('an app without components (or without a catalogue) is always basic', () => {
    expect(chooseCatalog(undefined, { ids: [APP.id], inline: [] })).toBe('basic');
    expect(chooseCatalog({ id: APP.id, components: [] }, { ids: [APP.id], inline: [] })).toBe('basic');
  });

  it('an inline catalogue under the app id counts only when it defines every app component (and, in v0.9, Surfacer\'s Table)', () => {
    const inline = (components: string[]) => ({ ids: [BASIC_CATALOG_ID], inline: [{ catalogId: APP.id, components }] });
    expect(chooseCatalog(APP, inline(['Text', 'TicketTable', 'BarChart', 'Table']))).toBe('app');
    expect(chooseCatalog(APP, inline(['Text', 'TicketTable', 'BarChart']), '0.8')).toBe('app');
    // A v0.9 copy without Table would fail on a table block's Table: fallbacks.
    expect(chooseCatalog(APP, inline(['Text', 'TicketTable', 'BarChart']), '0.9')).toBe('basic');
    expect(chooseCatalog(APP, inline(['TicketTable', 'Table']))).toBe('basic');
    expect(chooseCatalog(APP, { ids: [], inline: [{ catalogId: 'https://other.example/c.json', components: ['TicketTable', 'BarChart'] }] })).toBe('basic');
  });

  it('property: app exactly when the id is advertised or a complete inline copy is', () => {
    const name = fc.constantFrom<string>('TicketTable', 'BarChart', 'Text', 'Portrait', 'Table');
    const id = fc.constantFrom(APP.id, BASIC_CATALOG_ID, 'https://other.example/c.json');
    fc.assert(fc.property(fc.array(id, { maxLength: 4 }), fc.array(fc.record({ catalogId: id, components: fc.array(name, { maxLength: 4 }) }), { maxLength: 3 }), (ids, inline) => {
      const expected = ids.includes(APP.id)
        || inline.some((c) => c.catalogId === APP.id) && [...APP.components, 'Table'].every((n) => inline.find((c) => c.catalogId === APP.id)!.components.includes(n));
      expect(chooseCatalog(APP, { ids, inline })).toBe(expected ? 'app' : 'basic');
    }));
  });
});

describe('what a client advertised', () => {
  it('a2uiClientCapabilities: v0.9.x under its version key, v0.8 flat', () => {
    const caps = {
      supportedCatalogIds: [STANDARD_CATALOG_ID, APP.id],
      'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID], inlineCatalogs: [{ catalogId: APP.id, components: { TicketTable: {}, BarChart: {} } }] },
      'v0.9.1': { supportedCatalogIds: [APP.id] },
    };
    expect(advertisedInCapabilities(caps, '0.8')).toEqual({ ids: [STANDARD_CATALOG_ID, APP.id], inline: [] });
    expect(advertisedInCapabilities(caps, '0.9')).toEqual({ ids: [BASIC_CATALOG_ID, APP.id], inline: [{ catalogId: APP.id, components: ['TicketTable', 'BarChart'] }] });
    expect(chooseCatalog(APP, advertisedInCapabilities({ 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID] } }, '0.9'))).toBe('basic');
  });

  it('junk reads as nothing, never a throw', () => {
    for (const junk of [undefined, null, 'v0.9', 42, [], { 'v0.9': 'x' }, { 'v0.9': { supportedCatalogIds: 'x', inlineCatalogs: {} } },
      { 'v0.9': { supportedCatalogIds: [1, null, {}], inlineCatalogs: [null, 'x', { catalogId: 3 }] } }]) {
      expect(advertisedInCapabilities(junk, '0.9')).toEqual(NOTHING_ADVERTISED);
    }
    // Own keys only: a catalogue defining `__proto__` or `constructor` names them, nothing more.
    const proto = JSON.parse(`{"v0.9": {"supportedCatalogIds": [], "inlineCatalogs": [{"catalogId": "${APP.id}", "components": {"__proto__": {}, "TicketTable": {}}}]}}`) as unknown;
    expect(advertisedInCapabilities(proto, '0.9').inline[0]!.components).toEqual(['__proto__', 'TicketTable']);
  });

  it('bounded: at most 32 ids, each at most 2048 characters, and 8 inline catalogues', () => {
    const many = Array.from({ length: 100 }, (_, i) => `https://x.example/${i}`);
    expect(advertisedInQuery(many).ids).toHaveLength(32);
    expect(advertisedInQuery(['x'.repeat(2049), '', APP.id]).ids).toEqual([APP.id]);
    const inline = Array.from({ length: 20 }, () => ({ catalogId: APP.id, components: {} }));
    expect(advertisedInCapabilities({ 'v0.9': { supportedCatalogIds: [], inlineCatalogs: inline } }, '0.9').inline).toHaveLength(8);
    expect(advertisedInQuery(undefined)).toEqual(NOTHING_ADVERTISED);
  });
});

/** CopilotKit 1.74's context entries, as its A2UICatalogContext writes them (descriptions verbatim). */
const SCHEMA_DESCRIPTION = 'A2UI Component Schema — available components for generating UI surfaces. Use these component names and properties when creating A2UI operations.';
const CAPABILITIES_DESCRIPTION = 'A2UI catalog capabilities: available catalog IDs and custom component definitions the client can render.';
const schemaEntry = (catalogId: string, components: string[]) => ({
  description: SCHEMA_DESCRIPTION, value: JSON.stringify({ catalogId, components: Object.fromEntries(components.map((c) => [c, { allOf: [] }])) }),
});

describe('what CopilotKit announces in an AG-UI run\'s context', () => {
  it('the component schema entry is an inline catalogue; the capabilities entry lists ids', () => {
    const context = [
      { description: CAPABILITIES_DESCRIPTION, value: `Available A2UI catalog:\n- ${BASIC_CATALOG_SPEC_ID} (basic catalog)` },
      schemaEntry(BASIC_CATALOG_SPEC_ID, ['Text', 'Button']),
      { description: 'A2UI generation guidelines — protocol rules', value: '- https://not.a.catalog/ listed in prose' },
    ];
    expect(advertisedInAguiContext(context)).toEqual({ ids: [BASIC_CATALOG_SPEC_ID], inline: [{ catalogId: BASIC_CATALOG_SPEC_ID, components: ['Text', 'Button'] }] });
    // The app catalogue in CopilotKit's schema entry: the app's components when it holds them all.
    expect(chooseCatalog(APP, advertisedInAguiContext([schemaEntry(APP.id, ['Text', 'TicketTable', 'BarChart', 'Table'])]))).toBe('app');
    expect(chooseCatalog(APP, advertisedInAguiContext([schemaEntry(APP.id, ['Text', 'TicketTable'])]))).toBe('basic');
  });

  it('junk reads as nothing, never a throw', () => {
    for (const junk of [undefined, null, 'x', {}, [null, 1, 'x'], [{ description: SCHEMA_DESCRIPTION, value: '{not json' }], [{ description: SCHEMA_DESCRIPTION, value: '[1,2]' }],
      [{ description: SCHEMA_DESCRIPTION, value: 42 }], [{ description: CAPABILITIES_DESCRIPTION, value: 'no list here' }]]) {
      expect(advertisedInAguiContext(junk)).toEqual(NOTHING_ADVERTISED);
    }
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const read = advertisedInAguiContext(value);
      expect(read.ids.length).toBeLessThanOrEqual(32);
    }));
  });
});

describe('the two ids of the v0.9 basic catalogue', () => {
  it('the answer names the id the client named; ours when it named both or neither', () => {
    expect(basicCatalogIdOf(NOTHING_ADVERTISED)).toBe(BASIC_CATALOG_ID);
    expect(basicCatalogIdOf({ ids: [BASIC_CATALOG_SPEC_ID], inline: [] })).toBe(BASIC_CATALOG_SPEC_ID);
    expect(basicCatalogIdOf({ ids: [], inline: [{ catalogId: BASIC_CATALOG_SPEC_ID, components: [] }] })).toBe(BASIC_CATALOG_SPEC_ID);
    expect(basicCatalogIdOf({ ids: [BASIC_CATALOG_SPEC_ID, BASIC_CATALOG_ID], inline: [] })).toBe(BASIC_CATALOG_ID);
    expect(basicCatalogIdOf({ ids: ['https://other.example/catalog.json'], inline: [] })).toBe(BASIC_CATALOG_ID);
  });

  it('renaming touches only createSurface of the basic catalogue', () => {
    const messages = [
      { version: 'v0.9', createSurface: { surfaceId: 'a', catalogId: BASIC_CATALOG_ID } },
      { version: 'v0.9', createSurface: { surfaceId: 'b', catalogId: APP.id } },
      { version: 'v0.9', updateDataModel: { surfaceId: 'a', value: { catalogId: BASIC_CATALOG_ID } } },
    ];
    expect(namingBasicCatalog(messages, BASIC_CATALOG_ID)).toBe(messages);
    const renamed = namingBasicCatalog(messages, BASIC_CATALOG_SPEC_ID);
    expect(renamed.map((m) => JSON.stringify(m))).toEqual([
      JSON.stringify({ version: 'v0.9', createSurface: { surfaceId: 'a', catalogId: BASIC_CATALOG_SPEC_ID } }), JSON.stringify(messages[1]), JSON.stringify(messages[2]),
    ]);
    // The compiled (cached) messages are not changed in place.
    expect(messages[0]!.createSurface!.catalogId).toBe(BASIC_CATALOG_ID);
  });
});

describe('the stream URL of the app\'s own page', () => {
  const APP_ID = 'https://desk.example/a2ui/catalog.json';
  it('advertises the app catalogue by default; catalog params the page was asked with replace it', () => {
    const app = `catalog=${encodeURIComponent(APP_ID)}`;
    expect(pageStreamUrl('/s', '0.8', undefined, APP_ID)).toBe(`/s?${app}`);
    expect(pageStreamUrl('/s', '0.9', [], APP_ID)).toBe(`/s?v=0.9&${app}`);
    expect(pageStreamUrl('/s', '0.9.1', [BASIC_CATALOG_ID], APP_ID)).toBe(`/s?v=0.9.1&catalog=${encodeURIComponent(BASIC_CATALOG_ID)}`);
    // An app without a catalogue: the stream as before.
    expect(pageStreamUrl('/s', '0.8', undefined, undefined)).toBe('/s');
    expect(pageStreamUrl('/s', '0.9', undefined, undefined)).toBe('/s?v=0.9');
    // What the page passes on is bounded like what a stream reads: 32 ids of at most 2048 characters.
    const many = Array.from({ length: 50 }, (_, i) => `https://x.example/${i}`);
    expect(new URL(pageStreamUrl('/s', '0.9', [...many, 'y'.repeat(5000)], APP_ID), 'http://h').searchParams.getAll('catalog')).toEqual(many.slice(0, 32));
  });
});
