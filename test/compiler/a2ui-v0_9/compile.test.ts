import { describe, expect, it } from 'vitest';
import {
  compileA2uiV09Update, compileConversationToA2uiV09, compileSurfaceToA2uiV09, validateA2uiV09Messages,
} from '../../../src/compiler/index.ts';
import { closeSurface, commitSurface, patchSurfaceData, resetSurfaceEpoch, URL_REGEX, type Block } from '../../../src/ui-ir/index.ts';
import { feed, newOracle, officialClick, renderedTree } from '../../support/a2ui-v0_9-oracle.ts';
import { FIELDS, find, kinds, modelOf, ok, only, open, view } from './fixtures.ts';

const CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

describe('v0.9 full init', () => {
  it('is createSurface (basic catalogue) → updateComponents (root first, id "root") → one updateDataModel of the whole model', () => {
    const { ir } = open();
    const batch = only(compileConversationToA2uiV09(ir));
    expect(batch).toMatchObject({ kind: 'init', a2uiSurfaceId: 'main--e0', recovery: 'none', errors: [] });
    expect(kinds(batch.messages)).toEqual(['createSurface', 'updateComponents', 'updateDataModel']);
    expect(batch.messages[0]).toEqual({ version: 'v0.9', createSurface: { surfaceId: 'main--e0', catalogId: CATALOG } });
    const components = 'updateComponents' in batch.messages[1]! ? batch.messages[1].updateComponents.components : [];
    expect(components[0]).toEqual({ id: 'root', component: 'Card', child: 'main.body.Column' });
    expect(Object.keys(modelOf(batch.messages))).toEqual(['draft', 'committed', 'ui', 'view']);
    expect(validateA2uiV09Messages(batch.messages)).toEqual([]);
    feed(newOracle(), batch.messages);
  });

  it('carries "v0.9.1" when asked', () => {
    const batch = only(compileConversationToA2uiV09(open().ir, { version: 'v0.9.1' }));
    expect(batch.messages.every((m) => m.version === 'v0.9.1')).toBe(true);
    feed(newOracle(), batch.messages);
  });

  it('maps every control to a labelled basic-catalogue input bound to /draft/<name>', () => {
    const { messages } = only(compileConversationToA2uiV09(open().ir));
    expect(find(messages, 'main.f-name.TextField')).toMatchObject({ label: 'Name *', value: { path: '/draft/name' }, variant: 'shortText' });
    // Its rule goes as a check the official renderers evaluate (validationRegexp, which none reads, no more).
    const bio = find(messages, 'main.f-bio.TextField') as Record<string, unknown>;
    expect(bio).toMatchObject({ variant: 'longText', checks: [{ condition: { call: 'length', args: { value: { call: 'formatString', args: { value: '${/draft/bio}' } }, max: 300 } } }] });
    expect(bio).not.toHaveProperty('validationRegexp');
    expect(find(messages, 'main.f-age.TextField')).toMatchObject({ variant: 'number' });
    expect(find(messages, 'main.f-pin.TextField')).toMatchObject({ variant: 'obscured' });
    expect(find(messages, 'main.f-born.DateTimeInput')).toMatchObject({ label: 'Born', enableDate: true, enableTime: false });
    expect(find(messages, 'main.f-meet.DateTimeInput')).toMatchObject({ enableDate: true, enableTime: true });
    expect(find(messages, 'main.f-wake.DateTimeInput')).toMatchObject({ enableDate: false, enableTime: true });
    expect(find(messages, 'main.f-agree.CheckBox')).toEqual({ id: 'main.f-agree.CheckBox', component: 'CheckBox', label: 'I agree', value: { path: '/draft/agree' } });
    expect(find(messages, 'main.f-cls.ChoicePicker')).toMatchObject({
      variant: 'mutuallyExclusive', options: [{ label: 'Mage', value: 'mage' }, { label: 'Rogue', value: 'rogue' }], value: { path: '/draft/cls' },
    });
    expect(find(messages, 'main.f-skills.ChoicePicker')).toMatchObject({ variant: 'multipleSelection' });
    expect(find(messages, 'main.f-level.Slider')).toMatchObject({ min: 1, max: 20, value: { path: '/draft/level' } });
    expect(find(messages, 'main.f-site.TextField')).toMatchObject({
      checks: [{ condition: { call: 'regex', args: { value: { call: 'formatString', args: { value: '${/draft/site}' } }, pattern: `^(?:|(?:${URL_REGEX}))$` } }, message: 'Site must be a link starting with http:// or https://.' }],
    });
    expect(find(messages, 'main.f-mail.Column')).toMatchObject({ children: ['main.f-mail.TextField', 'main.f-mail.help.Text'] });
  });

  it('writes each field the type its input writes; arrays stay arrays', () => {
    const s = open('main', view(), { name: 'Aria', agree: 'true', level: '7', cls: 'mage', skills: ['lore'], tags: ['a', 'b'], age: 3 });
    const batch = only(compileConversationToA2uiV09(s.ir));
    expect(modelOf(batch.messages).draft).toMatchObject({
      name: 'Aria', agree: true, level: 7, cls: ['mage'], skills: ['lore'], tags: 'a, b', age: '3', born: '', meet: '', pin: '',
    });
    expect(batch.warnings.map((w) => [w.code, w.pointer])).toEqual([['COMPILER_A2UI_VALUE_COERCED', '/draft/agree'], ['COMPILER_A2UI_VALUE_COERCED', '/draft/level']]);
    const committed = commitSurface(s.ir, 'main', { draft: {}, committed: { tags: ['x', 'y'], nested: { list: [1, { k: 'v' }] } } }, s.draw());
    if (!committed.ok) throw new Error('commit failed');
    expect(modelOf(only(compileConversationToA2uiV09(committed.ir)).messages).committed).toEqual({ tags: ['x', 'y'], nested: { list: [1, { k: 'v' }] } });
  });

  it('gives every button an event action with each field bound, and the nonce and rev as literals', () => {
    const { ir } = open();
    const { messages } = only(compileConversationToA2uiV09(ir));
    const surface = ir.surfaces[0]!;
    const button = find(messages, 'main.a0-form_submit.Button');
    expect(button).toMatchObject({ child: 'main.a0-form_submit.label.Text', variant: 'primary' });
    const context = (button.action as { event: { name: string; context: Record<string, unknown> } }).event;
    expect(context.name).toBe('form.submit');
    expect(Object.keys(context.context)).toEqual([...FIELDS.map((f) => (f as { name: string }).name), 'nonce', 'rev']);
    expect(context.context).toMatchObject({ name: { path: '/draft/name' }, nonce: surface.nonce, rev: surface.rev });
    expect(find(messages, 'main.a1-form_cancel.Button')).toMatchObject({ variant: 'default' });
  });

  it('leaves out of every context the fields named like a reserved key, with a warning', () => {
    const blocks: Block[] = ['nonce', 'rev', 'path', 'call', 'ok'].map((name) => ({ kind: 'field', name, label: name, control: 'text', required: false }));
    const batch = only(compileConversationToA2uiV09(open('main', view(blocks)).ir));
    const event = (find(batch.messages, 'main.a0-form_submit.Button').action as { event: { context: Record<string, unknown> } }).event;
    expect(Object.keys(event.context)).toEqual(['ok', 'nonce', 'rev']);
    expect(batch.warnings.filter((w) => w.code === 'COMPILER_A2UI_CONTEXT_KEY_RESERVED').map((w) => w.pointer))
      .toEqual(['/draft/nonce', '/draft/rev', '/draft/path', '/draft/call']);
    const oracle = newOracle();
    feed(oracle, batch.messages);
    expect(officialClick(oracle, 'main--e0', 'main.a0-form_submit.Button')).toMatchObject({ ok: true });
  });

  it('escapes Markdown in body text only (the basic catalogue renders h1–h5 and caption as they are)', () => {
    const blocks: Block[] = [
      { kind: 'heading', text: '*Stats* [1]', level: 1 },
      { kind: 'text', text: '*body* `x`', tone: 'body' },
      { kind: 'text', text: '*caption*', tone: 'caption' },
      { kind: 'value', label: 'Saved *name*', path: '/committed/name' },
    ];
    const s = open('main', view(blocks, { title: '# Title' }), undefined, { toast: { text: '*done*', level: 'info' } });
    const committed = commitSurface(s.ir, 'main', { draft: {}, committed: { name: '_Aria_' } }, s.draw());
    if (!committed.ok) throw new Error('commit failed');
    const { messages } = only(compileConversationToA2uiV09(committed.ir));
    expect(find(messages, 'main.title.Text')).toMatchObject({ text: '# Title', variant: 'h1' });
    expect(find(messages, 'main.b0.Text')).toMatchObject({ text: '*Stats* [1]', variant: 'h2' });
    expect(find(messages, 'main.b1.Text')).toMatchObject({ text: '\\*body\\* \\`x\\`', variant: 'body' });
    expect(find(messages, 'main.b2.Text')).toMatchObject({ text: '*caption*', variant: 'caption' });
    expect(find(messages, 'main.b3.label.Text')).toMatchObject({ text: 'Saved *name*', variant: 'caption' });
    expect(find(messages, 'main.b3.value.Text')).toMatchObject({ text: { path: '/view/b3' }, variant: 'body' });
    const model = modelOf(messages);
    expect(model.view).toEqual({ b3: '\\_Aria\\_' });
    expect(model.ui).toEqual({ toast: { text: '*done*', level: 'info' } });
    expect(find(messages, 'main.toast.Text')).toMatchObject({ text: { path: '/ui/toast/text' }, variant: 'caption' });
  });

  it('drops a button whose action is not allowlisted (soft_fail), and fails in strict mode', () => {
    const { ir } = open();
    const batch = only(compileConversationToA2uiV09(ir, { allowedActions: ['form.submit'] }));
    expect(batch.recovery).toBe('soft_fail');
    expect(batch.errors.map((e) => e.code)).toEqual(['A2UI_S2C_ACTION_NOT_ALLOWED']);
    expect(() => find(batch.messages, 'main.a1-form_cancel.Button')).toThrow();
    feed(newOracle(), batch.messages);
    const strict = compileConversationToA2uiV09(ir, { allowedActions: ['form.submit'], strict: true });
    expect(strict).toMatchObject({ ok: false, errors: [{ code: 'A2UI_S2C_ACTION_NOT_ALLOWED' }] });
  });

  it('falls back to a plain-text surface the processor accepts when a guardrail fails', () => {
    const batch = only(compileSurfaceToA2uiV09(open().ir.surfaces[0]!, { limits: { maxComponentsPerSurface: 5 } }));
    expect(batch).toMatchObject({ kind: 'fallback', recovery: 'surface_fail', errors: [{ code: 'A2UI_S2C_TOO_MANY_COMPONENTS' }] });
    expect(kinds(batch.messages)).toEqual(['deleteSurface', 'createSurface', 'updateComponents']);
    expect(validateA2uiV09Messages(batch.messages)).toEqual([]);
    const oracle = newOracle();
    feed(oracle, batch.messages);
    expect(renderedTree(oracle, 'main--e0')).toMatchObject({ id: 'root', child: { text: 'This panel could not be shown.' } });
  });

  it('a deleted surface compiles to its deleteSurface', () => {
    const s = open();
    const closed = closeSurface(s.ir, 'main', s.draw());
    expect(closed.ok).toBe(true);
    if (!closed.ok) return;
    expect(only(compileSurfaceToA2uiV09(closed.ir.surfaces[0]!)).messages).toEqual([{ version: 'v0.9', deleteSurface: { surfaceId: 'main--e0' } }]);
    expect(ok(compileConversationToA2uiV09(closed.ir))).toEqual([]);
  });
});

