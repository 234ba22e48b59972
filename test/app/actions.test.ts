import { describe, expect, it } from 'vitest';
import { createDemoActionRegistry, createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { runDirectives } from '../../src/directives/index.ts';
import {
  ConversationIr, createSeededSource, draw, emptyConversation, findLiveSurface, findSurface, type ConversationIr as Ir,
} from '../../src/ui-ir/index.ts';
import { deepFreeze } from '../support/arbitraries-directives.ts';

const directives = createDemoDirectiveRegistry();
const actions = createDemoActionRegistry();
const source = createSeededSource('actions');

function open(...list: unknown[]): Ir {
  const r = runDirectives(directives, emptyConversation('act'), { directives: list }, { mode: 'strict', source });
  if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
  return deepFreeze(r.ir);
}

/** What ingress does: resolve, parse the context with the action's schema, handle. */
function act(ir: Ir, name: string, raw: Record<string, unknown>, surfaceId = 'main') {
  const action = actions.resolve(name)!;
  const surface = findLiveSurface(ir, surfaceId)!;
  const context = action.contextSchema(surface).parse(raw);
  const result = action.handle(ir, surface, context, draw(source));
  if (result.ok) expect(ConversationIr.safeParse(result.ir).success).toBe(true);
  return result;
}

const scene = () => open({ type: 'ui.show_form', payload: { template: 'scene_settings' } });
const card = () => open({ type: 'ui.show_form', payload: { template: 'character_card' } });

describe('form.submit', () => {
  it('coerces what HTML forms send and commits normalised values', () => {
    const r = act(scene(), 'form.submit', { setting: '  A harbour town ', genre: 'mystery', tone: '7', response_length: 'short', content_warnings: 'on', scene_date: '', ignored: 'x' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const s = findLiveSurface(r.ir, 'main')!;
    expect(s.data.committed).toEqual({ setting: 'A harbour town', genre: 'mystery', tone: 7, response_length: 'short', content_warnings: true });
    expect(s.data.draft).toEqual({ setting: '  A harbour town ', genre: 'mystery', tone: 7, response_length: 'short', content_warnings: true, scene_date: '' });
    expect(s.rev).toBe(1);
    expect(r.toast).toEqual({ level: 'success', text: 'Saved' });
  });

  it('reads A2UI choice selections (a list, or {} for none) as the draft string', () => {
    const r = act(scene(), 'form.submit', { setting: 'x', genre: ['horror'], response_length: {} });
    expect(r.ok && findLiveSurface(r.ir, 'main')!.data.committed).toMatchObject({ genre: 'horror' });
    expect(r.ok && findLiveSurface(r.ir, 'main')!.data.committed).not.toHaveProperty('response_length');
  });

  it('treats an absent checkbox as unchecked and "false"/"off" as false', () => {
    for (const raw of [{}, { content_warnings: 'false' }, { content_warnings: 'off' }, { content_warnings: false }]) {
      const r = act(scene(), 'form.submit', { setting: 'x', ...raw });
      expect(r.ok && findLiveSurface(r.ir, 'main')!.data.committed.content_warnings).toBe(false);
    }
  });

  it('turns tags into arrays and empty strings into absent keys', () => {
    const r = act(card(), 'form.submit', { name: 'Aria', personality: 'Kind', tags: ' bard, elf,, bard ', tagline: '', avatar_url: 'https://x.test/a.png' });
    expect(r.ok && findLiveSurface(r.ir, 'main')!.data.committed).toEqual({
      name: 'Aria', personality: 'Kind', tags: ['bard', 'elf'], avatar_url: 'https://x.test/a.png', visibility: 'private',
    });
  });

  it('refuses missing required fields with a user-facing message and changes nothing', () => {
    const r = act(card(), 'form.submit', { name: ' ', personality: '' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ code: 'ACTION_INPUT_INVALID', pointer: '/name', message: 'Name is required. Personality is required.' });
  });

  it.each([
    [{ tone: 'loud' }, 'Tone (0 light – 10 dark) must be a number.'],
    [{ tone: '11' }, 'Tone (0 light – 10 dark) must be between 0 and 10.'],
    [{ genre: 'western' }, 'Choose Genre from the list.'],
    [{ scene_date: '2026-02-30' }, 'In-story date must be a date (YYYY-MM-DD).'],
  ])('validates %j', (raw, message) => {
    const r = act(scene(), 'form.submit', { setting: 'x', ...raw });
    expect(r.ok ? undefined : r.error.message).toBe(message);
  });

  it('refuses a bad link', () => {
    const r = act(card(), 'form.submit', { name: 'A', personality: 'B', avatar_url: 'javascript:alert(1)' });
    expect(r.ok ? undefined : r.error.pointer).toBe('/avatar_url');
  });

  it('rejects context of the wrong transport type at the schema (ingress answers 403)', () => {
    const surface = findLiveSurface(scene(), 'main')!;
    expect(actions.resolve('form.submit')!.contextSchema(surface).safeParse({ setting: { nested: true } }).success).toBe(false);
  });
});

describe('form.cancel', () => {
  it('closes the panel when nothing was saved yet', () => {
    const r = act(card(), 'form.cancel', {});
    expect(r.ok && findSurface(r.ir, 'main')!.lifecycle).toBe('deleted');
  });

  it('restores the draft from committed when something was saved', () => {
    const saved = act(card(), 'form.submit', { name: 'Aria', personality: 'Kind', tags: 'bard, elf' });
    if (!saved.ok) throw new Error('submit');
    const withEdits = runDirectives(directives, deepFreeze(saved.ir), { directives: [{ type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/draft/name', value: 'Changed' }] } }] }, { mode: 'strict', source });
    const r = act(deepFreeze(withEdits.ir), 'form.cancel', {});
    expect(r.ok && findLiveSurface(r.ir, 'main')!.data.draft).toMatchObject({ name: 'Aria', tags: 'bard, elf', tagline: '', visibility: 'private' });
    expect(r.ok && r.toast?.text).toBe('Changes discarded');
  });
});

describe('ask.submit / ask.cancel', () => {
  const ask = () => open({ type: 'ui.ask', payload: {
    title: 'Pick', prompt: 'Which?', submit: 'Go', cancel: 'No',
    fields: [{ name: 'goal', label: 'Goal', type: 'select', options: ['persona', 'scene'], required: true }, { name: 'n', label: 'How many', type: 'number' }, { name: 'tags', label: 'Tags', type: 'tags' }],
  } });

  it('commits, writes the answers to the transcript as the user, and closes the clarifier', () => {
    const r = act(ask(), 'ask.submit', { goal: 'scene', n: '2', tags: 'a, b' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(findSurface(r.ir, 'main')).toMatchObject({ lifecycle: 'deleted', data: { committed: { goal: 'scene', n: 2, tags: ['a', 'b'] } } });
    expect(r.ir.transcript.at(-1)).toMatchObject({ role: 'user', text: 'Pick\nGoal: scene\nHow many: 2\nTags: a, b' });
  });

  it('requires required answers', () => {
    const r = act(ask(), 'ask.submit', { goal: '' });
    expect(r.ok ? undefined : r.error.message).toBe('Goal is required.');
  });

  it('ask.cancel dismisses', () => {
    const r = act(ask(), 'ask.cancel', {});
    expect(r.ok && findSurface(r.ir, 'main')!.lifecycle).toBe('deleted');
  });
});

describe('upload.submit', () => {
  const upload = () => open({ type: 'ui.request_upload', payload: { accept: ['image/png'], purpose: 'Avatar' } });

  it.each(['aria.png', 'https://cdn.example.com/aria.png', 'my avatar (1).jpg'])('records %s', (value) => {
    const r = act(upload(), 'upload.submit', { file: ` ${value} ` });
    expect(r.ok && findLiveSurface(r.ir, 'main')!.data.committed).toEqual({ file: value });
  });

  it.each(['', 'javascript:alert(1)', '../etc/passwd', 'C:\\x.png', 'file:///etc/passwd'])('refuses %j', (value) => {
    const r = act(upload(), 'upload.submit', { file: value });
    expect(r.ok ? undefined : r.error.code).toBe('ACTION_INPUT_INVALID');
  });
});
