import { BASIC_FUNCTIONS, Catalog, MessageProcessor } from '@a2ui/web_core/v0_9';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createComponentRegistry, defineComponent } from '../../../src/app-kit/index.ts';
import { appCatalogV09 } from '../../../src/compiler/components/index.ts';
import { compileConversationToHtml } from '../../../src/compiler/html/index.ts';
import { compileConversationToA2ui, compileConversationToA2uiV09 } from '../../../src/compiler/index.ts';
import {
  createSeededSource, draw, emptyConversation, openSurface, SurfaceView, type ComponentBlock, type ConversationIr, type DataMap, type DataValue,
} from '../../../src/ui-ir/index.ts';
import { feed, renderedTree, type Oracle } from '../../support/a2ui-v0_9-oracle.ts';
import { arbDataValue } from '../../support/arbitraries-ir.ts';
import { dataModelOf, feed as feedV08, newProcessor } from '../a2ui-v0_8/wc-oracle.ts';

/*
 * Bound properties reach an app component's HTML template only when they pass the property's
 * own zod schema (review finding: they were copied from surface data unchecked, so an https-only
 * link rendered `javascript:` URLs the model wrote under /ui, and a number where text was
 * expected made the template throw).
 */

const LinkCard = defineComponent({
  name: 'LinkCard',
  description: 'A link with a label.',
  props: z.object({
    href: z.string().regex(/^https:\/\//).optional(),
    label: z.string().min(1).max(40).optional(),
  }),
  bindable: ['href', 'label'],
  html: '<a class="link" href="<%= it.props.href ?? "#" %>"><%= it.props.label === undefined ? "no label" : it.props.label.toUpperCase() %></a>',
  fallback: () => [],
});

/** One bindable property per kind of schema, and a template that shows every prop it was given. */
const Probe = defineComponent({
  name: 'Probe',
  description: 'Shows what its template receives.',
  props: z.object({
    url: z.string().regex(/^https:\/\//).max(200).optional(),
    count: z.number().int().min(0).max(10).optional(),
    tone: z.enum(['calm', 'loud']).optional(),
    on: z.boolean().optional(),
    tags: z.array(z.string().max(8)).max(3).optional(),
  }),
  bindable: ['url', 'count', 'tone', 'on', 'tags'],
  html: '<pre class="probe"><%= JSON.stringify(it.props) %></pre>',
  fallback: () => [],
});

const registry = createComponentRegistry([LinkCard, Probe]);
const CATALOG_ID = 'https://example.com/links/catalog.json';

function irWith(block: ComponentBlock, committed: DataMap, ui: DataMap): ConversationIr {
  const view = SurfaceView.parse({ template: 't', title: 'T', blocks: [block], actions: [] });
  const ir = openSurface(emptyConversation('c1'), { id: 'main', view, ui }, draw(createSeededSource('bound')));
  const surface = ir.surfaces[0]!;
  return { ...ir, surfaces: [{ ...surface, data: { ...surface.data, committed } }] };
}

const link = (bind: Record<string, string>): ComponentBlock => ({
  kind: 'component', component: 'LinkCard', name: 'link', props: {}, bind, itemKey: 'id', actions: [], maxItems: 25,
});

const html = (ir: ConversationIr): string => compileConversationToHtml(ir, { components: registry }).html;

describe('HTML: a bound value reaches the template only if it passes the property\'s schema', () => {
  it('a javascript: URL in committed data is left out (the template sees no href)', () => {
    const out = html(irWith(link({ href: '/committed/url', label: '/committed/label' }), { url: 'javascript:alert(document.cookie)', label: 'Docs' }, {}));
    expect(out).not.toContain('javascript:');
    expect(out).toContain('<a class="link" href="#">DOCS</a>');
  });

  it('the same from /ui, which the model writes', () => {
    const out = html(irWith(link({ href: '/ui/url' }), {}, { url: 'javascript:alert(1)' }));
    expect(out).not.toContain('javascript:');
    expect(out).toContain('<a class="link" href="#">no label</a>');
  });

  it('a value of the wrong type is left out instead of making the template throw', () => {
    const out = html(irWith(link({ label: '/committed/label' }), { label: 42 }, {}));
    expect(out).toContain('<a class="link" href="#">no label</a>');
    expect(out).not.toContain('cannot be shown');
  });

  it('a value that passes is shown', () => {
    const out = html(irWith(link({ href: '/committed/url', label: '/ui/label' }), { url: 'https://example.com/a?b=1&c=2' }, { label: 'Docs' }));
    expect(out).toContain('<a class="link" href="https://example.com/a?b=1&amp;c=2">DOCS</a>');
  });
});

const unescape = (s: string): string => s.replace(/&quot;/g, '"').replace(/&#39;/g, '\'').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('property: no bound value that fails its schema reaches a template or an element', () => {
  const keys = Object.keys(Probe.props.shape) as Array<keyof typeof Probe.props.shape>;
  // Values of every shape, and near misses of each schema.
  const arbValue: fc.Arbitrary<DataValue> = fc.oneof(
    arbDataValue(2),
    fc.constantFrom<DataValue>('https://ok.example', 'javascript:alert(1)', 'HTTPS://x', 3, 11, -1, 2.5, 'calm', 'quiet', true, ['a', 'b'], ['toolongtag'], ['a', 'b', 'c', 'd']),
  );
  it('what the template gets is exactly the bound values that pass, each as its schema gives it', () => {
    fc.assert(fc.property(fc.dictionary(fc.constantFrom(...keys), arbValue, { maxKeys: keys.length }), fc.boolean(), (values, underUi) => {
      const bind = Object.fromEntries(Object.keys(values).map((k) => [k, `/${underUi ? 'ui' : 'committed'}/${k}`]));
      const block: ComponentBlock = { kind: 'component', component: 'Probe', name: 'probe', props: {}, bind, itemKey: 'id', actions: [], maxItems: 25 };
      const out = html(irWith(block, underUi ? {} : values, underUi ? values : {}));
      const shown = /<pre class="probe">([\s\S]*?)<\/pre>/.exec(out);
      expect(shown).not.toBeNull();
      const props = JSON.parse(unescape(shown![1]!)) as Record<string, unknown>;
      const expected: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(values)) if (Probe.props.shape[k as keyof typeof Probe.props.shape].safeParse(v).success) expected[k] = v;
      // As JSON carries them (the page's JSON and the A2UI wire write -0 as 0).
      const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;
      expect(props).toEqual(wire(expected));
      // The A2UI pages read the same checked values (v0.9's data model under /view).
      const r = compileConversationToA2uiV09(irWith(block, underUi ? {} : values, underUi ? values : {}), { components: { registry, catalog: 'app', catalogId: CATALOG_ID } });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const model = r.batches.flatMap((b) => b.messages).flatMap((m) => ('updateDataModel' in m ? [m.updateDataModel.value] : []))[0] as { view: Record<string, { bound?: unknown }> };
      expect(wire(model.view['c-probe']?.bound ?? {})).toEqual(wire(expected));
    }), { numRuns: 150 });
  });
});

