import { BASIC_FUNCTIONS, Catalog, MessageProcessor } from '@a2ui/web_core/v0_9';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClientSim, createClientSimV09 } from '../../../src/clientsim/index.ts';
import { isFinding } from '../../../src/compiler/a2ui-shared/index.ts';
import { appCatalogFromDocumentV09, appCatalogSpecV09, appCatalogV09 } from '../../../src/compiler/components/index.ts';
import { appCatalogSpecV08 } from '../../../src/compiler/components/wire-v08.ts';
import {
  compileConversationToA2ui, compileConversationToA2uiV09, STANDARD_COMPONENT_TYPES, validateA2uiMessages, validateA2uiV09Messages,
} from '../../../src/compiler/index.ts';
import { isBasicComponentType } from '../../../src/a2ui-v0_9-protocol/index.ts';
import { walkBlocks, type ConversationIr } from '../../../src/ui-ir/index.ts';
import { feed, newOracle, type Oracle } from '../../support/a2ui-v0_9-oracle.ts';
import { arbConversationWithComponents } from '../../support/arbitraries-components.ts';
import { TEST_CATALOG_ID, testComponents } from '../../support/components.ts';
import { feed as feedV08, newProcessor, silenceWc } from '../a2ui-v0_8/wc-oracle.ts';

const registry = testComponents();
const document = appCatalogV09(registry, TEST_CATALOG_ID);
const spec = appCatalogSpecV09(registry, TEST_CATALOG_ID);
const specV08 = appCatalogSpecV08(registry, TEST_CATALOG_ID);
/** The same catalogue read back from its document (what `surfacer validate --catalog` uses). */
const fromDocument = appCatalogFromDocumentV09(JSON.parse(JSON.stringify(document)));
if (!fromDocument.ok) throw new Error(fromDocument.message);

function appOracle(): Oracle {
  const loaded = Catalog.fromSchema(JSON.parse(JSON.stringify(document)));
  const catalog = new Catalog(TEST_CATALOG_ID, [...loaded.components.values()], BASIC_FUNCTIONS);
  return { processor: new MessageProcessor([catalog], () => {}), catalog, actions: [] };
}

function componentCount(ir: ConversationIr, surfaceId: string): number {
  let n = 0;
  walkBlocks(ir.surfaces.find((s) => s.id === surfaceId)!.view.blocks, (b) => { if (b.kind === 'component') n += 1; });
  return n;
}

describe('property: any IR with app components compiles to streams the official processors and ClientSim accept', () => {
  it('v0.9 with the app catalogue: the components themselves, accepted by the official processor holding it and by our validator', () => {
    let shown = 0;
    fc.assert(fc.property(arbConversationWithComponents, (ir) => {
      const r = compileConversationToA2uiV09(ir, { components: { registry, catalog: 'app', catalogId: TEST_CATALOG_ID } });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      for (const batch of r.batches) {
        feed(appOracle(), batch.messages, batch.surfaceId);
        expect(validateA2uiV09Messages(batch.messages, { appCatalog: spec }).filter(isFinding)).toEqual([]);
        expect(createClientSimV09({ appCatalog: spec }).applyAll(batch.messages).filter((v) => v.severity === 'error')).toEqual([]);
        expect(validateA2uiV09Messages(batch.messages, { appCatalog: fromDocument.catalog }).filter(isFinding)).toEqual([]);
        const custom = batch.messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components : []))
          .filter((c) => !isBasicComponentType(c.component));
        // A surface compiled whole shows every component as itself; a failed one (plain text) none.
        if (batch.kind === 'init') expect(custom).toHaveLength(batch.recovery === 'surface_fail' ? 0 : componentCount(ir, batch.surfaceId));
        shown += custom.length;
        if (batch.kind === 'init') expect(batch.errors.map((e) => e.code)).not.toContain('COMPILER_COMPONENT_PROPS_INVALID');
      }
    }), { numRuns: 60 });
    // The generator places components on every surface: the runs did show some.
    expect(shown).toBeGreaterThan(20);
  });

  it('v0.9 with only the basic catalogue: fallbacks, accepted by the official basic processor and our validator', () => {
    fc.assert(fc.property(arbConversationWithComponents, (ir) => {
      const r = compileConversationToA2uiV09(ir, { components: { registry, catalog: 'basic' } });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      for (const batch of r.batches) {
        feed(newOracle(), batch.messages, batch.surfaceId);
        expect(validateA2uiV09Messages(batch.messages).filter(isFinding)).toEqual([]);
        expect(createClientSimV09().applyAll(batch.messages).filter((v) => v.severity === 'error')).toEqual([]);
        const types = batch.messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components.map((c) => c.component) : []));
        expect(types.every((t) => isBasicComponentType(t))).toBe(true);
        expect(batch.errors.map((e) => e.code)).not.toContain('COMPILER_COMPONENT_FALLBACK_INVALID');
      }
    }), { numRuns: 60 });
  });

  it('v0.8: with the app catalogue the components themselves, else fallbacks; the official v0.8 processor and our validator accept both', () => {
    silenceWc();
    let shown = 0;
    fc.assert(fc.property(arbConversationWithComponents, fc.constantFrom('app' as const, 'basic' as const), (ir, catalog) => {
      const components = catalog === 'app' ? { registry, catalog, catalogId: TEST_CATALOG_ID } : { registry, catalog };
      const r = compileConversationToA2ui(ir, { components });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      for (const batch of r.batches) {
        feedV08(newProcessor(), batch.messages, batch.surfaceId);
        expect(validateA2uiMessages(batch.messages, catalog === 'app' ? { appCatalog: specV08 } : {}).filter(isFinding)).toEqual([]);
        expect(batch.errors.map((e) => e.code)).not.toContain('COMPILER_COMPONENT_FALLBACK_INVALID');
        const custom = batch.messages.flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components : []))
          .filter((c) => Object.keys(c.component).some((t) => !(STANDARD_COMPONENT_TYPES as readonly string[]).includes(t)));
        if (catalog === 'basic') {
          expect(custom).toEqual([]);
          expect(createClientSim().applyAll(batch.messages).filter((v) => v.severity === 'error')).toEqual([]);
        } else {
          // ClientSim v0.8 holding the app catalogue validates the app components by their schemas.
          const sim = createClientSim({ appCatalog: specV08 }).applyAll(batch.messages);
          expect(sim.filter((v) => v.severity === 'error' || v.code === 'CLIENTSIM_UNKNOWN_COMPONENT_TYPE' || v.code === 'CLIENTSIM_CATALOG_UNKNOWN')).toEqual([]);
          if (batch.kind === 'init') expect(custom).toHaveLength(batch.recovery === 'surface_fail' ? 0 : componentCount(ir, batch.surfaceId));
        }
        shown += custom.length;
      }
    }), { numRuns: 60 });
    expect(shown).toBeGreaterThan(10);
  });
});
