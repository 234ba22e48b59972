import { describe, expect, it } from 'vitest';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { STANDARD_CATALOG_ID } from '../../src/compiler/index.ts';
import { A2UI_EXTENSION_URIS, chooseWireVersion, mimeTypeOf } from '../../src/host-a2a/index.ts';

/** How a message's metadata (and the extensions it activated) choose the wire version of its answer. */
describe('chooseWireVersion', () => {
  const v09 = { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID] } };
  const v08 = { supportedCatalogIds: [STANDARD_CATALOG_ID] };

  it('no capabilities, or none of our catalogues: text only', () => {
    expect(chooseWireVersion(undefined, [])).toBeUndefined();
    expect(chooseWireVersion({}, [A2UI_EXTENSION_URIS['0.9']])).toBeUndefined();
    expect(chooseWireVersion({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: ['https://example.com/other.json'] } } }, [])).toBeUndefined();
    expect(chooseWireVersion({ a2uiClientCapabilities: 'v0.9' }, [])).toBeUndefined();
    expect(chooseWireVersion({ a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: 'nope' } } }, [])).toBeUndefined();
    // A v1.0 renderer that lists only v1.0 catalogues: we serve no v1.0.
    expect(chooseWireVersion({ a2uiRendererCapabilities: { 'v1.0': { supportedCatalogIds: ['https://a2ui.org/specification/v1_0/catalogs/basic/catalog.json'] } } }, [])).toBeUndefined();
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
