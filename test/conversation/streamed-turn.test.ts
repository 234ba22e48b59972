import { afterEach, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import {
  createMemoryStore, foldLog, irHash, runDirectivesAdapter, StoreUnavailableError, TraceSchema, type ConversationEvent, type LogEntry, type TurnStreamEvent,
} from '../../src/conversation/index.ts';
import { directiveJsonSchema } from '../../src/directives/index.ts';
import { createOllamaPlanner, createOpenAiPlanner, toStrictValue } from '../../src/llm/index.ts';
import { startFakeOpenAi } from '../support/fake-openai.ts';
import { startFakeOllama, type FakeOllama, type FakeOllamaBehaviour } from '../support/fake-ollama.ts';
import { piecesOf } from '../support/fake-stream.ts';
import { makeService } from './fixtures/service.ts';

/**
 * A turn whose answer streams (best-effort mode, the default): each whole, valid directive is
 * applied and logged (a turn_part entry, one ConversationEvent) while the model still writes;
 * the text reaches stream listeners as it grows; the turn's own entry applies the rest. Against
 * the real `ollama` client and a fake Ollama streaming NDJSON at a set pace.
 */
const app = createDemoApp();
const FORM = { type: 'ui.show_form', payload: { template: 'persona', values: { display_name: 'Sam' } } };
const TOAST = { type: 'ui.toast', payload: { level: 'info', text: 'Fill it in when you like.' } };
const ANSWER = JSON.stringify({ assistant_text: 'Here is your persona.', directives: [FORM, TOAST] });

let fake: FakeOllama | undefined;
afterEach(async () => { await fake?.close(); fake = undefined; });

async function setup(script: FakeOllamaBehaviour[], options: { strict?: boolean; repairs?: number } = {}) {
  fake = await startFakeOllama(script);
  // The demo's tool loop off: each scripted answer is the final directive request.
  const planner = createOllamaPlanner({
    host: fake.host, model: 'm', systemPrompt: 'S', format: directiveJsonSchema(app.directives), sleep: async () => {}, toolLoop: { maxSteps: 0 },
  });
  const store = createMemoryStore();
  const { service } = makeService(store, { planner, demo: true, limits: { maxRepairAttempts: options.repairs ?? 1 } });
  const c = await service.create('o');
  const changes: Array<ConversationEvent & { at: number }> = [];
  const stream: Array<TurnStreamEvent & { at: number }> = [];
  service.subscribe(c.id, (e) => changes.push({ ...e, at: performance.now() }));
  service.subscribeStream(c.id, (e) => stream.push({ ...e, at: performance.now() }));
  return { service, store, cid: c.id, changes, stream };
}

async function logOf(store: ReturnType<typeof createMemoryStore>, cid: string): Promise<LogEntry[]> {
  return (await store.read(cid))!;
}

describe('a streamed turn applies each directive the moment it is complete', () => {
  it('the first directive is applied, logged and announced before the last piece leaves the model; the text grows first', async () => {
    const sentAt: number[] = [];
    const { service, store, cid, changes, stream } = await setup([{ kind: 'stream', pieces: piecesOf(ANSWER, 12), paceMs: 30, onPiece: (_i, at) => sentAt.push(at) }]);
    const result = await service.runTurn(cid, 'set up my persona');
    expect(result.ok && result.outcome).toBe('applied');
    const lastPiece = sentAt.at(-1)!;
    const firstPart = changes.find((e) => e.cause.streamed === true)!;
    expect(firstPart).toBeDefined();
    expect(firstPart.at).toBeLessThan(lastPiece);
    expect(firstPart.next.surfaces.map((s) => s.id)).toEqual(['main']);
    // The text grew over several events, all before the form was applied.
    const texts = stream.filter((e) => e.kind === 'text');
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.map((e) => (e as { delta: string }).delta).join('')).toBe('Here is your persona.');
    expect(texts[0]!.at).toBeLessThan(firstPart.at);
    const applied = stream.filter((e) => e.kind === 'applied');
    expect(applied.flatMap((e) => (e as { directives: Array<{ type: string }> }).directives.map((d) => d.type))).toEqual(['ui.show_form', 'ui.toast']);
    expect(stream.at(-1)).toMatchObject({ kind: 'end', outcome: 'applied' });
    // The log: a part per directive (each complete when applied), then the turn's own entry; the record says what was applied where.
    const entries = await logOf(store, cid);
    expect(entries.map((e) => e.type)).toEqual(['created', 'turn_part', 'turn_part', 'turn']);
    const turn = entries.at(-1)! as Extract<LogEntry, { type: 'turn' }>;
    expect(turn.planner.rawText).toBe(ANSWER);
    expect(turn.streamed?.applied).toEqual([
      { index: 0, type: 'ui.show_form', offset: ANSWER.indexOf(JSON.stringify(FORM)) + JSON.stringify(FORM).length },
      { index: 1, type: 'ui.toast', offset: ANSWER.indexOf(JSON.stringify(TOAST)) + JSON.stringify(TOAST).length },
    ]);
    // The same result as the answer applied whole; replay reproduces it byte for byte.
    const conversation = (await service.get(cid))!;
    expect(conversation.ir.transcript.map((t) => [t.role, t.text])).toEqual([['user', 'set up my persona'], ['assistant', 'Here is your persona.']]);
    const folded = foldLog(entries, { turn: { runDirectives: runDirectivesAdapter, registry: app.directives, mode: 'best-effort' }, actions: app.actions });
    expect(folded.divergences).toEqual([]);
    expect(JSON.stringify(folded.ir)).toBe(JSON.stringify(conversation.ir));
    expect(irHash(folded.ir)).toBe(turn.irHash);
    expect(TraceSchema.parse(turn.trace).validation.applied).toBe(2);
  });

  it('a turn whose own entry cannot be logged still ends its stream (a preview never hangs), and keeps its logged parts', async () => {
    const { service, store, cid, stream } = await setup([{ kind: 'stream', pieces: piecesOf(ANSWER, 12), paceMs: 10 }]);
    const append = store.append.bind(store);
    store.append = async (id, entry, version) => {
      if (entry.type === 'turn') throw new StoreUnavailableError('the store went away');
      return append(id, entry, version);
    };
    const result = await service.runTurn(cid, 'set up my persona');
    expect(result.ok ? 'ok' : result.error.code).toBe('STORE_UNAVAILABLE');
    const ends = stream.filter((e) => e.kind === 'end');
    expect(ends.map((e) => e.kind === 'end' && e.outcome)).toEqual(['planner_failed']);
    expect(stream.at(-1)!.kind).toBe('end');
    expect((await logOf(store, cid)).some((e) => e.type === 'turn_part')).toBe(true);
  });

  it('a call\'s onStream hears its own turn only, though another caller\'s turn runs first in the queue', async () => {
    const OTHER = JSON.stringify({ assistant_text: 'Another answer first.', directives: [TOAST] });
    const { service, cid } = await setup([
      { kind: 'stream', pieces: piecesOf(OTHER, 8), paceMs: 20 },
      { kind: 'stream', pieces: piecesOf(ANSWER, 8), paceMs: 20 },
    ]);
    const first: TurnStreamEvent[] = [];
    const second: TurnStreamEvent[] = [];
    // Both asked at once: the second waits in the conversation's queue while the first streams.
    const [a, b] = await Promise.all([
      service.runTurn(cid, 'first', undefined, { onStream: (e) => first.push(e) }),
      service.runTurn(cid, 'second', undefined, { onStream: (e) => second.push(e) }),
    ]);
    expect(a.ok && b.ok).toBe(true);
    const words = (events: TurnStreamEvent[]) => events.filter((e) => e.kind === 'text').map((e) => (e as { delta: string }).delta).join('');
    expect(words(first)).toBe('Another answer first.');
    expect(words(second)).toBe('Here is your persona.');
    expect(new Set(first.map((e) => e.turnIndex)).size).toBe(1);
    expect(new Set(second.map((e) => e.turnIndex)).size).toBe(1);
    expect(second[0]!.turnIndex).toBe(first[0]!.turnIndex + 1);
    expect(first.at(-1)).toMatchObject({ kind: 'end' });
    expect(second.at(-1)).toMatchObject({ kind: 'end', outcome: 'applied' });
  });

  it('strict mode streams the text but applies only the whole answer, once it passed', async () => {
    fake = await startFakeOllama([{ kind: 'stream', pieces: piecesOf(ANSWER, 12), paceMs: 2 }]);
    const planner = createOllamaPlanner({ host: fake.host, model: 'm', systemPrompt: 'S', format: directiveJsonSchema(app.directives), toolLoop: { maxSteps: 0 } });
    const store = createMemoryStore();
    const { service } = makeService(store, { planner, demo: true });
    // makeService has no mode option: build the strict service the same way.
    const strictService = (await import('../../src/conversation/index.ts')).createConversationService({
      app, store, entropy: (await import('../../src/ui-ir/index.ts')).createSeededSource('s'), planner, mode: 'strict',
      ingress: (service as unknown as { ingress: never }).ingress,
    });
    const c = await strictService.create('o');
    const stream: TurnStreamEvent[] = [];
    strictService.subscribeStream(c.id, (e) => stream.push(e));
    await strictService.runTurn(c.id, 'set up my persona');
    expect(stream.some((e) => e.kind === 'text')).toBe(true);
    expect(stream.some((e) => e.kind === 'applied')).toBe(false);
    expect((await logOf(store, c.id)).map((e) => e.type)).toEqual(['created', 'turn']);
  });

  it('a stream cut mid-object keeps what was applied and reports DIRECTIVE_REPLY_TRUNCATED', async () => {
    const cut = ANSWER.slice(0, ANSWER.indexOf('"level"') + 3);
    const { service, store, cid } = await setup([{ kind: 'stream', pieces: piecesOf(cut, 10), paceMs: 2, end: 'cut' }], { repairs: 0 });
    const result = await service.runTurn(cid, 'set up my persona');
    expect(result.ok).toBe(true);
    const conversation = (await service.get(cid))!;
    expect(conversation.ir.surfaces.map((s) => s.id)).toEqual(['main']);
    const turn = (await logOf(store, cid)).at(-1)! as Extract<LogEntry, { type: 'turn' }>;
    expect(turn.trace.validation.error_codes).toContain('DIRECTIVE_REPLY_TRUNCATED');
    expect(conversation.ir.transcript.map((t) => t.role)).toEqual(['user', 'assistant']);
  });

  it('a stream cut mid-string (the text) applies nothing but the user\'s entry and a note', async () => {
    const cut = ANSWER.slice(0, 20);
    const { service, store, cid } = await setup([{ kind: 'stream', pieces: piecesOf(cut, 5), paceMs: 2, end: 'error' }], { repairs: 0 });
    await service.runTurn(cid, 'set up my persona');
    const entries = await logOf(store, cid);
    expect(entries.map((e) => e.type)).toEqual(['created', 'turn']);
    expect((entries[1] as Extract<LogEntry, { type: 'turn' }>).trace.validation.error_codes).toContain('DIRECTIVE_REPLY_TRUNCATED');
    const conversation = (await service.get(cid))!;
    expect(conversation.ir.transcript.map((t) => t.role)).toEqual(['user', 'system']);
    expect(conversation.ir.surfaces).toEqual([]);
  });

  it('a directive that fails mid-stream: the applied stay, the repair follow-up asks only for the rest', async () => {
    const bad = JSON.stringify({ assistant_text: 'Here.', directives: [FORM, { type: 'ui.toast', payload: { level: 'loud', text: 1 } }] });
    const { service, store, cid } = await setup([
      { kind: 'stream', pieces: piecesOf(bad, 16), paceMs: 3 },
      { kind: 'reply', content: JSON.stringify({ directives: [TOAST] }) },
    ]);
    const result = await service.runTurn(cid, 'set up my persona');
    expect(result.ok && result.outcome).toBe('applied');
    const repair = fake!.requests[1]!.messages as Array<{ role: string; content: string }>;
    expect(repair.at(-1)!.content).toContain('/directives/0 of that answer were already applied');
    const conversation = (await service.get(cid))!;
    expect(conversation.ir.surfaces.map((s) => s.id)).toEqual(['main']);
    expect(conversation.ir.toasts.map((t) => t.text)).toEqual(['Fill it in when you like.']);
    const entries = await logOf(store, cid);
    expect(entries.map((e) => e.type)).toEqual(['created', 'turn_part', 'turn']);
    const folded = foldLog(entries, { turn: { runDirectives: runDirectivesAdapter, registry: app.directives, mode: 'best-effort' }, actions: app.actions });
    expect(folded.divergences).toEqual([]);
    expect(JSON.stringify(folded.ir)).toBe(JSON.stringify(conversation.ir));
  });

  it('cancel mid-stream aborts the model request at once and keeps what was applied', async () => {
    const { service, store, cid, stream } = await setup([{ kind: 'stream', pieces: piecesOf(ANSWER, 8), paceMs: 25 }]);
    const controller = new AbortController();
    const off = service.subscribeStream(cid, (e) => { if (e.kind === 'applied') controller.abort(); });
    const result = await service.runTurn(cid, 'set up my persona', controller.signal);
    off();
    expect(result.ok && result.outcome).toBe('cancelled');
    await expect.poll(() => fake!.aborted[0], { timeout: 2_000 }).toBe(true);
    const entries = await logOf(store, cid);
    expect(entries.map((e) => e.type)).toEqual(['created', 'turn_part', 'turn']);
    const conversation = (await service.get(cid))!;
    expect(conversation.ir.surfaces.map((s) => s.id)).toEqual(['main']);
    expect(conversation.ir.toasts).toEqual([]);
    expect(stream.at(-1)).toMatchObject({ kind: 'end', outcome: 'cancelled' });
  });

  it('openai strict structured output streamed: each closed directive is read with its nulls mapped back, as the whole answer is', async () => {
    const schema = directiveJsonSchema(app.directives);
    const strictAnswer = JSON.stringify(toStrictValue(JSON.parse(ANSWER), schema));
    const openai = await startFakeOpenAi({ script: [{ kind: 'stream', pieces: piecesOf(strictAnswer, 16), paceMs: 5 }] });
    try {
      const planner = createOpenAiPlanner({
        baseURL: openai.baseURL, apiKey: 'k', model: 'gpt-4o-mini', provider: 'openai', systemPrompt: 'S', envelopeSchema: schema, toolLoop: { maxSteps: 0 },
      });
      const store = createMemoryStore();
      const { service } = makeService(store, { planner, demo: true });
      const c = await service.create('o');
      const stream: TurnStreamEvent[] = [];
      service.subscribeStream(c.id, (e) => stream.push(e));
      const result = await service.runTurn(c.id, 'set up my persona');
      expect(result.ok && result.outcome).toBe('applied');
      expect(openai.requests[0]!.body.stream).toBe(true);
      expect(stream.filter((e) => e.kind === 'applied').flatMap((e) => (e as { directives: Array<{ type: string }> }).directives.map((d) => d.type)))
        .toEqual(['ui.show_form', 'ui.toast']);
      expect(stream.some((e) => e.kind === 'rejected')).toBe(false);
      const conversation = (await service.get(c.id))!;
      expect(conversation.ir.surfaces.map((s) => s.id)).toEqual(['main']);
      expect(conversation.ir.toasts.map((t) => t.text)).toEqual(['Fill it in when you like.']);
    } finally {
      await openai.close();
    }
  });
});
