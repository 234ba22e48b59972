import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ComponentDefinitionError, createComponentRegistry, defineComponent, fallbackListOf } from '../../../src/app-kit/index.ts';
import { createListDirectives, LIST_ACTIONS } from '../../../src/collections/index.ts';
import { createDirectiveRegistry, runDirectives } from '../../../src/directives/index.ts';
import {
  compileConversationToA2ui, compileConversationToA2uiV09, type A2uiCompileResult, type A2uiV09CompileResult,
} from '../../../src/compiler/index.ts';
import { compileConversationToHtml } from '../../../src/compiler/html/index.ts';
import { createActionRegistry, checkIngress, type ActionRequest } from '../../../src/ingress/index.ts';
import {
  createSeededSource, draw, listItems, SurfaceView, type Block, type ComponentBlock, type ConversationIr,
} from '../../../src/ui-ir/index.ts';
import { feed as feedV09, newOracle } from '../../support/a2ui-v0_9-oracle.ts';
import { feed, newProcessor, silenceWc } from '../a2ui-v0_8/wc-oracle.ts';
import { Gauge, Scoreboard, TEST_CATALOG_ID, testComponents } from '../../support/components.ts';
import { checkComponentBlock } from '../../../src/compiler/components/index.ts';
import { GAUGE, irWith, SCORES } from './fixtures.ts';

beforeEach(() => {
  silenceWc();
  return () => { vi.restoreAllMocks(); };
});

const registry = testComponents();

/** The same IR with each component replaced as the contract says: an untitled column of its fallback. */
function expandedByHand(blocks: Block[]): Block[] {
  return blocks.map((b) => {
    if (b.kind !== 'component') return b;
    const def = registry.get(b.component)!;
    return { kind: 'group', layout: 'column', blocks: def.fallback({ block: b, props: def.props.parse(b.props) as never }) };
  });
}

const ok08 = (r: A2uiCompileResult) => { if (!r.ok) throw new Error(JSON.stringify(r.errors)); return r.batches; };
const ok09 = (r: A2uiV09CompileResult) => { if (!r.ok) throw new Error(JSON.stringify(r.errors)); return r.batches; };

describe('component blocks with the basic catalogue: compiled as their fallback', () => {
  const blocks: Block[] = [{ kind: 'heading', text: 'Top', level: 2 }, SCORES, GAUGE];
  const ir = irWith(blocks);
  const byHand = irWith(SurfaceView.parse({ template: 'scores', title: 'Scores', blocks: expandedByHand(blocks), actions: [] }).blocks);

  it('v0.8: the very messages of the hand-expanded IR, accepted by the official processor', () => {
    const batches = ok08(compileConversationToA2ui(ir, { components: { registry, catalog: 'basic' } }));
    expect(batches.map((b) => [b.recovery, b.errors])).toEqual([['none', []]]);
    expect(batches[0]!.messages).toEqual(ok08(compileConversationToA2ui(byHand))[0]!.messages);
    feed(newProcessor(), batches[0]!.messages);
  });

  it('v0.9: the very messages of the hand-expanded IR, accepted by the official processor', () => {
    const batches = ok09(compileConversationToA2uiV09(ir, { components: { registry, catalog: 'basic' } }));
    expect(batches.map((b) => [b.recovery, b.errors])).toEqual([['none', []]]);
    expect(batches[0]!.messages).toEqual(ok09(compileConversationToA2uiV09(byHand))[0]!.messages);
    feedV09(newOracle(), batches[0]!.messages);
  });

  it('no registry: the surface fails to its plain fallback with COMPILER_COMPONENT_UNKNOWN, never invalid A2UI', () => {
    const v08 = ok08(compileConversationToA2ui(ir));
    expect(v08[0]!.recovery).toBe('surface_fail');
    expect(v08[0]!.errors.map((e) => e.code)).toContain('COMPILER_COMPONENT_UNKNOWN');
    feed(newProcessor(), v08[0]!.messages);
    const v09 = ok09(compileConversationToA2uiV09(ir));
    expect(v09[0]!.recovery).toBe('surface_fail');
    expect(v09[0]!.errors.map((e) => e.code)).toContain('COMPILER_COMPONENT_UNKNOWN');
    feedV09(newOracle(), v09[0]!.messages);
  });

  it('strict mode reports the finding instead of recovering', () => {
    const r = compileConversationToA2uiV09(ir, { strict: true });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.code)).toEqual(['COMPILER_COMPONENT_UNKNOWN']);
  });
});

