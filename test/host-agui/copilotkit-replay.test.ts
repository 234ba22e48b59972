import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASIC_CATALOG_SPEC_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import {
  a2uiWire, compileA2uiV09Update, compileConversationToA2uiV09, type A2uiV09CompileResult, type A2uiV09SurfaceBatch,
} from '../../src/compiler/index.ts';
import { surfaceActivities } from '../../src/host-agui/index.ts';
import { surfaceDelta, surfacesOfSnapshot } from '../../src/host-agui/surfaces.ts';
import type { A2uiServerMessage } from '../../src/host-a2ui/index.ts';
import { namingBasicCatalog } from '../../src/hosting/index.ts';
import { emptyConversation, type ConversationIr } from '../../src/ui-ir/index.ts';
import { arbConversationWithComponents } from '../support/arbitraries-components.ts';
import { applyTransitions, arbListHistory, arbTransitionSequence } from '../support/arbitraries-ir.ts';
import { testComponents } from '../support/components.ts';
import { CopilotKitA2ui, freshSurfaces } from '../support/copilotkit-a2ui.ts';

/*
 * Issue 35, "Done when": CopilotKit's renderer replays an activity's whole operation list into a
 * processor that already holds the surface (createSurface left out). For every surface kind the
 * compilers make (forms, lists, tabs, modals, media, app components as their basic fallbacks,
 * surfaces that failed), along any sequence of changes, the activities the AG-UI host sends
 * (a snapshot per surface, or the step's delta appended to the activity, chosen at random where
 * the host could send either) leave CopilotKit's own processor (its pinned web_core) showing what
 * a fresh client of the latest snapshot shows, with no render error, and gone surfaces gone.
 */
const RUNS = 300;
const LONG = 600_000;
const V09 = a2uiWire('0.9');
const registry = testComponents();
const components = { registry, catalog: 'basic' as const };

function batchesOf(result: A2uiV09CompileResult): A2uiV09SurfaceBatch[] {
  if (!result.ok) throw new Error(`compile failed: ${JSON.stringify(result.errors)}`);
  return result.batches;
}

/** The bridge's snapshot of `ir`: every live surface's init messages. */
const snapshotOf = (ir: ConversationIr): A2uiServerMessage[] =>
  batchesOf(compileConversationToA2uiV09(ir, { components })).flatMap((b) => b.messages as A2uiServerMessage[]);

/** The host's activities along `irs` into CopilotKit; `deltas[i]`: send step i as a delta where the host could. */
function followThread(irs: readonly ConversationIr[], deltas: readonly boolean[]): void {
  const client = new CopilotKitA2ui();
  const shown = new Set<string>();
  for (let i = 1; i < irs.length; i += 1) {
    const batches = batchesOf(compileA2uiV09Update(irs[i - 1], irs[i]!, { components }));
    const only = batches.length === 1 ? batches[0]! : undefined;
    // As the host: an accepted action's step, when it is one clean update of a surface the client holds.
    if (deltas[i - 1] === true && only !== undefined && only.kind === 'update' && only.errors.length === 0 && shown.has(only.a2uiSurfaceId)) {
      if (only.messages.length > 0) client.take(surfaceDelta(only.a2uiSurfaceId, namingBasicCatalog(only.messages as A2uiServerMessage[], BASIC_CATALOG_SPEC_ID)));
    } else {
      const live = surfacesOfSnapshot(snapshotOf(irs[i]!), BASIC_CATALOG_SPEC_ID);
      for (const event of surfaceActivities(live, shown, V09.deleteSurface)) client.take(event);
      for (const id of live.keys()) shown.add(id);
    }
    expect(client.errors, `step ${i}`).toEqual([]);
    const fresh = freshSurfaces(namingBasicCatalog(snapshotOf(irs[i]!), BASIC_CATALOG_SPEC_ID));
    expect(client.surfaces(), `step ${i}`).toEqual(fresh);
  }
}

describe('AG-UI activities replayed the way CopilotKit replays them', () => {
  it('IR transitions and list histories: CopilotKit\'s processor ends on the snapshot\'s state at every step', () => {
    fc.assert(fc.property(
      fc.oneof(arbTransitionSequence, arbListHistory), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
      (ops, deltas) => followThread(applyTransitions(ops), deltas),
    ), { numRuns: RUNS });
  }, LONG);

  it('conversations with app components (their fallbacks), one after another: the same', () => {
    fc.assert(fc.property(
      fc.array(arbConversationWithComponents, { minLength: 1, maxLength: 3 }), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      (irs, deltas) => followThread([emptyConversation('c1'), ...irs], deltas),
    ), { numRuns: RUNS / 3 });
  }, LONG);

  it('the snapshot a renderer replays onto the surface it holds has no deleteSurface; a gone surface is its activity\'s lone delete', () => {
    const irs = applyTransitions([
      { t: 'open', id: 'main', view: { template: 'ask', title: 'A', blocks: [{ kind: 'text', text: 'hello', tone: 'body' }], actions: [] } },
      { t: 'reset', id: 'main' },
    ]);
    const shown = new Set<string>();
    const first = surfacesOfSnapshot(snapshotOf(irs[1]!), BASIC_CATALOG_SPEC_ID);
    const [created] = surfaceActivities(first, shown, V09.deleteSurface);
    const ops = (created!.content as { a2ui_operations: Array<Record<string, unknown>> }).a2ui_operations;
    expect(ops.map((o) => Object.keys(o).find((k) => k !== 'version'))).toEqual(['createSurface', 'updateComponents', 'updateDataModel']);
    expect((ops[0]!.createSurface as { catalogId: string }).catalogId).toBe(BASIC_CATALOG_SPEC_ID);
    for (const id of first.keys()) shown.add(id);
    const after = surfaceActivities(surfacesOfSnapshot(snapshotOf(irs[2]!), BASIC_CATALOG_SPEC_ID), shown, V09.deleteSurface);
    const gone = after.find((e) => e.messageId === created!.messageId)!;
    expect((gone.content as { a2ui_operations: unknown[] }).a2ui_operations).toEqual([V09.deleteSurface([...first.keys()][0]!)]);
  });
});
