import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry, createOfflinePlanner } from '../../src/app/index.ts';
import { runModelOutput } from '../../src/directives/index.ts';
import { createSeededSource, emptyConversation, findLiveSurface, type ConversationIr } from '../../src/ui-ir/index.ts';

const registry = createDemoDirectiveRegistry();
const signal = new AbortController().signal;

async function turn(text: string, ir: ConversationIr = emptyConversation('off'), fenced = false) {
  const out = await createOfflinePlanner({ fenced }).plan({ text, ir }, signal);
  const run = runModelOutput(registry, ir, out.rawText, { mode: fenced ? 'best_effort' : 'strict', source: createSeededSource('o') });
  return { out, run };
}

describe('offline planner', () => {
  it.each([
    ['Make me a character card', 'character_card'],
    ['I want to edit my persona', 'persona'],
    ['Set the scene in a harbour', 'scene_settings'],
    ['upload an avatar image', 'upload'],
    ['help me', 'ask'],
    ['asdf qwerty', 'ask'],
  ])('%j → %s, canonical enough for strict mode', async (text, template) => {
    const { out, run } = await turn(text);
    expect(out).toMatchObject({ provider: 'offline', llmMs: 0 });
    expect(run.errors).toEqual([]);
    expect(run.warnings).toEqual([]);
    expect(findLiveSurface(run.ir, 'main')?.view.template).toBe(template);
    expect(run.ir.transcript[0]?.text).toMatch(/Offline planner/);
  });

  it('pre-fills a name it is told', async () => {
    const { run } = await turn('create a character named Aria Vale, who sings');
    expect(findLiveSurface(run.ir, 'main')?.data.draft.name).toBe('Aria Vale');
  });

  it('closes the most recent open panel, or says there is nothing to close', async () => {
    const first = await turn('character please');
    const { run } = await turn('close it', first.run.ir);
    expect(findLiveSurface(run.ir, 'main')).toBeUndefined();
    expect(run.ir.toasts.at(-1)?.text).toBe('Panel closed');
    const none = await turn('close');
    expect(none.run.ir.toasts.at(-1)?.text).toBe('Nothing to close');
  });

  it('is deterministic, and fenced output goes through the parser repairs', async () => {
    const a = await turn('persona');
    const b = await turn('persona');
    expect(a.out.rawText).toBe(b.out.rawText);
    const fenced = await turn('persona', emptyConversation('off'), true);
    expect(fenced.out.rawText.startsWith('```json\n')).toBe(true);
    expect(fenced.run.warnings.map((w) => w.code)).toEqual(['DIRECTIVE_WARN_TEXT_REPAIRED']);
    expect(fenced.run.ir).toEqual(a.run.ir);
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createOfflinePlanner().plan({ text: 'x', ir: emptyConversation('off') }, controller.signal)).rejects.toThrow();
  });
});