describe('component blocks checked against the app', () => {
  const codeOf = (block: ComponentBlock, reg = registry): string[] => {
    const batches = ok09(compileConversationToA2uiV09(irWith([block]), { components: { registry: reg, catalog: 'basic' } }));
    return batches[0]!.errors.map((e) => e.code);
  };

  it('an unknown component, an unknown or ill-typed property, a non-bindable binding', () => {
    expect(codeOf({ ...GAUGE, component: 'Nope' })).toEqual(['COMPILER_COMPONENT_UNKNOWN']);
    expect(codeOf({ ...GAUGE, props: { label: 'L', colour: 'red' } })).toEqual(['COMPILER_COMPONENT_PROPS_INVALID']);
    expect(codeOf({ ...GAUGE, props: { label: 7 } })).toEqual(['COMPILER_COMPONENT_PROPS_INVALID']);
    expect(codeOf({ ...GAUGE, bind: { max: '/committed/level' } })).toEqual(['COMPILER_COMPONENT_PROPS_INVALID']);
    expect(codeOf({ ...GAUGE, path: '/ui/scores' })).toEqual(['COMPILER_COMPONENT_PROPS_INVALID']);
    expect(codeOf(GAUGE)).toEqual([]);
  });

  it('the finding names the block\'s place whoever checked it first (the htmx page checks without one)', () => {
    const bad: ComponentBlock = { ...GAUGE, props: { label: 'L', colour: 'red' } };
    const ir = irWith([{ kind: 'heading', text: 'Top', level: 2 }, bad]);
    const pointers = () => ok09(compileConversationToA2uiV09(ir, { components: { registry, catalog: 'basic' } }))[0]!.errors.map((e) => [e.code, e.pointer]);
    // The htmx page renders (and checks) the very block first, as a server showing both pages does.
    expect(compileConversationToHtml(ir, { components: registry }).html).toContain('cannot be shown');
    expect(checkComponentBlock(ir.surfaces[0]!.view.blocks[1] as ComponentBlock, registry).ok).toBe(false);
    expect(pointers()).toEqual([['COMPILER_COMPONENT_PROPS_INVALID', '/view/blocks/1']]);
    const v08 = ok08(compileConversationToA2ui(ir, { components: { registry, catalog: 'app', catalogId: TEST_CATALOG_ID } }))[0]!;
    expect(v08.recovery).toBe('surface_fail');
    expect(v08.errors.map((e) => [e.code, e.pointer])).toEqual([['COMPILER_COMPONENT_PROPS_INVALID', '/view/blocks/1']]);
    // And a caller that knows no place gets none, not another caller's.
    expect(checkComponentBlock(ir.surfaces[0]!.view.blocks[1] as ComponentBlock, registry)).toMatchObject({ ok: false, error: { code: 'COMPILER_COMPONENT_PROPS_INVALID' } });
    expect(checkComponentBlock(ir.surfaces[0]!.view.blocks[1] as ComponentBlock, registry)).not.toHaveProperty('error.pointer');
  });

  it('a fallback that throws, holds an input, or loses the collection is refused', () => {
    const bad = (fallback: () => Block[]) => createComponentRegistry([{ ...Scoreboard, fallback } as never, Gauge]);
    const code = ['COMPILER_COMPONENT_FALLBACK_INVALID'];
    expect(codeOf(SCORES, bad(() => { throw new Error('boom'); }))).toEqual(code);
    expect(codeOf(SCORES, bad(() => [{ kind: 'field', name: 'x', label: 'X', control: 'text', required: false }]))).toEqual(code);
    expect(codeOf(SCORES, bad(() => [{ kind: 'text', text: 'no list', tone: 'body' }]))).toEqual(code);
    expect(codeOf(SCORES, bad(() => [{ ...Scoreboard.fallback({ block: SCORES, props: { sortable: true } })[0]!, name: 'other' } as Block]))).toEqual(code);
    expect(codeOf(SCORES, bad(() => [{ kind: 'component' } as never]))).toEqual(code);
  });
});

describe('HTML (contract slice): the fallback', () => {
  it('renders the fallback (escaped) with a registry, a note without one', () => {
    const ir = irWith([SCORES]);
    const withReg = compileConversationToHtml(ir, { components: registry }).html;
    expect(withReg).toContain('Bob &lt;b&gt;');
    expect(withReg).not.toContain('<b>');
    const without = compileConversationToHtml(ir).html;
    expect(without).toContain('This part of the panel cannot be shown.');
    expect(without).not.toContain('Ann');
  });
});

describe('ingress: a component collection is a list', () => {
  const actions = createActionRegistry(LIST_ACTIONS);
  const ir = irWith([SCORES]);
  const surface = ir.surfaces[0]!;
  const request = (context: Record<string, unknown>, action = 'list.choose'): ActionRequest => ({
    kind: 'action', transport: 'html', surfaceId: 'main', epoch: surface.epoch, nonce: surface.nonce, rev: surface.rev, action, context,
  });

  it('accepts an item it shows, with {list, item}; refuses unknown items and actions it does not offer', () => {
    const ok = checkIngress(request({ list: 'scores', item: 'bob' }), ir, actions);
    expect(ok.ok && ok.context).toEqual({ list: 'scores', item: 'bob' });
    const unknown = checkIngress(request({ list: 'scores', item: 'zed' }), ir, actions);
    expect(!unknown.ok && unknown.error.code).toBe('A2UI_C2S_ITEM_UNKNOWN');
    const notOffered = checkIngress(request({ list: 'scores', item: 'bob' }, 'list.remove'), ir, actions);
    expect(!notOffered.ok && notOffered.error.code).toBe('A2UI_C2S_ACTION_FORBIDDEN');
  });

  it('list.choose names the item by its first text', () => {
    const checked = checkIngress(request({ list: 'scores', item: 'ann' }), ir, actions);
    if (!checked.ok) throw new Error(checked.error.code);
    const out = checked.action.handle(ir, checked.surface, checked.context, draw(createSeededSource('h')));
    expect(out.ok && out.ir.transcript.at(-1)?.text).toBe('I choose “Ann” (ann) from Scores.');
  });
});

