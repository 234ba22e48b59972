import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import {
  createMemoryStore, foldLog, irHash, LogEntrySchema, planTurn, runDirectivesAdapter, TraceSchema, type TurnContext,
} from '../../src/conversation/index.ts';
import { makeError } from '../../src/errors/index.ts';
import { PlannerError } from '../../src/llm/index.ts';
import type { Planner, PlannerInput } from '../../src/planner/types.ts';
import { emptyConversation } from '../../src/ui-ir/index.ts';
import { makeService } from './fixtures/service.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';

const files = jsonlTestFiles('surfacer-plan-turn-');

/** A model that answers from a script, one answer per call, and remembers what it was asked. */
function scripted(answers: Array<string | Error>): Planner & { inputs: PlannerInput[] } {
  const inputs: PlannerInput[] = [];
  return {
    name: 'ollama', label: 'scripted', inputs,
    async plan(input) {
      inputs.push(input);
      const answer = answers[Math.min(inputs.length - 1, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return { rawText: answer, provider: 'ollama', model: 'scripted', llmMs: 5, usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } };
    },
  };
}

const app = createDemoApp();
const turn = (mode: 'strict' | 'best-effort' = 'best-effort'): TurnContext => ({ runDirectives: runDirectivesAdapter, registry: app.directives, mode });
const input: PlannerInput = { text: 'show a toast', ir: emptyConversation('c1') };
const signal = () => new AbortController().signal;

const GOOD = '{"assistant_text":"Done.","directives":[{"type":"ui.toast","payload":{"level":"success","text":"Saved"}}]}';
const BAD_LEVEL = '{"directives":[{"type":"ui.toast","payload":{"level":"loud","text":"Saved"}}]}';
const MIXED = '{"directives":[{"type":"ui.toast","payload":{"level":"info","text":"one"}},{"type":"ui.close","payload":{"surface":"nowhere"}}]}';

describe('repair loop (plan-turn)', () => {
  it('makes one call when the first answer passes', async () => {
    const planner = scripted([GOOD]);
    const planned = await planTurn(input, { planner, turn: turn(), maxRepairs: 1 }, signal());
    expect(planner.inputs).toHaveLength(1);
    expect(planned.rawText).toBe(GOOD);
    expect(planned.repair).toEqual({ maxRepairs: 1, used: 0, exhausted: false, chosen: 0 });
    expect(planned.attempts.map((a) => a.status)).toEqual(['passed']);
  });

  it('sends a failed answer back with its canonical errors and pointers, and keeps the corrected one', async () => {
    const planner = scripted([BAD_LEVEL, GOOD]);
    const planned = await planTurn(input, { planner, turn: turn(), maxRepairs: 1 }, signal());
    expect(planned.rawText).toBe(GOOD);
    expect(planned.attempts.map((a) => a.status)).toEqual(['failed', 'passed']);
    const repair = planner.inputs[1]!.repair!;
    expect(repair.attempts).toHaveLength(1);
    expect(repair.attempts[0]!.rawText).toBe(BAD_LEVEL);
    expect(repair.attempts[0]!.errors[0]).toMatchObject({ code: 'DIRECTIVE_PAYLOAD_INVALID', pointer: '/directives/0/payload/level' });
    expect(repair.attempts[0]!.errors[0]!.detail).toMatch(/invalid_value/);
    expect(planned.usage).toEqual({ prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 });
    expect(planned.llmMs).toBe(10);
  });

  it('checks failures only apply-time reveals (an unknown surface) in the dry run, without drawing from the real source', async () => {
    const planner = scripted([MIXED, GOOD]);
    const planned = await planTurn(input, { planner, turn: turn(), maxRepairs: 1 }, signal());
    expect(planned.attempts[0]!.errors.map((e) => [e.code, e.pointer])).toEqual([['DIRECTIVE_SURFACE_UNKNOWN', '/directives/1/payload/surface']]);
    expect(planned.rawText).toBe(GOOD);
  });

  it('exhausted in best-effort mode: keeps the attempt that applies the most (a prose apology is no repair)', async () => {
    const planner = scripted([MIXED, 'Sorry, I cannot fix that.']);
    const planned = await planTurn(input, { planner, turn: turn(), maxRepairs: 1 }, signal());
    expect(planned.attempts.map((a) => a.status)).toEqual(['failed', 'failed']);
    expect(planned.repair).toMatchObject({ exhausted: true, chosen: 0, used: 1 });
    expect(planned.rawText).toBe(MIXED);
  });

  it('exhausted in strict mode: keeps the last attempt, of which strict applies nothing', async () => {
    const planner = scripted([MIXED, BAD_LEVEL]);
    const planned = await planTurn(input, { planner, turn: turn('strict'), maxRepairs: 1 }, signal());
    expect(planned.repair).toMatchObject({ exhausted: true, chosen: 1 });
  });

  it('takes a prose-only first answer as the plain answer (no repair)', async () => {
    const planner = scripted(['I can open a character card, a persona or scene settings.']);
    const planned = await planTurn(input, { planner, turn: turn(), maxRepairs: 1 }, signal());
    expect(planner.inputs).toHaveLength(1);
    expect(planned.attempts[0]!.warningCodes).toContain('DIRECTIVE_WARN_PROSE_ONLY');
  });

  it('stops at the configured bound (clamped to 3) and makes no check at all with 0', async () => {
    const always = scripted([BAD_LEVEL]);
    const planned = await planTurn(input, { planner: always, turn: turn(), maxRepairs: 9 }, signal());
    expect(always.inputs).toHaveLength(4);
    expect(always.inputs[3]!.repair!.attempts).toHaveLength(3);
    expect(planned.repair).toMatchObject({ maxRepairs: 3, used: 3, exhausted: true });
    const once = scripted([BAD_LEVEL]);
    const unchecked = await planTurn(input, { planner: once, turn: turn(), maxRepairs: 0 }, signal());
    expect(once.inputs).toHaveLength(1);
    expect(unchecked.attempts.map((a) => a.status)).toEqual(['unchecked']);
    expect(unchecked.repair.exhausted).toBe(false);
  });

  it('keeps what it has when a repair call fails; a first call failure or a cancel is thrown', async () => {
    const planner = scripted([MIXED, new PlannerError(makeError('LLM_HTTP_ERROR', 'HTTP 500'))]);
    const planned = await planTurn(input, { planner, turn: turn(), maxRepairs: 2 }, signal());
    expect(planned.attempts.map((a) => a.status)).toEqual(['failed', 'planner_failed']);
    expect(planned.attempts[1]!.errors[0]!.code).toBe('LLM_HTTP_ERROR');
    expect(planned.rawText).toBe(MIXED);
    await expect(planTurn(input, { planner: scripted([new Error('down')]), turn: turn(), maxRepairs: 1 }, signal())).rejects.toThrow('down');
    const controller = new AbortController();
    const cancelling: Planner = {
      name: 'ollama', label: 'c',
      async plan(i) {
        if (i.repair) { controller.abort(); throw new PlannerError(makeError('LLM_CANCELLED', 'x')); }
        return { rawText: BAD_LEVEL, provider: 'ollama', llmMs: 1 };
      },
    };
    await expect(planTurn(input, { planner: cancelling, turn: turn(), maxRepairs: 1 }, controller.signal)).rejects.toBeInstanceOf(PlannerError);
  });
});

describe('repair loop in the conversation service', () => {
  it('applies only the passing attempt, logs only its raw text, traces every attempt, and replays byte-identically', async () => {
    {
      const store = files.jsonlStore({ dir: files.tempDir(), fsync: false });
      const planner = scripted([BAD_LEVEL, GOOD]);
      const { service } = makeService(store, { demo: true, planner });
      const c = await service.create('o');
      const result = await service.runTurn(c.id, 'save it');
      expect(result.ok && result.outcome).toBe('applied');
      if (!result.ok) return;
      expect(result.next.toasts.map((t) => t.text)).toEqual(['Saved']);
      expect(result.next.transcript.map((t) => t.text)).toEqual(['save it', 'Done.']);
      const trace = TraceSchema.parse(result.trace);
      expect(trace.attempts!.map((a) => [a.status, a.raw_text])).toEqual([['failed', BAD_LEVEL], ['passed', GOOD]]);
      expect(trace.attempts![0]!.errors[0]!.pointer).toBe('/directives/0/payload/level');
      expect(trace.repair).toEqual({ max_repairs: 1, used: 1, exhausted: false, chosen: 1 });
      expect(trace.llm.usage).toEqual({ prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 });
      const entries = (await store.read(c.id))!;
      const logged = entries.find((e) => e.type === 'turn');
      expect(logged?.type === 'turn' && logged.planner.rawText).toBe(GOOD);
      const folded = foldLog(entries, { turn: { runDirectives: runDirectivesAdapter, registry: app.directives, mode: 'best-effort' }, actions: app.actions });
      expect(folded.divergences).toEqual([]);
      expect(irHash(folded.ir)).toBe(irHash(result.next));
    }
  });

  it('exhausted in best-effort mode: applies the valid part of the best attempt and says so in the trace', async () => {
    const { service } = makeService(createMemoryStore(), { demo: true, planner: scripted([MIXED, MIXED]) });
    const c = await service.create('o');
    const result = await service.runTurn(c.id, 'go');
    if (!result.ok) throw new Error('turn failed');
    expect(result.next.toasts.map((t) => t.text)).toEqual(['one']);
    expect(result.trace.validation.error_codes).toEqual(['DIRECTIVE_SURFACE_UNKNOWN']);
    expect(result.trace.recovery).toContainEqual({ code: 'LLM_REPAIR_EXHAUSTED', path: 'soft_fail' });
    expect(await service.divergences(c.id)).toEqual([]);
  });

  it('takes the bound from the service limits', async () => {
    const planner = scripted([BAD_LEVEL]);
    const { service } = makeService(createMemoryStore(), { demo: true, planner, limits: { maxRepairAttempts: 2 } });
    const c = await service.create('o');
    await service.runTurn(c.id, 'go');
    expect(planner.inputs).toHaveLength(3);
  });

  it('still loads logs written before attempts, usage and the openai provider existed', () => {
    const old = {
      type: 'turn', v: 1, turnIndex: 0, at: '2026-01-01T00:00:00.000Z', text: 'hi', outcome: 'applied', mode: 'best-effort',
      planner: { name: 'ollama', provider: 'ollama', label: 'ollama · m', rawText: '{"directives":[]}', llmMs: 3 },
      draws: [], irHash: 'A'.repeat(43),
      trace: {
        trace_version: 1, request_id: 'r1', conversation_id: 'c1', turn_index: 0, started_at: 'x', finished_at: 'y', run_mode: 'directives',
        strict_mode: false, outcome: 'applied',
        llm: { provider: 'ollama', label: 'ollama · m', stream: false, format_mode: 'json_schema', sampling: {}, dropped_keys: [], offline: false },
        surfaces: [], validation: { status: 'ok', applied: 0, warnings: [], error_codes: [], errors: [] }, recovery: [],
        timings: { llm_ms: 3, directives_ms: 0, compile_ms: 0, total_ms: 3 },
      },
    };
    expect(LogEntrySchema.safeParse(old).success).toBe(true);
    const openai = { ...old, planner: { ...old.planner, provider: 'openai' }, trace: { ...old.trace, llm: { ...old.trace.llm, provider: 'openai' } } };
    expect(LogEntrySchema.safeParse(openai).success).toBe(true);
  });
});
