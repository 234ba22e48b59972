import { describe, expect, it } from 'vitest';
import {
  createDemoActionRegistry, createDemoApp, DEMO_TEMPLATES, draftKind, templateDraft, templateView,
} from '../../src/app/index.ts';
import { SurfaceView, walkBlocks, type Block } from '../../src/ui-ir/index.ts';

describe('demo templates', () => {
  it('has at least three real templates', () => {
    expect(DEMO_TEMPLATES.map((t) => t.name)).toEqual(['character_card', 'persona', 'scene_settings']);
  });

  it.each(DEMO_TEMPLATES.map((t) => [t.name, t] as const))('%s builds a valid view with typed defaults and saved values', (_n, t) => {
    const view = templateView(t);
    expect(SurfaceView.safeParse(view).error?.issues ?? []).toEqual([]);
    const blocks: Block[] = [];
    walkBlocks(view.blocks, (b) => blocks.push(b));
    const fieldNames = blocks.filter((b) => b.kind === 'field').map((b) => (b as { name: string }).name);
    expect(fieldNames).toEqual(t.fields.map((f) => f.name));
    const valuePaths = blocks.filter((b) => b.kind === 'value').map((b) => (b as { path: string }).path);
    expect(valuePaths).toEqual(t.fields.map((f) => `/committed/${f.name}`));
    const draft = templateDraft(t);
    expect(Object.keys(draft)).toEqual(fieldNames);
    for (const f of t.fields) {
      const kind = draftKind(f.control);
      expect(typeof draft[f.name], f.name).toBe(kind);
      if (f.default === undefined && kind === 'string') expect(draft[f.name]).toBe('');
      if (f.default === undefined && kind === 'number') expect(draft[f.name]).toBe(f.min ?? 0);
      if (kind === 'boolean') expect(draft[f.name]).toBe(false);
    }
    const actions = createDemoActionRegistry();
    for (const a of view.actions) expect(actions.resolve(a.name), a.name).toBeDefined();
  });

  it('covers the brief field by field', () => {
    const controls = Object.fromEntries(DEMO_TEMPLATES.flatMap((t) => t.fields.map((f) => [`${t.name}.${f.name}`, f.control])));
    expect(controls).toMatchObject({
      'character_card.personality': 'textarea', 'character_card.greeting': 'textarea', 'character_card.tags': 'tags',
      'character_card.avatar_url': 'url', 'character_card.visibility': 'select',
      'persona.pronouns': 'select', 'persona.bio': 'textarea', 'persona.speaking_style': 'select',
      'scene_settings.genre': 'select', 'scene_settings.tone': 'slider', 'scene_settings.response_length': 'select',
      'scene_settings.content_warnings': 'checkbox', 'scene_settings.scene_date': 'date',
    });
    const tone = DEMO_TEMPLATES[2]!.fields.find((f) => f.name === 'tone')!;
    expect([tone.min, tone.max]).toEqual([0, 10]);
  });

  it('createDemoApp wires registries and an honest offline planner', () => {
    const app = createDemoApp();
    expect(app.name).toMatch(/Roleplay/);
    expect(app.directives.definitions.map((d) => d.type)).toEqual([
      'ui.show_form', 'ui.ask', 'ui.toast', 'ui.patch', 'ui.request_upload', 'ui.close', 'ui.show_list', 'ui.list_add', 'ui.list_update', 'ui.list_remove', 'ui.show_component',
    ]);
    expect(app.actions.definitions.map((a) => a.name)).toEqual([
      'form.submit', 'form.cancel', 'ask.submit', 'ask.cancel', 'upload.submit', 'character.use', 'list.choose', 'list.remove',
    ]);
    expect(app.offlinePlanner.name).toBe('offline');
    expect(app.offlinePlanner.label.toLowerCase()).toContain('offline');
  });
});
