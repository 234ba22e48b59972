import { describe, expect, it } from 'vitest';
import { createReplayPlanner, parseReplayFile, PlannerError } from '../../src/llm/index.ts';
import { appendTranscript, emptyConversation, type ConversationIr } from '../../src/ui-ir/index.ts';

const signal = new AbortController().signal;

function withUserTurns(...texts: string[]): ConversationIr {
  return texts.reduce((ir, text) => appendTranscript(ir, { role: 'user', text }, { now: '2026-01-01T00:00:00.000Z' }), emptyConversation('c'));
}

function entries(text: string) {
  const parsed = parseReplayFile(text, 'rec.jsonl');
  if (!parsed.ok) throw new Error(parsed.error.technical_detail);
  return parsed.entries;
}

describe('replay planner', () => {
  it('answers by user text (case and blanks ignored), the n-th repeat with the n-th record', async () => {
    const planner = createReplayPlanner(entries('{"text":"Hello","output":"A"}\n\n{"text":"bye","output":"B"}\n{"text":"hello","output":"C"}\n'));
    expect((await planner.plan({ text: '  HELLO ', ir: emptyConversation('c') }, signal)).rawText).toBe('A');
    expect((await planner.plan({ text: 'hello', ir: withUserTurns('Hello') }, signal)).rawText).toBe('C');
    expect((await planner.plan({ text: 'hello', ir: withUserTurns('Hello', 'hello') }, signal)).rawText).toBe('C');
    expect((await planner.plan({ text: 'bye', ir: emptyConversation('c') }, signal)).provider).toBe('replay');
  });

  it('answers by turn order when records have no text, and repairs from "outputs"', async () => {
    const planner = createReplayPlanner(entries('{"outputs":["first","fixed"]}\n{"output":"second","model":"qwen3"}'));
    expect((await planner.plan({ text: 'x', ir: emptyConversation('c') }, signal)).rawText).toBe('first');
    const repair = { attempts: [{ rawText: 'first', errors: [] }] };
    expect((await planner.plan({ text: 'x', ir: emptyConversation('c'), repair }, signal)).rawText).toBe('fixed');
    const second = await planner.plan({ text: 'y', ir: withUserTurns('x') }, signal);
    expect([second.rawText, second.model]).toEqual(['second', 'qwen3']);
  });

  it('reads the turns of a conversation log and skips its other entries', () => {
    const log = [
      { type: 'created', v: 1, cid: 'c1' },
      { type: 'turn', v: 1, text: 'make a card', planner: { name: 'ollama', rawText: '{"directives":[]}', model: 'llama3.2' } },
      { type: 'action', v: 1 },
      { type: 'turn', v: 1, text: 'oops', planner: { name: 'ollama' } },
    ].map((l) => JSON.stringify(l)).join('\n');
    expect(entries(log)).toEqual([{ line: 2, text: 'make a card', outputs: ['{"directives":[]}'], model: 'llama3.2' }]);
  });

  it('refuses an unreadable line with its number, and has no answer past the recording', async () => {
    const bad = parseReplayFile('{"output":"a"}\n{"text": 1}', 'rec.jsonl');
    expect(!bad.ok && bad.error.technical_detail).toMatch(/^rec.jsonl:2:/);
    const planner = createReplayPlanner(entries('{"output":"a"}'));
    await expect(planner.plan({ text: 'x', ir: withUserTurns('y') }, signal)).rejects.toBeInstanceOf(PlannerError);
    await expect(planner.plan({ text: 'x', ir: withUserTurns('y') }, signal)).rejects.toMatchObject({ error: { code: 'LLM_REPLAY_NO_ANSWER' } });
  });
});
