import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClientSimV09 } from '../../../src/clientsim/index.ts';
import { LIST_ACTIONS } from '../../../src/collections/index.ts';
import { appCatalogSpecV09 } from '../../../src/compiler/components/index.ts';
import { compileConversationToA2uiV09, decodeA2uiSurfaceId, type A2uiV09Message } from '../../../src/compiler/index.ts';
import { checkIngress, createActionRegistry, parseA2uiV09ClientMessage } from '../../../src/ingress/index.ts';
import { listItems, walkBlocks, type ComponentBlock, type ConversationIr } from '../../../src/ui-ir/index.ts';
import { arbConversationWithComponents } from '../../support/arbitraries-components.ts';
import { TEST_CATALOG_ID, testComponents } from '../../support/components.ts';

const registry = testComponents();
const appCatalog = appCatalogSpecV09(registry, TEST_CATALOG_ID);
const actions = createActionRegistry(LIST_ACTIONS);

const componentsOf = (messages: readonly A2uiV09Message[]) => messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components : []));
type EventAction = { event: { name: string; context: { list?: string } } };

/** What ingress makes of a client message: the accepted action and context, or the rejection's code. */
function ingressOutcome(ir: ConversationIr, message: unknown): unknown {
  const parsed = parseA2uiV09ClientMessage(JSON.stringify(message), { decodeSurfaceId: decodeA2uiSurfaceId });
  if (!parsed.ok) return { rejected: parsed.error.code };
  if (parsed.request.kind !== 'action') return { kind: parsed.request.kind };
  const checked = checkIngress(parsed.request, ir, actions);
  return checked.ok ? { handler: checked.action.name, context: checked.context } : { rejected: checked.error.code };
}

describe('property: an item action from an app component and from its fallback are the same action', () => {
  it('ClientSim v0.9 accepts both streams; clicking item i\'s button a sends the same message content, which ingress gives the same handler with the same context', () => {
    let compared = 0;
    let handled = 0;
    fc.assert(fc.property(arbConversationWithComponents, (ir) => {
      const app = compileConversationToA2uiV09(ir, { components: { registry, catalog: 'app', catalogId: TEST_CATALOG_ID } });
      const basic = compileConversationToA2uiV09(ir, { components: { registry, catalog: 'basic' } });
      if (!app.ok || !basic.ok) throw new Error('compile');
      for (const surface of ir.surfaces) {
        const appBatch = app.batches.find((b) => b.surfaceId === surface.id);
        const basicBatch = basic.batches.find((b) => b.surfaceId === surface.id);
        if (appBatch === undefined || basicBatch === undefined) continue;
        const simApp = createClientSimV09({ appCatalog });
        const simBasic = createClientSimV09();
        expect(simApp.applyAll(appBatch.messages).filter((v) => v.severity === 'error')).toEqual([]);
        expect(simBasic.applyAll(basicBatch.messages).filter((v) => v.severity === 'error')).toEqual([]);
        if (appBatch.kind !== 'init' || appBatch.recovery === 'surface_fail' || basicBatch.recovery === 'surface_fail') continue;
        const collections: ComponentBlock[] = [];
        walkBlocks(surface.view.blocks, (b) => { if (b.kind === 'component' && b.path !== undefined && b.actions.length > 0) collections.push(b); });
        for (const block of collections) {
          const custom = componentsOf(appBatch.messages).find((c) => c.id.endsWith(`.c-${block.name}.${block.component}`))!;
          const shown = listItems(surface, { ...block, path: block.path! }).shown.length;
          block.actions.forEach((action, a) => {
            const fallbackButton = componentsOf(basicBatch.messages).find((c) => c.component === 'Button'
              && (c.action as EventAction | undefined)?.event.name === action.name && (c.action as EventAction).event.context.list === block.name)!;
            for (let i = 0; i < shown; i += 1) {
              const fromCustom = simApp.clickItemAction(appBatch.a2uiSurfaceId, custom.id, i, a);
              const fromFallback = simBasic.click(basicBatch.a2uiSurfaceId, fallbackButton.id, undefined, `/view/l-${block.name}/items/${i}`);
              if (!fromCustom.ok || !fromFallback.ok) throw new Error(JSON.stringify([fromCustom, fromFallback]));
              expect(fromCustom.message.action.name).toBe(fromFallback.message.action.name);
              expect(fromCustom.message.action.context).toEqual(fromFallback.message.action.context);
              const outcome = ingressOutcome(ir, fromCustom.message);
              expect(outcome).toEqual(ingressOutcome(ir, fromFallback.message));
              if (typeof outcome === 'object' && outcome !== null && 'handler' in outcome) handled += 1;
              compared += 1;
            }
          });
        }
      }
    }), { numRuns: 60 });
    expect(compared).toBeGreaterThan(10);
    // Some clicks were accepted (live surfaces, registered actions), not only refused alike.
    expect(handled).toBeGreaterThan(0);
  });
});
