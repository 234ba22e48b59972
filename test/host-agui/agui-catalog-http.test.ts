import type { BaseEvent } from '@ag-ui/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { offer } from '../support/a2ui-v0_9-oracle.ts';
import {
  appOracle, CAPS_APP, catalogIdOf, componentTypes, createGalleryApp, GALLERY_CATALOG_ID, itemAction,
} from '../support/component-app.ts';
import { AguiClient, startAgui, TOKEN_A, type AguiStack } from './support.ts';

/*
 * Catalogue negotiation over AG-UI (issue 22 item 3), with the official @ag-ui/client HttpAgent:
 * a run whose forwardedProps.a2uiClientCapabilities name the app catalogue gets the app's
 * component, any other run the fallback the official v0.9 processor renders; the item action of
 * either (forwardedProps.a2uiAction, as CopilotKit sends it) reaches the same handler.
 */
let s: AguiStack;
beforeAll(async () => { s = await startAgui({ app: createGalleryApp() }); });
afterAll(async () => { await s.close(); });

/** Every A2UI operation of the run's a2ui-surface activities, in order. */
function operations(events: readonly BaseEvent[]): Record<string, unknown>[] {
  return events.flatMap((e) => {
    const a = e as BaseEvent & { activityType?: string; content?: { a2ui_operations?: Record<string, unknown>[] }; patch?: Array<{ value?: Record<string, unknown> }> };
    if (a.activityType !== 'a2ui-surface') return [];
    return e.type === 'ACTIVITY_SNAPSHOT' ? a.content?.a2ui_operations ?? [] : (a.patch ?? []).flatMap((p) => (p.value === undefined ? [] : [p.value]));
  });
}

describe('AG-UI: the catalogue a run advertises', () => {
  it('basic (nothing advertised) → the fallback; the app catalogue → the component; the same action from both', async () => {
    const drafts: unknown[] = [];
    for (const forwarded of [{}, CAPS_APP]) {
      const client = new AguiClient(s.url, TOKEN_A);
      client.say('show the gallery', 'm1');
      const { events, error } = await client.run({ forwardedProps: forwarded });
      expect(error).toBeUndefined();
      const ops = operations(events);
      const app = forwarded !== CAPS_APP ? false : true;
      expect(catalogIdOf(ops)).toBe(app ? GALLERY_CATALOG_ID : BASIC_CATALOG_ID);
      expect(componentTypes(ops).includes('CharacterGallery')).toBe(app);
      // The basic client's operations all went through the official processor (AguiClient feeds them).
      if (!app) expect(client.refused).toEqual([]);
      else {
        const oracle = appOracle(await (await fetch(`${s.url}/a2ui/catalog/v0.9.json`)).json() as Record<string, unknown>);
        for (const op of ops) expect(offer(oracle, op)).toEqual({ ok: true });
      }
      const action = itemAction(ops, 'holloway');
      expect(action).toBeDefined();
      const next = await client.run({ forwardedProps: { ...forwarded, a2uiAction: { userAction: { ...action, timestamp: new Date().toISOString() } } } });
      expect(next.error).toBeUndefined();
      expect(next.events.some((e) => e.type === 'RUN_ERROR')).toBe(false);
      const ir = (await s.surfacer.conversations.get(client.threadId))!.ir;
      drafts.push(findSurface(ir, 'main')?.data.draft.name);
    }
    expect(drafts).toEqual(['Inspector Holloway', 'Inspector Holloway']);
  });

  it('capabilities that are junk read as nothing advertised: the fallback, never an error', async () => {
    for (const junk of ['v0.9', { 'v0.9': { supportedCatalogIds: 'all' } }, { 'v0.9': { inlineCatalogs: [{ catalogId: GALLERY_CATALOG_ID, components: [] }] } }]) {
      const client = new AguiClient(s.url, TOKEN_A);
      client.say('show the gallery', 'm1');
      const { events, error } = await client.run({ forwardedProps: { a2uiClientCapabilities: junk } });
      expect(error).toBeUndefined();
      expect(catalogIdOf(operations(events))).toBe(BASIC_CATALOG_ID);
    }
  });
});
