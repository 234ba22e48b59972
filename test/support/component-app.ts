import { BASIC_FUNCTIONS, Catalog, MessageProcessor } from '@a2ui/web_core/v0_9';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { z } from 'zod';
import { createComponentRegistry, defineComponent, fallbackListOf } from '../../src/app-kit/index.ts';
import { createDemoApp, DEMO_ITEM_ACTIONS, SAMPLE_CHARACTERS } from '../../src/app/index.ts';
import { createComponentDirective, createListDirectives } from '../../src/collections/index.ts';
import type { AppDefinition } from '../../src/conversation/index.ts';
import { createDirectiveRegistry } from '../../src/directives/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import type { Oracle } from './a2ui-v0_9-oracle.ts';

/*
 * The demo app with one component of its own, for the negotiation tests: a `CharacterGallery`
 * showing characters (a collection, with the demo's item action "character.use" on each), its
 * fallback the list of the same name, and an offline planner that places it on "show the
 * gallery" with ui.show_component, exactly as a model would.
 */

export const GALLERY_CATALOG_ID = 'https://surfacer.test/catalogs/gallery/v1/catalog.json';
export const GALLERY_SURFACE = 'gallery';
export const GALLERY_NAME = 'characters';

/** The a2uiClientCapabilities of a v0.9 client that loaded the app catalogue (and the basic one). */
export const CAPS_APP = { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID, GALLERY_CATALOG_ID] } } };

export const CharacterGallery = defineComponent({
  name: 'CharacterGallery',
  description: 'A gallery of characters, one portrait card each',
  props: z.object({ heading: z.string().min(1).max(120).describe('shown above the cards'), columns: z.number().int().min(1).max(4).optional() }),
  item: z.object({ name: z.string().min(1).max(120), tagline: z.string().max(300).optional() }),
  html: '<section class="gallery"><h3><%= it.props.heading %></h3><ul><% it.items.forEach(function (item) { %><li><%= item.value.name %></li><% }) %></ul></section>',
  fallback: ({ block, props }) => [
    { kind: 'heading', text: props.heading, level: 3 },
    {
      ...fallbackListOf(block),
      display: [{ kind: 'text', field: 'name', style: 'title' }, { kind: 'text', field: 'tagline', style: 'body' }], empty: 'No characters.',
    },
  ],
});

/** The directive a model would write to show the gallery. */
export const SHOW_GALLERY = {
  type: 'ui.show_component',
  payload: {
    surface: GALLERY_SURFACE, title: 'Characters', component: 'CharacterGallery', name: GALLERY_NAME,
    props: { heading: 'Pick a character' },
    items: SAMPLE_CHARACTERS.map((c) => ({ id: c.id, name: c.name, tagline: c.tagline })),
    actions: [{ name: 'character.use', label: 'Use this one', primary: true }],
  },
};

function galleryPlanner(offline: Planner): Planner {
  return {
    name: 'offline', label: offline.label,
    plan(input, signal) {
      if (!/gallery/i.test(input.text)) return offline.plan(input, signal);
      return Promise.resolve({ rawText: JSON.stringify({ directives: [SHOW_GALLERY], assistant_text: 'Here is the gallery.' }), provider: 'offline', llmMs: 0 });
    },
  };
}

export function createGalleryApp(): AppDefinition {
  const demo = createDemoApp();
  const directive = createComponentDirective({ components: [CharacterGallery], itemActions: DEMO_ITEM_ACTIONS })!;
  // The list directives check items written to the gallery with its item schema.
  const lists = createListDirectives({ itemActions: DEMO_ITEM_ACTIONS, components: [CharacterGallery] });
  const replaced = new Set([directive.type, ...lists.map((d) => d.type)]);
  const app: AppDefinition = {
    ...demo,
    // The demo's directives, its own ui.show_component and list directives replaced by the gallery's.
    directives: createDirectiveRegistry([...demo.directives.definitions.filter((d) => !replaced.has(d.type)), directive, ...lists]),
    offlinePlanner: galleryPlanner(demo.offlinePlanner),
    components: createComponentRegistry([CharacterGallery]),
    catalog: { id: GALLERY_CATALOG_ID },
  };
  return app;
}

/**
 * The v0.9 action a renderer sends for item `key`'s "character.use" button: found in the
 * stream's components wherever the compiler put it (a Button of the fallback list's template, or
 * the component's own `itemActions`), its context as the renderer resolves it: literals as they
 * are, and the one binding relative to the item (the item's key: `id` in the list's template,
 * `key` in the component's items) as that key.
 */
export function itemAction(messages: readonly Record<string, unknown>[], key: string): Record<string, unknown> | undefined {
  const surfaceId = (messages.find((m) => m.createSurface !== undefined)!.createSurface as { surfaceId: string }).surfaceId;
  let found: Record<string, unknown> | undefined;
  const visit = (node: unknown, componentId: string | undefined): void => {
    if (node === null || typeof node !== 'object') return;
    const obj = node as Record<string, unknown>;
    const event = (obj.action as { event?: { name?: string; context?: Record<string, unknown> } } | undefined)?.event;
    const id = typeof obj.id === 'string' ? obj.id : componentId;
    if (found === undefined && event?.name === 'character.use') {
      const context = Object.fromEntries(Object.entries(event.context ?? {}).map(([k, v]) => [k, isPath(v) ? key : v]));
      found = { name: event.name, surfaceId, sourceComponentId: id, context };
    }
    for (const value of Object.values(obj)) visit(value, id);
  };
  visit(messages, undefined);
  return found;
}

/** The component type of every component of v0.9 messages' updateComponents, in order. */
export const componentTypes = (messages: readonly Record<string, unknown>[]): unknown[] =>
  messages.flatMap((m) => ((m.updateComponents as { components?: Array<{ component?: unknown }> } | undefined)?.components ?? []).map((x) => x.component));

/** The catalogId of the first createSurface of v0.9 messages. */
export const catalogIdOf = (messages: readonly Record<string, unknown>[]): unknown =>
  (messages.find((m) => m.createSurface !== undefined)?.createSurface as { catalogId?: unknown } | undefined)?.catalogId;

const isPath = (v: unknown): boolean => v !== null && typeof v === 'object' && typeof (v as { path?: unknown }).path === 'string';

/** The official v0.9 processor holding only the app catalogue a client loaded (its functions the basic ones). */
export function appOracle(document: Record<string, unknown>): Oracle {
  const loaded = Catalog.fromSchema(document as never);
  const catalog = new Catalog(GALLERY_CATALOG_ID, [...loaded.components.values()], BASIC_FUNCTIONS);
  const actions: unknown[] = [];
  return { processor: new MessageProcessor([catalog], (a) => { actions.push(a); }), catalog, actions };
}
