import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  a2uiBatchesToJsonl, compileConversationToA2ui, compileSurfaceToA2ui, GUARD_MARK, unguardA2uiString,
  unguardA2uiValue, validateA2uiMessages,
} from '../../../src/compiler/index.ts';
import { componentId } from '../../../src/compiler/a2ui-v0_8/ids.ts';
import { escapeMarkdown } from '../../../src/compiler/index.ts';
import { addToast, closeSurface, EMAIL_REGEX, URL_REGEX, type Block } from '../../../src/ui-ir/index.ts';
import { componentsOf, find, kinds, ok, only, open, view } from './fixtures.ts';
import { pathPlusLiteral, stringsEqualToIds } from './invariants.ts';
import { dataModelOf, feed, newProcessor, silenceWc } from './wc-oracle.ts';

beforeEach(silenceWc);
afterEach(() => { vi.restoreAllMocks(); });

describe('compileSurfaceToA2ui: full init', () => {
  const { ir } = open();
  const batch = only(compileSurfaceToA2ui(ir.surfaces[0]!));
  const m = batch.messages;

  it('emits surfaceUpdate → dataModelUpdate(s) → beginRendering under the epoch-encoded surface id', () => {
    expect(batch).toMatchObject({ surfaceId: 'main', a2uiSurfaceId: 'main--e0', kind: 'init', recovery: 'none', errors: [] });
    expect(kinds(m)).toEqual(['surfaceUpdate', 'dataModelUpdate', 'dataModelUpdate', 'dataModelUpdate', 'dataModelUpdate', 'beginRendering']);
    expect(m.every((x) => (Object.values(x)[0] as { surfaceId: string }).surfaceId === 'main--e0')).toBe(true);
    expect(m.at(-1)).toEqual({ beginRendering: { surfaceId: 'main--e0', root: 'main.root.Card' } });
    expect(validateA2uiMessages(m)).toEqual([]);
    expect(batch.stats).toMatchObject({ messages: 6, components: componentsOf(m).length });
    expect(a2uiBatchesToJsonl([batch]).split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual(m);
  });

  it('maps every control to its standard component', () => {
    // Ids follow componentId(surface, [blockKey, role?], Type): stableId parts ending in the type.
    expect(find(m, componentId('main', ['f-meet', 'label'], 'Text')).type).toBe('Text');
    const input = (name: string, type: string) => find(m, `main.f-${name}.${type}`).props;
    // v0.8's one pattern (the Lit renderer's HTML pattern): "required" as not blank; a length as a count.
    expect(input('name', 'TextField')).toEqual({
      label: { literalString: 'Name *' }, text: { path: '/draft/name' }, textFieldType: 'shortText', validationRegexp: '^(?:[\\s\\S]*\\S[\\s\\S]*)$',
    });
    expect(input('bio', 'TextField')).toMatchObject({ textFieldType: 'longText', validationRegexp: '^(?:[\\s\\S]{0,300})$' });
    expect(input('age', 'TextField')).toMatchObject({ textFieldType: 'number' });
    expect(input('pin', 'TextField')).toMatchObject({ textFieldType: 'obscured' });
    expect(input('born', 'TextField')).toMatchObject({ textFieldType: 'date' });
    expect(input('meet', 'DateTimeInput')).toEqual({ value: { path: '/draft/meet' }, enableDate: true, enableTime: true });
    expect(input('wake', 'DateTimeInput')).toEqual({ value: { path: '/draft/wake' }, enableDate: false, enableTime: true });
    expect(input('agree', 'CheckBox')).toEqual({ label: { literalString: 'I agree' }, value: { path: '/draft/agree' } });
    expect(input('cls', 'MultipleChoice')).toEqual({
      selections: { path: '/draft/cls' }, maxAllowedSelections: 1,
      options: [{ label: { literalString: 'Mage' }, value: 'mage' }, { label: { literalString: 'Rogue' }, value: 'rogue' }],
    });
    expect(input('skills', 'MultipleChoice')).not.toHaveProperty('maxAllowedSelections');
    expect(input('level', 'Slider')).toEqual({ label: { literalString: 'Level' }, value: { path: '/draft/level' }, minValue: 1, maxValue: 20 });
    expect(input('tags', 'TextField')).toMatchObject({ textFieldType: 'shortText' });
    expect(input('site', 'TextField')).toMatchObject({ textFieldType: 'shortText', validationRegexp: `^(?:${URL_REGEX})$` });
    expect(input('mail', 'TextField')).toMatchObject({ textFieldType: 'shortText', validationRegexp: `^(?:${EMAIL_REGEX})$` });
    // Components without a label property get a caption above them; help goes below.
    expect(find(m, 'main.f-cls.Column').props.children.explicitList).toEqual(['main.f-cls.label.Text', 'main.f-cls.MultipleChoice']);
    expect(find(m, 'main.f-mail.Column').props.children.explicitList).toEqual(['main.f-mail.TextField', 'main.f-mail.help.Text']);
    expect(find(m, 'main.f-mail.help.Text').props).toEqual({ text: { literalString: 'We never share it.' }, usageHint: 'caption' });
  });

  it('initialises every bound path with the type its component needs', () => {
    const draft = m.find((x) => 'dataModelUpdate' in x && x.dataModelUpdate.path === '/draft');
    expect(draft).toEqual({ dataModelUpdate: { surfaceId: 'main--e0', path: '/draft', contents: [
      { key: 'name', valueString: '' }, { key: 'bio', valueString: '' }, { key: 'age', valueString: '' },
      { key: 'pin', valueString: '' }, { key: 'born', valueString: '' }, { key: 'meet', valueString: '' },
      { key: 'wake', valueString: '' }, { key: 'agree', valueBoolean: false }, { key: 'cls', valueString: '' },
      { key: 'skills', valueString: '' }, { key: 'level', valueNumber: 1 }, { key: 'tags', valueString: '' },
      { key: 'site', valueString: '' }, { key: 'mail', valueString: '' },
    ] } });
  });

  it('gives every Button a child Text and a context with every field, the nonce and the rev', () => {
    const button = find(m, 'main.a0-form_submit.Button').props;
    expect(button.child).toBe('main.a0-form_submit.label.Text');
    expect(find(m, button.child).props).toEqual({ text: { literalString: 'Save' }, usageHint: 'body' });
    expect(button.primary).toBe(true);
    expect(button.action.name).toBe('form.submit');
    const context = button.action.context as { key: string; value: Record<string, unknown> }[];
    expect(context.slice(-2)).toEqual([
      { key: 'nonce', value: { literalString: ir.surfaces[0]!.nonce } },
      { key: 'rev', value: { literalString: '0' } },
    ]);
    expect(context.slice(0, -2)).toEqual(['name', 'bio', 'age', 'pin', 'born', 'meet', 'wake', 'agree', 'cls', 'skills', 'level', 'tags', 'site', 'mail']
      .map((key) => ({ key, value: { path: `/draft/${key}` } })));
    expect(find(m, 'main.a1-form_cancel.Button').props.action.context).toEqual(context);
  });

  it('renders headings, text, images, dividers, groups, value and upload blocks with standard components', () => {
    const blocks: Block[] = [
      { kind: 'heading', text: 'Stats', level: 1 },
      { kind: 'text', text: 'Small print', tone: 'caption' },
      { kind: 'divider' },
      { kind: 'image', url: 'https://example.com/a.png', alt: 'A' },
      { kind: 'group', title: 'Row', layout: 'row', blocks: [{ kind: 'text', text: 'x', tone: 'body' }] },
      { kind: 'group', layout: 'column', blocks: [] },
      { kind: 'value', label: 'Tags', path: '/committed/tags' },
      { kind: 'upload', name: 'portrait', label: 'Portrait', accept: ['image/*'], purpose: 'avatar', fallback: 'Send the portrait by mail.' },
    ];
    const s = open('main', view(blocks)).ir.surfaces[0]!;
    const out = only(compileSurfaceToA2ui({ ...s, data: { ...s.data, committed: { tags: ['a', 'b'] } } }));
    const msgs = out.messages;
    expect(find(msgs, 'main.title.Text').props).toEqual({ text: { literalString: 'Character' }, usageHint: 'h1' });
    expect(find(msgs, 'main.b0.Text').props.usageHint).toBe('h2');
    expect(find(msgs, 'main.b1.Text').props.usageHint).toBe('caption');
    expect(find(msgs, 'main.b2.Divider').props).toEqual({});
    expect(find(msgs, 'main.b3.Image').props).toEqual({ url: { literalString: 'https://example.com/a.png' }, altText: { literalString: 'A' }, fit: 'contain' });
    expect(find(msgs, 'main.b4.Column').props.children.explicitList).toEqual(['main.b4.title.Text', 'main.b4.items.Row']);
    expect(find(msgs, 'main.b5.Column').props.children.explicitList).toEqual([]);
    expect(find(msgs, 'main.b6.value.Text').props).toEqual({ text: { path: '/view/b6' }, usageHint: 'body' });
    expect(find(msgs, 'main.u-portrait.Text').props.text).toEqual({ literalString: 'Send the portrait by mail.' });
    expect(out.warnings.map((w) => w.code)).toContain('COMPILER_A2UI_UPLOAD_FALLBACK');
    // Committed arrays are map-encoded lists; the value block shows them joined.
    const processor = newProcessor();
    feed(processor, msgs);
    expect(dataModelOf(processor, 'main--e0')).toMatchObject({ committed: { tags: { 0: 'a', 1: 'b' } }, view: { b6: 'a, b' } });
  });

  it('shows the mirrored toast as a caption bound to /ui/toast/text', () => {
    const { ir: opened, draw } = open();
    const withToast = addToast(opened, { level: 'success', text: 'Saved!', surfaceId: 'main' }, draw());
    const msgs = only(compileSurfaceToA2ui(withToast.surfaces[0]!)).messages;
    expect(find(msgs, 'main.toast.Text').props).toEqual({ text: { path: '/ui/toast/text' }, usageHint: 'caption' });
    const processor = newProcessor();
    feed(processor, msgs);
    // Markdown-escaped like a literal Text ('!' is significant).
    expect(dataModelOf(processor, 'main--e0')).toMatchObject({ ui: { toast: { id: 'n1', level: 'success', text: 'Saved\\!' } } });
    expect(() => find(m, 'main.toast.Text')).toThrow();
  });

  it('Markdown-escapes data bound to a Text (toast, value blocks) but never /draft, which inputs send back', () => {
    const md = '**bold** [x](http://e) ![i](http://e/i.png)';
    const escaped = escapeMarkdown(md);
    expect(escaped).toBe('\\*\\*bold\\*\\* \\[x\\](http://e) \\!\\[i\\](http://e/i.png)');
    const { ir: opened, draw } = open('main', view([
      { kind: 'field', name: 'name', label: 'Name', control: 'text', required: false },
      { kind: 'value', label: 'Shown', path: '/draft/name' },
    ]), { name: md });
    const withToast = addToast(opened, { level: 'info', text: md, surfaceId: 'main' }, draw());
    const msgs = only(compileSurfaceToA2ui(withToast.surfaces[0]!)).messages;
    const processor = newProcessor();
    feed(processor, msgs);
    expect(dataModelOf(processor, 'main--e0')).toMatchObject({
      ui: { toast: { text: escaped } }, view: { b1: escaped }, draft: { name: md },
    });
    // Both Text components read only display paths; the TextField alone binds /draft.
    expect(find(msgs, 'main.toast.Text').props.text).toEqual({ path: '/ui/toast/text' });
    const textPaths = componentsOf(msgs).flatMap((c) => ('Text' in c.component ? [JSON.stringify(c.component.Text)] : []))
      .map((t) => (JSON.parse(t) as { text: { path?: string } }).text.path).filter((p) => p !== undefined);
    expect(textPaths.sort()).toEqual(['/ui/toast/text', '/view/b1']);
  });

  it('puts styles (font, primaryColor only) on beginRendering and drops an invalid colour', () => {
    const s = ir.surfaces[0]!;
    const styled = only(compileSurfaceToA2ui(s, { styles: { font: 'Inter', primaryColor: '#00BFFF' } }));
    expect(styled.messages.at(-1)).toEqual({ beginRendering: { surfaceId: 'main--e0', root: 'main.root.Card', styles: { font: 'Inter', primaryColor: '#00BFFF' } } });
    const bad = only(compileSurfaceToA2ui(s, { styles: { primaryColor: 'red' } }));
    expect(bad.messages.at(-1)).toEqual({ beginRendering: { surfaceId: 'main--e0', root: 'main.root.Card', styles: {} } });
    expect(bad.warnings.map((w) => w.code)).toContain('A2UI_S2C_STYLES_INVALID');
    expect(compileSurfaceToA2ui(s, { strict: true, styles: { primaryColor: 'red' } }).ok).toBe(false);
  });

  it('is deterministic: the same IR compiles to the same bytes', () => {
    expect(a2uiBatchesToJsonl(ok(compileConversationToA2ui(ir)))).toBe(a2uiBatchesToJsonl(ok(compileConversationToA2ui(structuredClone(ir)))));
  });

  it('skips deleted surfaces in a full compile and deletes them when compiled alone', () => {
    const { ir: opened, draw } = open();
    const closed = closeSurface(opened, 'main', draw());
    if (!closed.ok) throw new Error('close failed');
    expect(ok(compileConversationToA2ui(closed.ir))).toEqual([]);
    expect(only(compileSurfaceToA2ui(closed.ir.surfaces[0]!)).messages).toEqual([{ deleteSurface: { surfaceId: 'main--e0' } }]);
  });

  it('warns when a field name is a reserved context key and leaves it out of the context', () => {
    const s = open('main', view([{ kind: 'field', name: 'nonce', label: 'Nonce', control: 'text', required: false }])).ir.surfaces[0]!;
    const out = only(compileSurfaceToA2ui(s));
    expect(out.warnings.map((w) => w.code)).toContain('COMPILER_A2UI_CONTEXT_KEY_RESERVED');
    const context = find(out.messages, 'main.a0-form_submit.Button').props.action.context as { key: string }[];
    expect(context.map((c) => c.key)).toEqual(['nonce', 'rev']);
  });
});

describe('select and multiselect: MultipleChoice over a JSON-string array', () => {
  const blocks: Block[] = [
    { kind: 'field', name: 'cls', label: 'Class', control: 'select', required: false, options: [{ value: 'mage', label: 'Mage' }, { value: '[x]', label: 'Odd' }] },
    { kind: 'field', name: 'skills', label: 'Skills', control: 'multiselect', required: false, options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] },
    { kind: 'field', name: 'none', label: 'None', control: 'multiselect', required: false, options: [{ value: 'a', label: 'A' }] },
  ];

  it('stores real arrays in WC, which a click sends back as arrays', () => {
    const s = open('main', view(blocks), { cls: '[x]', skills: ['a', 'b'] }).ir.surfaces[0]!;
    const msgs = only(compileSurfaceToA2ui(s)).messages;
    const draft = msgs.find((x) => 'dataModelUpdate' in x && x.dataModelUpdate.path === '/draft')!;
    expect(draft).toMatchObject({ dataModelUpdate: { contents: [
      { key: 'cls', valueString: `["[x]${GUARD_MARK}"]` }, { key: 'skills', valueString: '["a","b"]' }, { key: 'none', valueString: '' },
    ] } });
    const processor = newProcessor();
    feed(processor, msgs);
    const data = dataModelOf(processor, 'main--e0') as { draft: Record<string, unknown> };
    expect(data.draft).toEqual({ cls: [`[x]${GUARD_MARK}`], skills: ['a', 'b'], none: '' });
    // The selected value equals the option value on the wire, and ingress recovers the IR value.
    expect(find(msgs, 'main.f-cls.MultipleChoice').props.options[1].value).toBe(`[x]${GUARD_MARK}`);
    expect(unguardA2uiValue(data.draft.cls)).toEqual(['[x]']);
    // A click resolves the context the way renderers do (a2ui-v0.8.md §5.2).
    const surface = processor.getSurfaces().get('main--e0')!;
    const button = findNode(surface.componentTree, 'main.a0-form_submit.Button');
    processor.setData(button, '/draft/skills', ['b'], 'main--e0');
    const context = Object.fromEntries((button.properties.action.context as { key: string; value: { path?: string; literalString?: string } }[])
      .map(({ key, value }) => [key, value.path !== undefined ? processor.getData(button, value.path, 'main--e0') : value.literalString]));
    expect(context).toMatchObject({ cls: [`[x]${GUARD_MARK}`], skills: ['b'], none: '', rev: '0' });
  });
});