describe('v0.9 incremental updates', () => {
  it('a typed value is one updateDataModel at /draft/<name>; the buttons travel again for their new rev', () => {
    const s = open('main', view(), { name: 'A' });
    const next = patchSurfaceData(s.ir, 'main', [{ op: 'replace', namespace: 'draft', keys: ['name'], value: 'Aria' }], s.draw());
    if (!next.ok) throw new Error('patch failed');
    const batch = only(compileA2uiV09Update(s.ir, next.ir));
    expect(batch.kind).toBe('update');
    expect(kinds(batch.messages)).toEqual(['updateComponents', 'updateDataModel']);
    const first = batch.messages[0]!;
    expect('updateComponents' in first ? first.updateComponents.components.map((c) => c.id) : [])
      .toEqual(['main.a0-form_submit.Button', 'main.a1-form_cancel.Button']);
    expect(batch.messages[1]).toEqual({ version: 'v0.9', updateDataModel: { surfaceId: 'main--e0', path: '/draft/name', value: 'Aria' } });
  });

  it('a removed key is deleted (updateDataModel without value), not rebuilt', () => {
    const s = open('main', view(), { extra: 'x', name: 'A' }, { note: { a: 1, b: 2 } });
    const next = patchSurfaceData(s.ir, 'main', [
      { op: 'remove', namespace: 'draft', keys: ['extra'] },
      { op: 'remove', namespace: 'ui', keys: ['note', 'b'] },
    ], s.draw());
    if (!next.ok) throw new Error('patch failed');
    expect(next.ir.surfaces[0]!.tombstones.length).toBeGreaterThan(0);
    const batch = only(compileA2uiV09Update(s.ir, next.ir));
    expect(batch.kind).toBe('update');
    expect(batch.messages.filter((m) => 'updateDataModel' in m)).toEqual([
      { version: 'v0.9', updateDataModel: { surfaceId: 'main--e0', path: '/draft/extra' } },
      { version: 'v0.9', updateDataModel: { surfaceId: 'main--e0', path: '/ui/note/b' } },
    ]);
    const oracle = newOracle();
    feed(oracle, only(compileConversationToA2uiV09(s.ir)).messages);
    feed(oracle, batch.messages);
    expect(oracle.processor.model.getSurface('main--e0')!.dataModel.get('/ui')).toEqual({ note: { a: 1 } });
  });

  it('a view change sends only the new and changed components', () => {
    const s = open('main', view(FIELDS.slice(0, 2)));
    const reopened = open('main', view(FIELDS.slice(0, 3)));
    const prevSurface = s.ir.surfaces[0]!;
    const nextIr = { ...s.ir, surfaces: [{ ...reopened.ir.surfaces[0]!, nonce: prevSurface.nonce, rev: prevSurface.rev + 1 }] };
    const batch = only(compileA2uiV09Update(s.ir, nextIr));
    const ids = batch.messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components.map((c) => c.id) : []));
    expect(ids).toContain('main.f-age.TextField');
    expect(ids).toContain('main.body.Column');
    expect(ids).not.toContain('main.f-name.TextField');
    expect(ids).not.toContain('root');
  });

  it('nothing changed, nothing sent; a new epoch deletes the old surface id and creates the new one', () => {
    const s = open();
    expect(ok(compileA2uiV09Update(s.ir, s.ir))).toEqual([]);
    const reset = resetSurfaceEpoch(s.ir, 'main', s.draw());
    if (!reset.ok) throw new Error('reset failed');
    const batch = only(compileA2uiV09Update(s.ir, reset.ir));
    expect(kinds(batch.messages)).toEqual(['deleteSurface', 'createSurface', 'updateComponents', 'updateDataModel']);
    expect(batch.messages[0]).toEqual({ version: 'v0.9', deleteSurface: { surfaceId: 'main--e0' } });
    expect(batch.a2uiSurfaceId).toBe('main--e1');
  });

  it('a component type the client holds under another type is an epoch_reset', () => {
    const s = open();
    const next = patchSurfaceData(s.ir, 'main', [{ op: 'replace', namespace: 'draft', keys: ['name'], value: 'B' }], s.draw());
    if (!next.ok) throw new Error('patch failed');
    const priorTypes = new Map([['main--e0', new Map([['main.a0-form_submit.Button', 'Text']])]]);
    const result = compileA2uiV09Update(s.ir, next.ir, { priorTypes });
    expect(result).toMatchObject({ ok: true, epochResets: ['main'] });
    const batch = only(result);
    expect(batch).toMatchObject({ recovery: 'epoch_reset', messages: [] });
    expect(batch.errors.map((e) => e.code)).toContain('A2UI_S2C_TYPE_CHANGED');
  });
});
