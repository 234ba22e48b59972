import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createClientSim } from '../../../src/clientsim/index.ts';
import { appCatalogSpecV08, appCatalogV08 } from '../../../src/compiler/components/index.ts';
import { compileConversationToA2ui, validateA2uiMessages, type A2uiMessage } from '../../../src/compiler/index.ts';
import { TEST_CATALOG_ID, testComponents } from '../../support/components.ts';
import { feed, newProcessor, silenceWc } from '../a2ui-v0_8/wc-oracle.ts';
import { GAUGE, irWith, SCORES } from './fixtures.ts';

beforeEach(() => {
  silenceWc();
  return () => { vi.restoreAllMocks(); };
});

const registry = testComponents();
const app = { components: { registry, catalog: 'app' as const, catalogId: TEST_CATALOG_ID } };
const spec = appCatalogSpecV08(registry, TEST_CATALOG_ID);
const componentsOf = (messages: readonly A2uiMessage[]) => messages.flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components : []));

describe('v0.8 with the app catalogue: the custom components themselves', () => {
  const ir = irWith([{ kind: 'heading', text: 'Top', level: 2 }, SCORES, GAUGE]);
  const r = compileConversationToA2ui(ir, app);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  const messages = r.batches.flatMap((b) => b.messages);

  it('compiles without findings; beginRendering names the app catalogue; the component is a one-key wrapper of BoundValues', () => {
    expect(r.batches.map((b) => [b.recovery, b.errors])).toEqual([['none', []]]);
    const begin = messages.find((m) => 'beginRendering' in m) as { beginRendering: { catalogId?: string } };
    expect(begin.beginRendering.catalogId).toBe(TEST_CATALOG_ID);
    const surface = ir.surfaces[0]!;
    expect(componentsOf(messages).find((c) => c.id === 'main.c-scores.Scoreboard')).toEqual({
      id: 'main.c-scores.Scoreboard',
      component: {
        Scoreboard: {
          title: { literalString: 'Round one' }, sortable: { literalBoolean: true },
          items: { path: '/view/c-scores/items' }, note: { path: '/view/c-scores/note' },
          itemActions: [{
            label: { literalString: 'Pick' }, primary: false,
            action: {
              name: 'list.choose',
              context: [
                { key: 'list', value: { literalString: 'scores' } }, { key: 'item', value: { path: 'key' } },
                { key: 'nonce', value: { literalString: surface.nonce } }, { key: 'rev', value: { literalString: String(surface.rev) } },
              ],
            },
          }],
        },
      },
    });
    expect(componentsOf(messages).find((c) => c.id === 'main.c-level.Gauge')!.component).toEqual({
      Gauge: { label: { literalString: 'Level' }, max: { literalNumber: 100 }, value: { path: '/view/c-level/bound/value' } },
    });
  });

  it('the official v0.8 processor accepts the stream; our validator with the app catalogue agrees, without it refuses the types', () => {
    feed(newProcessor(), messages);
    expect(validateA2uiMessages(messages, { appCatalog: spec })).toEqual([]);
    expect(validateA2uiMessages(messages).map((v) => v.code)).toContain('A2UI_S2C_COMPONENT_NOT_ALLOWED');
  });

  it('ClientSim v0.8 with the app catalogue validates the components by schema; without it they are unknown types', () => {
    expect(createClientSim({ appCatalog: spec }).applyAll(messages)).toEqual([]);
    expect(createClientSim().applyAll(messages).map((v) => v.code)).toEqual(expect.arrayContaining(['CLIENTSIM_UNKNOWN_COMPONENT_TYPE', 'CLIENTSIM_CATALOG_UNKNOWN']));
    const bad = messages.map((m) => ('surfaceUpdate' in m
      ? { surfaceUpdate: { ...m.surfaceUpdate, components: m.surfaceUpdate.components.map((c) => (c.id === 'main.c-level.Gauge' ? { ...c, component: { Gauge: { label: { literalNumber: 1 } } } } : c)) } }
      : m));
    expect(createClientSim({ appCatalog: spec }).applyAll(bad).map((v) => v.code)).toContain('CLIENTSIM_FIELD_INVALID');
  });

  it('an item action is the very action the fallback list item\'s Button carries', () => {
    const basic = compileConversationToA2ui(ir, { components: { registry, catalog: 'basic' } });
    if (!basic.ok) throw new Error('basic');
    const button = componentsOf(basic.batches[0]!.messages).find((c) => {
      const b = (c.component as Record<string, { action?: { name: string } }>).Button;
      return b?.action?.name === 'list.choose';
    })!;
    const custom = componentsOf(messages).find((c) => c.id === 'main.c-scores.Scoreboard')!.component as { Scoreboard: { itemActions: Array<{ action: unknown }> } };
    expect(custom.Scoreboard.itemActions[0]!.action).toEqual((button.component as { Button: { action: unknown } }).Button.action);
  });

  it('unknown, ill-typed and wrongly bound properties are findings', () => {
    const patched = (patch: Record<string, unknown>): A2uiMessage[] => messages.map((m) => ('surfaceUpdate' in m
      ? { surfaceUpdate: { ...m.surfaceUpdate, components: m.surfaceUpdate.components.map((c) => (c.id === 'main.c-level.Gauge' ? { ...c, component: { Gauge: { ...(c.component as { Gauge: object }).Gauge, ...patch } } } : c)) } }
      : m));
    for (const patch of [{ colour: { literalString: 'red' } }, { label: { literalNumber: 5 } }, { max: { path: '/committed/level' } }, { max: { literalNumber: -1 } }]) {
      expect(validateA2uiMessages(patched(patch), { appCatalog: spec }).map((v) => v.code), JSON.stringify(patch)).toContain('A2UI_S2C_SCHEMA_INVALID');
    }
  });
});

describe('the v0.8 app catalogue document', () => {
  const document = appCatalogV08(registry, TEST_CATALOG_ID);
  const official = JSON.parse(readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('@a2ui/web_core/v0_8')),
    'schemas', 'standard_catalog_definition.json'), 'utf8')) as { components: Record<string, { properties: Record<string, unknown>; required?: string[] }> };

  it('holds the official standard components (same names, required lists, properties we know among theirs) and the app\'s', () => {
    expect(Object.keys(document.components)).toEqual([...Object.keys(official.components), 'Scoreboard', 'Gauge']);
    for (const [type, schema] of Object.entries(official.components)) {
      const ours = document.components[type] as { properties: Record<string, unknown>; required: string[] };
      expect([...ours.required].sort(), type).toEqual([...(schema.required ?? [])].sort());
      for (const name of Object.keys(ours.properties)) expect(Object.keys(schema.properties), `${type}.${name}`).toContain(name);
    }
    expect(document.catalogId).toBe(TEST_CATALOG_ID);
  });

  it('an app component\'s entry is the JSON Schema of its v0.8 encoding', () => {
    const gauge = document.components.Gauge as { properties: Record<string, { anyOf?: unknown[] }>; required: string[]; additionalProperties: boolean };
    expect(gauge.required).toEqual(['label']);
    expect(gauge.additionalProperties).toBe(false);
    expect(Object.keys(gauge.properties).sort()).toEqual(['label', 'max', 'value']);
    expect(gauge.properties.value!.anyOf).toHaveLength(2); // a literalNumber, or a {path} (bindable)
    const board = document.components.Scoreboard as { properties: Record<string, unknown> };
    expect(Object.keys(board.properties)).toEqual(expect.arrayContaining(['items', 'note', 'itemActions']));
  });
});
