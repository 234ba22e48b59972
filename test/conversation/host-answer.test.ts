import { describe, expect, it } from 'vitest';
import { createMemoryStore, LogEntrySchema, type ConversationEvent } from '../../src/conversation/index.ts';
import { makeService } from './fixtures/service.ts';

/** A directive envelope as a host's model would write it through a directive tool. */
function envelope(...directives: unknown[]): string {
  return JSON.stringify({ directives });
}

describe('a host model\'s answer (service.applyHostAnswer)', () => {
  it('applies a valid answer as a turn with no user entry, logged with the tool and replayed the same', async () => {
    const store = createMemoryStore();
    const { service } = makeService(store, { demo: true });
    const c = await service.create('o');
    const events: ConversationEvent[] = [];
    service.subscribe(c.id, (e) => events.push(e));
    const result = await service.applyHostAnswer(c.id, {
      rawText: envelope({ type: 'show_form', payload: { template: 'character_card', values: { name: 'Aria' } } }),
      tool: 'show_form', label: 'Claude',
    }, { origin: 'mcp' });
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(result.outcome).toBe('applied');
    expect(result.next.surfaces.map((s) => s.id)).toEqual(['main']);
    expect(result.next.surfaces[0]!.data.draft).toMatchObject({ name: 'Aria' });
    // Nobody typed anything: no user entry in the transcript.
    expect(result.next.transcript.filter((t) => t.role === 'user')).toEqual([]);
    expect(result.trace.llm).toMatchObject({ provider: 'host', label: 'Claude', offline: false });
    expect(events.map((e) => e.cause)).toEqual([{ kind: 'turn', origin: 'mcp' }]);

    const entries = await store.read(c.id);
    const turn = LogEntrySchema.parse(entries!.at(-1));
    expect(turn).toMatchObject({ type: 'turn', text: '', hostCall: { tool: 'show_form' }, planner: { provider: 'host', label: 'Claude' } });
    // Another service over the same store folds the log to the same IR.
    const again = makeService(store, { demo: true }).service;
    expect((await again.get(c.id))!.ir).toEqual(result.next);
  });

  it('refuses an answer that would not apply whole, with its code and pointer, and logs nothing', async () => {
    const store = createMemoryStore();
    const { service } = makeService(store, { demo: true });
    const c = await service.create('o');
    const before = (await store.read(c.id))!.length;
    const events: ConversationEvent[] = [];
    service.subscribe(c.id, (e) => events.push(e));
    // A valid toast next to a form with an unknown template: strictly, nothing applies.
    const result = await service.applyHostAnswer(c.id, {
      rawText: envelope({ type: 'ui.toast', payload: { level: 'info', text: 'hi' } }, { type: 'ui.show_form', payload: { template: 'no_such_form' } }),
      tool: 'show_form', label: 'Claude',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toMatch(/^DIRECTIVE_/);
    expect(result.error.pointer).toMatch(/^\/directives\/1/);
    expect('problems' in result && result.problems.length).toBeGreaterThan(0);
    expect((await store.read(c.id))!.length).toBe(before);
    expect(events).toEqual([]);
    expect((await service.get(c.id))!.ir).toEqual(c.ir);
  });

  it('refuses a patch of a surface that is not open (an apply-time failure) the same way', async () => {
    const { service } = makeService(createMemoryStore(), { demo: true });
    const c = await service.create('o');
    const result = await service.applyHostAnswer(c.id, {
      rawText: envelope({ type: 'ui.close', payload: { surface: 'nowhere' } }), tool: 'close', label: 'Claude',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.pointer).toMatch(/^\/directives\/0/);
    expect((await service.get(c.id))!.version).toBe(c.version);
  });

  it('answers not found for a conversation that does not exist', async () => {
    const { service } = makeService(createMemoryStore(), { demo: true });
    const result = await service.applyHostAnswer('missing', { rawText: envelope(), tool: 'ask', label: 'x' });
    expect(result).toMatchObject({ ok: false, error: { code: 'HTTP_NOT_FOUND' } });
  });
});
