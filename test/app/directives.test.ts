import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { runDirectives } from '../../src/directives/index.ts';
import { createSeededSource, emptyConversation, findLiveSurface, findSurface, type ConversationIr } from '../../src/ui-ir/index.ts';

const registry = createDemoDirectiveRegistry();
const source = createSeededSource('app');

function apply(ir: ConversationIr, ...directives: unknown[]) {
  return runDirectives(registry, ir, { directives }, { mode: 'strict', source });
}
function applied(ir: ConversationIr, ...directives: unknown[]): ConversationIr {
  const r = apply(ir, ...directives);
  if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
  return r.ir;
}

const showCard = (values: Record<string, unknown> = {}) => ({ type: 'ui.show_form', payload: { template: 'character_card', values } });
const patch = (ops: unknown[], surface?: string) => ({ type: 'ui.patch', payload: { ops, ...(surface ? { surface } : {}) } });

describe('demo directives', () => {
  it('ui.show_form fills defaults, then values; re-opening keeps the draft; another form opens beside it', () => {
    let ir = applied(emptyConversation('a'), showCard({ name: 'Aria' }));
    expect(findLiveSurface(ir, 'main')!.data.draft).toMatchObject({ name: 'Aria', visibility: 'private', tags: '' });
    ir = applied(ir, patch([{ op: 'replace', path: '/draft/tagline', value: 'bard' }]));
    ir = applied(ir, showCard({ visibility: 'public' }));
    expect(findLiveSurface(ir, 'main')!.data.draft).toMatchObject({ name: 'Aria', tagline: 'bard', visibility: 'public' });
    ir = applied(ir, { type: 'ui.show_form', payload: { template: 'persona', title: 'Me' } });
    // The card may hold what the person typed: the persona goes beside it, the card stays as it was.
    expect(findLiveSurface(ir, 'main')!.data.draft).toMatchObject({ name: 'Aria', tagline: 'bard', visibility: 'public' });
    const s = findLiveSurface(ir, 'main-2')!;
    expect(s.view).toMatchObject({ template: 'persona', title: 'Me' });
    expect(s.data.draft).toEqual({ display_name: '', pronouns: '', bio: '', speaking_style: 'casual' });
    // The card asked for again, as it is: nothing changes, so no client's fields are reset.
    expect(applied(ir, showCard())).toBe(ir);
  });

  it('ui.show_form refuses values that do not belong to the template or have the wrong type', () => {
    expect(apply(emptyConversation('a'), showCard({ display_name: 'x' })).errors[0]?.pointer).toBe('/directives/0/payload/values');
    expect(apply(emptyConversation('a'), { type: 'ui.show_form', payload: { template: 'scene_settings', values: { tone: 11 } } }).errors[0]?.pointer)
      .toBe('/directives/0/payload/values/tone');
  });

  it('ui.patch checks draft keys and types against the surface fields', () => {
    const ir = applied(emptyConversation('a'), showCard());
    const cases: Array<[unknown[], string, string]> = [
      [[{ op: 'replace', path: '/draft/nope', value: 'x' }], 'DIRECTIVE_PATCH_OP_INVALID', '/directives/0/payload/ops/0/path'],
      [[{ op: 'replace', path: '/draft/name', value: 3 }], 'DIRECTIVE_PATCH_OP_INVALID', '/directives/0/payload/ops/0/value'],
      [[{ op: 'remove', path: '/draft/name' }], 'DIRECTIVE_PATCH_OP_INVALID', '/directives/0/payload/ops/0/op'],
      [[{ op: 'add', path: '/draft/name/first', value: 'x' }], 'DIRECTIVE_PATCH_OP_INVALID', '/directives/0/payload/ops/0/path'],
    ];
    for (const [ops, code, pointer] of cases) {
      expect(apply(ir, patch(ops)).errors.map((e) => [e.code, e.pointer])).toEqual([[code, pointer]]);
    }
    const ok = applied(ir, patch([{ op: 'add', path: '/ui/status', value: { step: 2 } }, { op: 'replace', path: '/draft/name', value: 'Bo' }]));
    expect(findLiveSurface(ok, 'main')!.data).toMatchObject({ draft: { name: 'Bo' }, ui: { status: { step: 2 } } });
    expect(apply(ir, patch([{ op: 'add', path: '/ui/x', value: 1 }], 'sidebar')).errors[0]?.code).toBe('DIRECTIVE_SURFACE_UNKNOWN');
  });

  it('ui.ask builds a clarifier with typed drafts and optional cancel', () => {
    const ir = applied(emptyConversation('a'), { type: 'ui.ask', payload: {
      title: 'Q', prompt: 'Tell me', submit: 'Go', surface: 'ask',
      fields: [{ name: 'n', label: 'N', type: 'number' }, { name: 'c', label: 'C', type: 'checkbox' }, { name: 's', label: 'S', type: 'select', options: ['a', 'b'] }],
    } });
    const s = findLiveSurface(ir, 'ask')!;
    expect(s.data.draft).toEqual({ n: 0, c: false, s: '' });
    expect(s.view.actions.map((a) => a.name)).toEqual(['ask.submit']);
    const dup = apply(emptyConversation('a'), { type: 'ui.ask', payload: { title: 'Q', prompt: 'P', submit: 'Go', fields: [{ name: 'a', label: 'A', type: 'text' }, { name: 'a', label: 'B', type: 'text' }] } });
    expect(dup.errors.map((e) => e.pointer)).toEqual(['/directives/0/payload/fields/1/name']);
  });

  it('ui.toast targets a live surface, falls back to global, refuses an explicit unknown one', () => {
    const plain = applied(emptyConversation('a'), { type: 'ui.toast', payload: { level: 'info', text: 'hi' } });
    expect(plain.toasts[0]).not.toHaveProperty('surfaceId');
    expect(apply(plain, { type: 'ui.toast', payload: { level: 'info', text: 'hi', surface: 'side' } }).errors[0]?.code).toBe('DIRECTIVE_SURFACE_UNKNOWN');
  });

  it('ui.request_upload and ui.close', () => {
    const r = runDirectives(registry, emptyConversation('a'), { directives: [{ type: 'ui.request_upload', payload: { accept: 'png, image/webp', purpose: 'Avatar' } }] }, { mode: 'best_effort', source });
    expect(r.warnings.map((w) => w.code)).toEqual(['DIRECTIVE_WARN_COERCED', 'DIRECTIVE_WARN_COERCED']);
    const s = findLiveSurface(r.ir, 'main')!;
    expect(s.view.blocks[1]).toMatchObject({ kind: 'upload', name: 'file', accept: ['.png', 'image/webp'] });
    expect(s.data.draft).toEqual({ file: '' });
    const closed = applied(r.ir, { type: 'ui.close', payload: { surface: 'main' } });
    expect(findSurface(closed, 'main')!.lifecycle).toBe('deleted');
    expect(apply(closed, { type: 'ui.close', payload: { surface: 'main' } }).errors[0]?.code).toBe('DIRECTIVE_SURFACE_UNKNOWN');
  });
});
