import { describe, expect, it } from 'vitest';
import { compileConversationToA2uiV09, GUARD_MARK, validateA2uiV09Messages } from '../../../src/compiler/index.ts';
import type { Block } from '../../../src/ui-ir/index.ts';
import { BASIC_CATALOG_ID, feed, newOracle, officialClick, renderedTree } from '../../support/a2ui-v0_9-oracle.ts';
import { find, modelOf, only, open, view } from './fixtures.ts';

/**
 * The v0.8 compiler guards two kinds of string (a2ui-v0.8.md §4.4 F6, F13): text that looks like
 * JSON (WC parses it) and text equal to a component id (WC swaps in the component). These tests
 * ask the official v0.9 processor and renderer model whether v0.9 needs either guard. It needs
 * neither: v0.9 data is JSON already (nothing parses strings), and only the catalogue's
 * reference properties (child, children, trigger, content, tabs[].child) are read as ids. It has
 * a hazard of its own instead: a Button's action context with a `path` or `call` key.
 */
const RISKY = ['[1,2]', '{"a":1}', ' [x] ', 'main.title.Text', 'main.f-note.TextField', 'root', `a${GUARD_MARK}`];
const S = 'main--e0';

describe('v0.9 text guards, checked against the official processor', () => {
  it('JSON-looking and id-shaped strings go out as they are and come back as they are', () => {
    const blocks: Block[] = [
      { kind: 'text', text: RISKY[4]!, tone: 'caption' },
      { kind: 'field', name: 'note', label: RISKY[3]!, control: 'text', required: false },
      { kind: 'field', name: 'pick', label: 'Pick', control: 'select', required: false, options: [{ value: '[1,2]', label: 'root' }] },
    ];
    const { ir } = open('main', view(blocks), { note: RISKY[0]!, pick: '[1,2]', other: RISKY.slice() });
    const batch = only(compileConversationToA2uiV09(ir));
    expect(find(batch.messages, 'main.b0.Text').text).toBe('main.f-note.TextField');
    expect(find(batch.messages, 'main.f-note.TextField').label).toBe('main.title.Text');
    expect(modelOf(batch.messages).draft).toEqual({ note: '[1,2]', pick: ['[1,2]'], other: RISKY });
    expect(validateA2uiV09Messages(batch.messages)).toEqual([]);
    const oracle = newOracle();
    feed(oracle, batch.messages);
    const tree = JSON.stringify(renderedTree(oracle, S));
    expect(tree).toContain(JSON.stringify({ id: 'main.b0.Text', type: 'Text', text: 'main.f-note.TextField', variant: 'caption' }));
    expect(tree).toContain('"label":"main.title.Text","value":"[1,2]"');
    const clicked = officialClick(oracle, S, 'main.a0-form_submit.Button');
    expect(clicked).toMatchObject({ ok: true, action: { name: 'form.submit', context: { note: '[1,2]', pick: ['[1,2]'] } } });
  });

  it('a Text literal equal to another component\'s id stays text; only reference properties are ids', () => {
    const oracle = newOracle();
    feed(oracle, [
      { version: 'v0.9', createSurface: { surfaceId: S, catalogId: BASIC_CATALOG_ID } },
      { version: 'v0.9', updateComponents: { surfaceId: S, components: [
        { id: 'root', component: 'Column', children: ['a', 'b'] },
        { id: 'a', component: 'Text', text: 'b' },
        { id: 'b', component: 'Text', text: { path: '/s' } },
      ] } },
      { version: 'v0.9', updateDataModel: { surfaceId: S, value: { s: '{"x":[1]}' } } },
    ]);
    expect(renderedTree(oracle, S)).toEqual({
      id: 'root', type: 'Column', children: [{ id: 'a', type: 'Text', text: 'b' }, { id: 'b', type: 'Text', text: '{"x":[1]}' }],
    });
  });

  it.each(['path', 'call'])('an action context key "%s" makes the official click throw; the validator refuses it', (key) => {
    const oracle = newOracle();
    const stream = [
      { version: 'v0.9', createSurface: { surfaceId: S, catalogId: BASIC_CATALOG_ID } },
      { version: 'v0.9', updateComponents: { surfaceId: S, components: [
        { id: 'root', component: 'Button', child: 'l', action: { event: { name: 'go', context: { [key]: { path: '/v' }, ok: { path: '/v' } } } } },
        { id: 'l', component: 'Text', text: 'Go' },
      ] } },
      { version: 'v0.9', updateDataModel: { surfaceId: S, value: { v: 'x' } } },
    ];
    feed(oracle, stream);
    const clicked = officialClick(oracle, S, 'root');
    expect(clicked.ok).toBe(false);
    expect(oracle.actions).toEqual([]);
    expect(validateA2uiV09Messages(stream).map((v) => [v.code, v.pointer])).toEqual([
      ['A2UI_S2C_ACTION_KEY_RESERVED', `/1/updateComponents/components/0/action/event/context/${key}`],
    ]);
    const renamed = structuredClone(stream);
    const event = (renamed[1] as any).updateComponents.components[0].action.event;
    event.context = { value: { path: '/v' } };
    const fine = newOracle();
    feed(fine, renamed);
    expect(officialClick(fine, S, 'root')).toMatchObject({ ok: true, action: { name: 'go', context: { value: 'x' } } });
  });
});