describe('defineComponent refuses what cannot work', () => {
  const base = { name: 'Card2', description: 'd', props: z.object({ a: z.string().optional() }), html: '<p><%= it.props.a %></p>', fallback: () => [] };
  it.each([
    ['a basic type', { name: 'Text' }],
    ['a lowercase name', { name: 'card' }],
    ['raw output', { html: '<%~ it.props.a %>' }],
    ['raw output with trim mark', { html: '<%- ~ it.props.a %>' }],
    ['a bindable required property', { props: z.object({ a: z.string() }), bindable: ['a'] }],
    ['a bindable non-property', { bindable: ['b'] }],
    ['a bad element tag', { element: { tag: 'nodash', module: './x.js' } }],
    ['no JSON Schema', { props: z.object({ a: z.date().optional() }) }],
  ])('%s', (_why, override) => {
    expect(() => defineComponent({ ...base, ...override } as never)).toThrow(/component/);
  });
  it('refuses a name used twice', () => {
    expect(() => createComponentRegistry([Gauge, Gauge])).toThrow(/twice/);
  });
});

describe('HTML with the app\'s components: each component\'s own template', () => {
  const ir = irWith([SCORES, GAUGE]);
  const html = compileConversationToHtml(ir, { components: registry, csrfToken: 'tok' }).html;

  it('renders the templates escaped, bound props read from data', () => {
    expect(html).toContain('<table class="scoreboard" id="surface-main-component-scores">');
    expect(html).toContain('<caption>Round one</caption>');
    expect(html).toContain('Bob &lt;b&gt;');
    expect(html).not.toContain('Bob <b>');
    expect(html).toContain('<meter min="0" max="100" value="3">3</meter>');
  });

  it('item buttons post through the item\'s own form with {list, item}, like a list\'s (no JavaScript)', () => {
    const form = /<form[^>]*id="surface-main-list-scores-item-bob-form"[^>]*>([\s\S]*?)<\/form>/.exec(html);
    expect(form).not.toBeNull();
    expect(form![1]).toContain('name="list" value="scores"');
    expect(form![1]).toContain('name="item" value="bob"');
    expect(html).toContain('<button type="submit" form="surface-main-list-scores-item-bob-form" name="_action" value="list.choose">Pick</button>');
  });

  it('a component the app refuses shows a note, the rest of the panel stays', () => {
    const out = compileConversationToHtml(irWith([{ ...GAUGE, component: 'Nope' }, SCORES]), { components: registry }).html;
    expect(out).toContain('This part of the panel cannot be shown.');
    expect(out).toContain('<caption>Round one</caption>');
  });
});

describe('the generic list directives write a component collection\'s items like a list\'s', () => {
  it('ui.list_add appends to the component\'s items (by its name), ui.list_remove removes one', () => {
    const directives = createDirectiveRegistry(createListDirectives({ itemActions: ['list.choose'], components: [Scoreboard] }));
    const source = createSeededSource('comp-directives');
    const ir = irWith([SCORES]);
    const added = runDirectives(directives, ir, { directives: [{ type: 'ui.list_add', payload: { list: 'scores', items: [{ id: 'cy', player: 'Cy', score: 4 }] } }] },
      { mode: 'strict', source });
    expect(added.errors).toEqual([]);
    const keys = (x: ConversationIr): string[] => {
      const s = x.surfaces[0]!;
      return listItems(s, { ...SCORES, path: SCORES.path! }).items.map((i) => i.key);
    };
    expect(keys(added.ir)).toEqual(['ann', 'bob', 'cy']);
    const removed = runDirectives(directives, added.ir, { directives: [{ type: 'ui.list_remove', payload: { list: 'scores', ids: ['ann'] } }] },
      { mode: 'strict', source });
    expect(removed.errors).toEqual([]);
    expect(keys(removed.ir)).toEqual(['bob', 'cy']);
  });
});

describe('fallbackListOf', () => {
  it('gives the list the fields of the collection block that item actions are checked by, and refuses a block that is no collection', () => {
    const actions = [{ name: 'list.choose', label: 'Pick' }];
    const block = { kind: 'component', component: 'Scoreboard', name: 'scores', props: {}, bind: {}, path: '/committed/scores', itemKey: 'player', actions, maxItems: 7 } as ComponentBlock;
    expect(fallbackListOf(block)).toEqual({ kind: 'list', name: 'scores', path: '/committed/scores', itemKey: 'player', maxItems: 7, actions });
    const single = { kind: 'component', component: 'Gauge', name: 'gauge', props: {}, bind: {}, itemKey: 'id', actions: [], maxItems: 25 } as ComponentBlock;
    expect(() => fallbackListOf(single)).toThrow(ComponentDefinitionError);
  });
});