describe('A2UI with the app catalogue: a bound property reads the checked copy under /view', () => {
  const hostile = () => irWith(link({ href: '/ui/url', label: '/committed/label' }), { label: 'Docs' }, { url: 'javascript:alert(1)' });

  it('v0.9: the component binds /view/c-<name>/bound/<prop>, which holds only what passes; the official renderer resolves no href', () => {
    const r = compileConversationToA2uiV09(hostile(), { components: { registry, catalog: 'app', catalogId: CATALOG_ID } });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const messages = r.batches.flatMap((b) => b.messages);
    const component = messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components : [])).find((c) => c.component === 'LinkCard');
    expect(component).toMatchObject({ href: { path: '/view/c-link/bound/href' }, label: { path: '/view/c-link/bound/label' } });
    const model = messages.flatMap((m) => ('updateDataModel' in m ? [m.updateDataModel.value] : []))[0] as { view: Record<string, unknown> };
    expect(model.view['c-link']).toEqual({ bound: { label: 'Docs' } });
    // What the official renderer hands the element: the bindings resolved against the data model.
    const loaded = Catalog.fromSchema(JSON.parse(JSON.stringify(appCatalogV09(registry, CATALOG_ID))));
    const catalog = new Catalog(CATALOG_ID, [...loaded.components.values()], BASIC_FUNCTIONS);
    const oracle: Oracle = { processor: new MessageProcessor([catalog], () => {}), catalog, actions: [] };
    feed(oracle, messages);
    const tree = JSON.stringify(renderedTree(oracle, 'main--e0'));
    expect(tree).toContain('"label":"Docs"');
    expect(tree).not.toContain('javascript:');
  });

  it('v0.8: the same paths; /view holds only what passes', () => {
    const r = compileConversationToA2ui(hostile(), { components: { registry, catalog: 'app', catalogId: CATALOG_ID } });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const messages = r.batches.flatMap((b) => b.messages);
    const component = messages.flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components : [])).find((c) => 'LinkCard' in (c.component as object));
    expect(component!.component).toEqual({ LinkCard: { href: { path: '/view/c-link/bound/href' }, label: { path: '/view/c-link/bound/label' } } });
    const processor = newProcessor();
    feedV08(processor, messages);
    const data = dataModelOf(processor, 'main--e0') as { view: Record<string, unknown> };
    expect(data.view['c-link']).toEqual({ bound: { label: 'Docs' } });
  });
});