describe('user text that looks like JSON or like an id', () => {
  it('survives WC as the same string (plus one invisible guard mark that ingress strips)', () => {
    const s = open('main', view([{ kind: 'field', name: 'name', label: 'main.root.Card', control: 'text', required: false }]),
      { name: '[1, 2]', note: ' {"a": 1} ', list: ['[]', '{}'] }).ir.surfaces[0]!;
    const msgs = only(compileSurfaceToA2ui(s)).messages;
    expect(find(msgs, 'main.f-name.TextField').props.label).toEqual({ literalString: `main.root.Card${GUARD_MARK}` });
    expect(stringsEqualToIds(msgs)).toEqual([]);
    const processor = newProcessor();
    feed(processor, msgs);
    const data = dataModelOf(processor, 'main--e0') as { draft: Record<string, any> };
    expect(data.draft.name).toBe(`[1, 2]${GUARD_MARK}`);
    expect(unguardA2uiString(data.draft.name)).toBe('[1, 2]');
    expect(unguardA2uiString(data.draft.note)).toBe(' {"a": 1} ');
    expect(unguardA2uiValue(data.draft.list)).toEqual({ 0: '[]', 1: '{}' });
    // The label is a string, not the root component WC would have swapped in.
    const tree = processor.getSurfaces().get('main--e0')!.componentTree!;
    expect(findNode(tree, 'main.f-name.TextField').properties.label).toEqual({ literalString: `main.root.Card${GUARD_MARK}` });
  });

  it('escapes Markdown in Text content so it shows as typed', () => {
    const s = open('main', view([{ kind: 'text', text: '*not bold* # [link](x)', tone: 'body' }])).ir.surfaces[0]!;
    const msgs = only(compileSurfaceToA2ui(s)).messages;
    expect(find(msgs, 'main.b0.Text').props.text).toEqual({ literalString: '\\*not bold\\* \\# \\[link\\](x)' });
  });
});

describe('never path + literal', () => {
  it('binds inputs by path only and initialises through dataModelUpdate', () => {
    const { ir } = open();
    const msgs = ok(compileConversationToA2ui(ir)).flatMap((b) => b.messages);
    expect(pathPlusLiteral(msgs)).toEqual([]);
  });
});

// Walks WC's resolved tree.
function findNode(node: any, id: string): any {
  if (!node || typeof node !== 'object') return undefined;
  if (node.id === id) return node;
  for (const v of Object.values(node.properties ?? {})) {
    const list = Array.isArray(v) ? v : [v];
    for (const child of list) {
      const hit = findNode(child, id);
      if (hit) return hit;
    }
  }
  return undefined;
}
