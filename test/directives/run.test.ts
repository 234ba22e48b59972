import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import {
  createDirectiveRegistry, runDirectives, runModelOutput, type DirectiveDefinition,
} from '../../src/directives/index.ts';
import {
  ConversationIr, createRecordingSource, createReplaySource, createSeededSource, emptyConversation, findLiveSurface,
} from '../../src/ui-ir/index.ts';
import { deepFreeze } from '../support/arbitraries-directives.ts';

const registry = createDemoDirectiveRegistry();
const empty = () => deepFreeze(emptyConversation('run'));
const opts = (mode: 'strict' | 'best_effort', seed = 's') => ({ mode, source: createSeededSource(seed) });
const show = { type: 'ui.show_form', payload: { template: 'character_card', values: { name: 'Aria' } } };
const toast = { type: 'ui.toast', payload: { level: 'success', text: 'Done' } };

describe('runDirectives', () => {
  it('appends assistant_text to the transcript, then applies directives in order', () => {
    const r = runDirectives(registry, empty(), { assistant_text: 'Here it is.', directives: [show, toast] }, opts('strict'));
    expect(r.errors).toEqual([]);
    expect(r.ir.transcript.map((t) => [t.role, t.text])).toEqual([['assistant', 'Here it is.']]);
    expect(r.applied.map((a) => [a.index, a.type])).toEqual([[0, 'ui.show_form'], [1, 'ui.toast']]);
    expect(findLiveSurface(r.ir, 'main')?.data.draft.name).toBe('Aria');
    expect(r.ir.toasts[0]).toMatchObject({ level: 'success', text: 'Done', surfaceId: 'main' });
    expect(r.assistantText).toBe('Here it is.');
  });

  it('strict: a handler failure leaves the IR untouched and applies nothing', () => {
    const ir = empty();
    const r = runDirectives(registry, ir, { assistant_text: 'x', directives: [show, { type: 'ui.close', payload: { surface: 'sidebar' } }] }, opts('strict'));
    expect(r.ir).toBe(ir);
    expect(r.applied).toEqual([]);
    expect(r.errors.map((e) => [e.code, e.pointer])).toEqual([['DIRECTIVE_SURFACE_UNKNOWN', '/directives/1/payload/surface']]);
  });

  it('best-effort: drops only the failing directive', () => {
    const r = runDirectives(registry, empty(), { directives: [{ type: 'ui.close', payload: { surface: 'main' } }, show, toast] }, opts('best_effort'));
    expect(r.applied.map((a) => a.index)).toEqual([1, 2]);
    expect(r.errors.map((e) => e.code)).toEqual(['DIRECTIVE_SURFACE_UNKNOWN']);
    expect(r.warnings.map((w) => [w.code, w.pointer])).toEqual([['DIRECTIVE_WARN_DROPPED', '/directives/0']]);
  });

  it('is deterministic for the same seed, and replays from recorded draws', () => {
    const input = { directives: [show, toast, { type: 'ui.ask', payload: { title: 'Q', prompt: 'P', submit: 'Go', surface: 'side', fields: [{ name: 'a', label: 'A', type: 'text' }] } }] };
    const a = runDirectives(registry, empty(), input, opts('strict', 'x'));
    const b = runDirectives(registry, empty(), input, opts('strict', 'x'));
    expect(JSON.stringify(a.ir)).toBe(JSON.stringify(b.ir));
    const recording = createRecordingSource(createSeededSource('y'));
    const recorded = runDirectives(registry, empty(), input, { mode: 'strict', source: recording });
    const replayed = runDirectives(registry, empty(), input, { mode: 'strict', source: createReplaySource(recording.drawn) });
    expect(replayed.ir).toEqual(recorded.ir);
  });

  it('applied directives replay canonically in strict mode to the same IR', () => {
    const messy = '```json\n{"assistantText":"hi","directives":[{"type":"showForm","template":"Persona","values":{"displayName":"Sam"}},{"type":"toast","payload":{"level":"Info","text":"ok"}}]}\n```';
    const first = runModelOutput(registry, empty(), messy, opts('best_effort', 'r'));
    expect(first.errors).toEqual([]);
    expect(first.warnings.length).toBeGreaterThan(4);
    const canonical = { assistant_text: first.assistantText, directives: first.applied.map(({ type, payload }) => ({ type, payload })) };
    const again = runDirectives(registry, empty(), canonical, opts('strict', 'r'));
    expect(again.errors).toEqual([]);
    expect(again.ir).toEqual(first.ir);
  });

  it('reports unparseable text without touching the IR', () => {
    const ir = empty();
    const r = runModelOutput(registry, ir, 'Here: {"directives": [{"type": "ui.toast" "payload": {}}]}', opts('best_effort'));
    expect(r.ir).toBe(ir);
    expect(r.errors.map((e) => e.code)).toEqual(['DIRECTIVE_PARSE_FAILED']);
  });

  it('shows a prose-only reply as the assistant\'s answer (best-effort) and refuses it in strict mode', () => {
    const ir = empty();
    const best = runModelOutput(registry, ir, 'Sorry, I cannot help with that.', opts('best_effort'));
    expect(best.assistantText).toBe('Sorry, I cannot help with that.');
    expect(best.applied).toEqual([]);
    expect(best.ir.transcript.map((t) => t.text)).toEqual(['Sorry, I cannot help with that.']);
    const strict = runModelOutput(registry, ir, 'Sorry, I cannot help with that.', opts('strict'));
    expect(strict.ir).toBe(ir);
    expect(strict.errors.map((e) => e.code)).toEqual(['DIRECTIVE_NON_CANONICAL']);
  });
});

describe('runner guards against app handlers', () => {
  const Payload = z.object({ mode: z.enum(['bad_ir', 'throw', 'fail']) }).strict();
  const rogue: DirectiveDefinition<z.infer<typeof Payload>> = {
    type: 'test.rogue',
    aliases: [],
    description: 'misbehaves on purpose',
    payload: Payload,
    apply(ir, payload) {
      if (payload.mode === 'throw') throw new Error('boom');
      if (payload.mode === 'fail') return { ok: false, error: { code: 'X', category: 'directive', severity: 'error', message: 'm', technical_detail: 'd', recovery_path: 'none', retryable: false, pointer: '/mode' } };
      return { ok: true, ir: { ...ir, conversationId: 'not valid!' } };
    },
  };
  const reg = createDirectiveRegistry([rogue]);

  it.each([
    ['bad_ir', 'DIRECTIVE_IR_INVALID', '/directives/0'],
    ['throw', 'DIRECTIVE_HANDLER_FAILED', '/directives/0'],
    ['fail', 'X', '/directives/0/payload/mode'],
  ])('%s → %s', (mode, code, pointer) => {
    const ir = empty();
    const r = runDirectives(reg, ir, { directives: [{ type: 'test.rogue', payload: { mode } }] }, opts('best_effort'));
    expect(r.ir).toBe(ir);
    expect(r.errors.map((e) => [e.code, e.pointer])).toEqual([[code, pointer]]);
    expect(ConversationIr.safeParse(r.ir).success).toBe(true);
  });

  it('refuses a registry with the same name twice or ambiguous folded names', () => {
    expect(() => createDirectiveRegistry([rogue, rogue])).toThrow(/registered twice/);
    expect(() => createDirectiveRegistry([rogue, { ...rogue, type: 'test.Rogue' }])).toThrow(/ambiguous/);
  });
});
