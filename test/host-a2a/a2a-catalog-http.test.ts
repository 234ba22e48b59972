import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { errorIndexes, runBothV09 } from '../clientsim/v0_9/compare.ts';
import { startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { offer } from '../support/a2ui-v0_9-oracle.ts';
import {
  appOracle, CAPS_APP, catalogIdOf, componentTypes, createGalleryApp, GALLERY_CATALOG_ID, itemAction,
} from '../support/component-app.ts';
import { a2aClient, a2uiData, a2uiOf, sendTask, text, userMessage } from './support.ts';

/*
 * Catalogue negotiation over A2A (issue 22 item 3), with the official @a2a-js/sdk client: the
 * card lists the app catalogue; a message whose a2uiClientCapabilities name it is answered with
 * the app's component, any other with the fallback the official v0.9 processor renders; the item
 * action of either reaches the same handler.
 */
let s: E2eServer;
beforeAll(async () => { s = await startE2e({}, { app: createGalleryApp() }); });
afterAll(async () => { await s.close(); });

const CAPS_BASIC = { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID] } } };
/** Only the app catalogue, inline: a complete copy under its id (every app component, and Surfacer's Table) counts. */
const everyComponent = { ...Object.fromEntries(createGalleryApp().components!.list().map((c) => [c.name, {}])), Table: {} };
const CAPS_INLINE = {
  a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID], inlineCatalogs: [{ catalogId: GALLERY_CATALOG_ID, components: everyComponent }] } },
};

describe('A2A: the catalogue a message advertises', () => {
  it('the card lists the app catalogue in every A2UI extension, before the basic one', async () => {
    const card = await (await fetch(`${s.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json() as Record<string, any>;
    for (const extension of card.capabilities.extensions as Array<{ params: { supportedCatalogIds: string[]; acceptsInlineCatalogs: boolean } }>) {
      expect(extension.params.supportedCatalogIds[0]).toBe(GALLERY_CATALOG_ID);
      expect(extension.params.supportedCatalogIds).toHaveLength(2);
      expect(extension.params.acceptsInlineCatalogs).toBe(false);
    }
  });

  it('app catalogue named (by id, or inline whole) → the component; basic only → the fallback; the same action works from both', async () => {
    const client = await a2aClient(s.url);
    const outcomes: unknown[] = [];
    for (const [metadata, expected] of [[CAPS_BASIC, 'basic'], [CAPS_APP, 'app'], [CAPS_INLINE, 'app']] as const) {
      const task = await sendTask(client, userMessage([text('show the gallery')], { metadata }));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const { messages } = a2uiOf(task.status?.message);
      if (expected === 'app') {
        expect(catalogIdOf(messages)).toBe(GALLERY_CATALOG_ID);
        expect(componentTypes(messages)).toContain('CharacterGallery');
        // A client holding the served catalogue renders it with the official processor.
        const oracle = appOracle(await (await fetch(`${s.url}/a2ui/catalog/v0.9.json`)).json() as Record<string, unknown>);
        for (const message of messages) expect(offer(oracle, message)).toEqual({ ok: true });
      } else {
        expect(catalogIdOf(messages)).toBe(BASIC_CATALOG_ID);
        expect(componentTypes(messages)).not.toContain('CharacterGallery');
        const run = runBothV09(messages);
        expect(run.refused.map((i) => `${i}: ${run.reasons.get(i)}`)).toEqual([]);
        expect(errorIndexes(run.violations)).toEqual([]);
      }
      const action = itemAction(messages, 'aria');
      expect(action).toBeDefined();
      const answer = await sendTask(client, userMessage([a2uiData([{ version: 'v0.9', action: { ...action, timestamp: new Date().toISOString() } }])], { contextId: task.contextId, metadata }));
      expect(answer.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // The answer is compiled for the same client: its catalogue again.
      expect(componentTypes(a2uiOf(answer.status?.message).messages).includes('CharacterGallery')).toBe(expected === 'app');
      const ir = (await s.handle.conversations.get(task.contextId))!.ir;
      outcomes.push(findSurface(ir, 'main')?.data.draft.name);
    }
    expect(outcomes).toEqual(['Aria Nightingale', 'Aria Nightingale', 'Aria Nightingale']);
  });

  it('an inline catalogue under the app id that lacks a component is not the app catalogue', async () => {
    const client = await a2aClient(s.url);
    const partial = { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID], inlineCatalogs: [{ catalogId: GALLERY_CATALOG_ID, components: { Other: {} } }] } } };
    const task = await sendTask(client, userMessage([text('show the gallery')], { metadata: partial }));
    expect(catalogIdOf(a2uiOf(task.status?.message).messages)).toBe(BASIC_CATALOG_ID);
  });

  it('a client that names only the app catalogue still gets A2UI (the app catalogue holds the basic components)', async () => {
    const client = await a2aClient(s.url);
    const task = await sendTask(client, userMessage([text('show the gallery')], { metadata: { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [GALLERY_CATALOG_ID] } } } }));
    expect(catalogIdOf(a2uiOf(task.status?.message).messages)).toBe(GALLERY_CATALOG_ID);
  });
});
