import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDemoApp, createFileCardLibrary, createMemoryCardLibrary, type CardLibrary } from '../../src/app/index.ts';
import { createMemoryStore, TraceSchema } from '../../src/conversation/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { formAction, makeService } from '../conversation/fixtures/service.ts';

const dirs: string[] = [];
const libraries: CardLibrary[] = [];
afterAll(async () => {
  await Promise.all(libraries.map((l) => l.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function fileLibrary(dir?: string): { library: CardLibrary; file: string; dir: string } {
  const at = dir ?? mkdtempSync(join(tmpdir(), 'surfacer-cards-'));
  if (dir === undefined) dirs.push(at);
  const file = join(at, 'library', 'cards.jsonl');
  const library = createFileCardLibrary({ file, clock: () => Date.UTC(2026, 0, 1) });
  libraries.push(library);
  return { library, file, dir: at };
}

const CARD = { name: 'Aria', personality: 'Brave.' };

describe.each([
  ['in memory', () => ({ library: createMemoryCardLibrary() as CardLibrary })],
  ['in a file', () => fileLibrary()],
])('the card library (%s)', (_kind, make) => {
  it('saves a card once per (owner, key): a retry under the same key returns the first save', async () => {
    const { library } = make();
    const first = await library.save({ owner: 'o', key: 'k', conversation: 'c', card: CARD });
    const again = await library.save({ owner: 'o', key: 'k', conversation: 'c', card: { ...CARD, name: 'Other' } });
    expect(again).toEqual(first);
    const otherOwner = await library.save({ owner: 'p', key: 'k', conversation: 'c', card: CARD });
    expect(otherOwner.id).not.toBe(first.id);
    const unkeyed = [await library.save({ owner: 'o', key: undefined, conversation: 'c', card: CARD }), await library.save({ owner: 'o', key: undefined, conversation: 'c', card: CARD })];
    expect(new Set(unkeyed.map((c) => c.id)).size).toBe(2);
    // Lookups are per owner, newest first, by part of the name.
    expect((await library.find('o', 'ar', 10)).map((c) => c.id)).toEqual([unkeyed[1]!.id, unkeyed[0]!.id, first.id]);
    expect((await library.find('p', '', 10)).map((c) => c.id)).toEqual([otherOwner.id]);
    expect(await library.find('o', 'zed', 10)).toEqual([]);
  });
});

describe('the file card library', () => {
  it('keeps what it saved across a restart; a torn last line (a crash mid-write) is cut, never read', async () => {
    const { library, file, dir } = fileLibrary();
    const saved = await library.save({ owner: 'o', key: 'k1', conversation: 'c', card: CARD });
    await library.close();
    appendFileSync(file, '{"v":1,"id":"card-2","own');
    const restarted = fileLibrary(dir).library;
    expect(await restarted.find('o', '', 10)).toEqual([saved]);
    expect(await restarted.save({ owner: 'o', key: 'k1', conversation: 'c', card: CARD })).toEqual(saved);
    const next = await restarted.save({ owner: 'o', key: 'k2', conversation: 'c', card: { name: 'Brin' } });
    expect(next.id).toBe('card-2');
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.filter((l) => l !== '').map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['card-1', 'card-2']);
  });
});

describe('the demo\'s find_cards tool', () => {
  it('opens a saved card through the offline planner, traced as a tool step, and only the owner\'s cards', async () => {
    const cards = createMemoryCardLibrary();
    const app = createDemoApp({ cards });
    const { service } = makeService(createMemoryStore(), { app });
    const c = await service.create('owner-1');
    const opened = await service.runTurn(c.id, 'create a character card');
    if (!opened.ok) throw new Error('turn failed');
    const saved = await service.applyAction(c.id, formAction(opened.next, 'main', { ...CARD, tags: 'bard, brave' }, { idempotencyKey: 'k' }));
    expect(saved.ok).toBe(true);

    const other = await service.create('owner-2');
    const none = await service.runTurn(other.id, 'open my saved card named Aria');
    expect(none.ok && none.next.toasts.at(-1)?.text).toBe('I found no saved card named Aria.');

    const fresh = await service.create('owner-1');
    const turn = await service.runTurn(fresh.id, 'open my saved card named Aria');
    if (!turn.ok) throw new Error('turn failed');
    expect(findSurface(turn.next, 'main')!.data.draft).toMatchObject({ name: 'Aria', personality: 'Brave.', tags: 'bard, brave' });
    expect(turn.next.transcript.at(-1)!.text).toMatch(/^Here is your saved card “Aria” \(card-1\)/);
    const trace = TraceSchema.parse(turn.trace);
    expect(trace.run_mode).toBe('hybrid');
    // The first answer passes: no repair call stood in for the library's card.
    expect(trace.repair?.used ?? 0).toBe(0);
    expect(trace.tool_loop).toMatchObject({ tools: ['find_cards'], stopped: 'answered', steps: [{ name: 'find_cards', ok: true, arguments: '{"query":"Aria","limit":1}' }] });
    expect(trace.tool_loop!.steps[0]!.result).toContain('"id":"card-1"');
  });
});
