import { describe, expect, it } from 'vitest';
import { BASIC_CATALOG_ID, BASIC_CATALOG_SPEC_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { STANDARD_CATALOG_ID } from '../../src/compiler/index.ts';
import { A2UI_EXTENSION_URIS, chooseBasicCatalogId, chooseMessageCatalog, chooseWireVersion, mimeTypeOf } from '../../src/host-a2a/index.ts';

/** How a message's metadata (and the extensions it activated) choose the wire version of its answer. */
describe('chooseWireVersion', () => {
  const v09 = { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID] } };
  const v08 = { supportedCatalogIds: [STANDARD_CATALOG_ID] };

  it('no capabilities, or none of our catalogues: text only', () => {
    expect(chooseWireVersion(undefined, [])).toBeUndefined();
    expect(chooseWireVersion({}, [])).toBeUndefined();
    // Capabilities that name none of our catalogues: the extension's activation does not override them.
    expect(chooseWireVersion({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: ['https://example.com/other.json'] } } }, [A2UI_EXTENSION_URIS['0.9']])).toBeUndefined();
    expect(chooseWireVersion({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: ['https://example.com/other.json'] } } }, [])).toBeUndefined();
    expect(chooseWireVersion({ a2uiClientCapabilities: 'v0.9' }, [])).toBeUndefined();
    expect(chooseWireVersion({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: 'nope' } } }, [])).toBeUndefined();
    // A v1.0 renderer that lists only v1.0 catalogues: we serve no v1.0.
    expect(chooseWireVersion({ a2uiRendererCapabilities: { 'v1.0': { supportedCatalogIds: ['https://a2ui.org/specification/v1_0/catalogs/basic/catalog.json'] } } }, [])).toBeUndefined();
  });

  it('an extension activated with no capabilities (the official sample shell): that version, the newest of those activated', () => {
    expect(chooseWireVersion(undefined, [A2UI_EXTENSION_URIS['0.9']])).toBe('0.9');
    expect(chooseWireVersion({}, [A2UI_EXTENSION_URIS['0.8']])).toBe('0.8');
    expect(chooseWireVersion({}, [A2UI_EXTENSION_URIS['0.8'], A2UI_EXTENSION_URIS['0.9.1']])).toBe('0.9.1');
    expect(chooseWireVersion({}, ['https://a2ui.org/a2a-extension/a2ui/v1.0', 'https://example.com/ext'])).toBeUndefined();
    // No capabilities: nothing names the other basic id, so the answer names ours.
    expect(chooseBasicCatalogId(undefined, '0.9')).toBe(BASIC_CATALOG_ID);
  });

  it('the v0.9 basic catalogue under either published id; the answer names the id the client named', () => {
    const spec = { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_SPEC_ID] } };
    expect(chooseWireVersion({ a2uiClientCapabilities: spec }, [])).toBe('0.9');
    expect(chooseBasicCatalogId({ a2uiClientCapabilities: spec }, '0.9')).toBe(BASIC_CATALOG_SPEC_ID);
    expect(chooseBasicCatalogId({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_SPEC_ID, BASIC_CATALOG_ID] } } }, '0.9')).toBe(BASIC_CATALOG_ID);
    expect(chooseBasicCatalogId({ a2uiClientCapabilities: v09 }, '0.9')).toBe(BASIC_CATALOG_ID);
  });

  it('the version whose catalogue is listed; v0.9 before v0.9.1 unless v0.9.1 is named', () => {
    expect(chooseWireVersion({ a2uiClientCapabilities: v08 }, [])).toBe('0.8');
    expect(chooseWireVersion({ a2uiClientCapabilities: v09 }, [])).toBe('0.9');
    expect(chooseWireVersion({ a2uiClientCapabilities: { 'v0.9.1': { supportedCatalogIds: [BASIC_CATALOG_ID] } } }, [])).toBe('0.9.1');
    expect(chooseWireVersion({ a2uiRendererCapabilities: v09 }, [])).toBe('0.9');
    expect(chooseWireVersion({ a2uiClientCapabilities: { ...v08, ...v09 } }, [])).toBe('0.9');
  });

  it('an activated extension picks among the supported versions; one the client cannot render is ignored', () => {
    expect(chooseWireVersion({ a2uiClientCapabilities: v09 }, [A2UI_EXTENSION_URIS['0.9.1']])).toBe('0.9.1');
    expect(chooseWireVersion({ a2uiClientCapabilities: { ...v08, ...v09 } }, [A2UI_EXTENSION_URIS['0.8']])).toBe('0.8');
    expect(chooseWireVersion({ a2uiClientCapabilities: v09 }, [A2UI_EXTENSION_URIS['0.8']])).toBe('0.9');
  });

  it('MIME types: the v0.9.1 name for v0.9.1, the earlier one before', () => {
    expect(mimeTypeOf('0.8')).toBe('application/json+a2ui');
    expect(mimeTypeOf('0.9')).toBe('application/json+a2ui');
    expect(mimeTypeOf('0.9.1')).toBe('application/a2ui+json');
  });
});

/** The app catalogue in a message's capabilities: the wire version still chosen, and the catalogue of that version's answer. */
describe('the app catalogue in A2A metadata', () => {
  const APP = { id: 'https://desk.example/a2ui/catalog.json', components: ['TicketTable'] };

  it('a client naming only the app catalogue still gets a wire version (it holds the basic components too)', () => {
    expect(chooseWireVersion({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [APP.id] } } }, [], APP.id)).toBe('0.9');
    expect(chooseWireVersion({ a2uiClientCapabilities: { supportedCatalogIds: [APP.id] } }, [], APP.id)).toBe('0.8');
    // Without an app catalogue, an unknown id is no A2UI client of ours.
    expect(chooseWireVersion({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [APP.id] } } }, [])).toBeUndefined();
  });

  it('app for the version whose capabilities name it; basic otherwise', () => {
    const both = { a2uiClientCapabilities: { supportedCatalogIds: [STANDARD_CATALOG_ID], 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID, APP.id] } } };
    expect(chooseMessageCatalog(both, '0.9', APP)).toBe('app');
    expect(chooseMessageCatalog(both, '0.8', APP)).toBe('basic');
    expect(chooseMessageCatalog({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID] } } }, '0.9', APP)).toBe('basic');
    expect(chooseMessageCatalog({ a2uiRendererCapabilities: { 'v0.9.1': { supportedCatalogIds: [APP.id] } } }, '0.9.1', APP)).toBe('app');
    expect(chooseMessageCatalog(both, '0.9', undefined)).toBe('basic');
    expect(chooseMessageCatalog(undefined, '0.9', APP)).toBe('basic');
  });
});
