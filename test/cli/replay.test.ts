import { execFile } from 'node:child_process';
import { hash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { run, type ReplayReport } from '../../src/cli/commands/replay.ts';
import { main } from '../../src/cli/main.ts';
import { a2uiBatchesToJsonl, compileConversationToA2ui } from '../../src/compiler/index.ts';
import { compileConversationToHtml } from '../../src/compiler/html/index.ts';
import { createJsonlStore, irHash, type LogEntry } from '../../src/conversation/index.ts';
import { createConversationStack } from '../../src/host-html/wiring.ts';
import { createSeededSource, findLiveSurface, type ConversationIr } from '../../src/ui-ir/index.ts';
import { formAction } from '../conversation/fixtures/service.ts';
import { memoryIo } from '../support/cli-io.ts';

const root = new URL('../../', import.meta.url);
const sha256 = (text: string): string => hash('sha256', text, 'hex');

const fakeIo = (): ReturnType<typeof memoryIo> => memoryIo();

async function replay(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo();
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

let dir: string;
let log: string;
let liveIr: ConversationIr;

/** A real conversation through the real stack (demo app, offline planner, ingress, JSONL store). */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'surfacer-cli-replay-'));
  const store = createJsonlStore({ dir, fsync: false });
  const service = createConversationStack({ app: createDemoApp(), store, entropy: createSeededSource('cli-replay') });
  const c = await service.create('owner');
  const turn = await service.runTurn(c.id, 'create a character card');
  if (!turn.ok) throw new Error(`turn failed: ${turn.error.code}`);
  expect(findLiveSurface(turn.next, 'main')).toBeDefined();
  const saved = await service.applyAction(c.id, formAction(turn.next, 'main', { name: 'Aria', personality: 'Kind.' }, { idempotencyKey: 'k1' }));
  if (!saved.ok) throw new Error(`action failed: ${saved.error.code}`);
  const reset = await service.resetSurfaceEpoch(c.id, 'main', { reason: 'test' });
  if (!reset.ok) throw new Error(`reset failed: ${reset.error.code}`);
  await service.runTurn(c.id, 'hello');
  // The clarifier: its submit continues the conversation with a planner turn.
  const asked = await service.runTurn(c.id, 'ask me something');
  if (!asked.ok) throw new Error('ask failed');
  // Beside the card (a form is never replaced by another): the clarifier's own panel.
  const clarifier = asked.next.surfaces.find((s) => s.lifecycle !== 'deleted' && s.view.template === 'ask')!.id;
  const answered = await service.applyAction(c.id, formAction(asked.next, clarifier, { goal: 'persona', details: 'named Kim' }, { action: 'ask.submit', idempotencyKey: 'k2' }));
  if (!answered.ok || answered.kind !== 'applied' || !(await answered.continuation)?.ok) throw new Error('continuation failed');
  liveIr = (await service.get(c.id))!.ir;
  await store.close();
  log = join(dir, `${c.id}.jsonl`);
});
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const entries = (): LogEntry[] => readFileSync(log, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as LogEntry);

let files = 0;
function writeFile(content: string): string {
  const path = join(dir, `log-${(files += 1)}.jsonl`);
  writeFileSync(path, content);
  return path;
}
const writeLog = (lines: readonly unknown[]): string => writeFile(lines.map((e) => `${JSON.stringify(e)}\n`).join(''));

describe('surfacer replay', () => {
  it('the log holds every kind of entry the server writes', () => {
    expect(entries().map((e) => e.type)).toEqual(['created', 'turn', 'action', 'reset', 'turn', 'turn', 'action', 'turn']);
    // The character card's save to the card library (form.submit's effect) and the clarifier's continuation.
    expect(entries()[2]).toMatchObject({ type: 'action', effect: { result: { id: 'card-1', saved_at: expect.any(String) } } });
    expect(entries()[7]).toMatchObject({ type: 'turn', continuation: { actionVersion: 7, event: { action: 'ask.submit' } } });
  });

  it('re-folds the log: every recorded hash matches, and the final hashes are those of the live IR', async () => {
    const { code, out, err } = await replay(['--json', log]);
    expect(err).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(out) as ReplayReport;
    const a2ui = compileConversationToA2ui(liveIr);
    if (!a2ui.ok) throw new Error('live IR does not compile');
    expect(report).toEqual({
      conversationId: liveIr.conversationId,
      entries: 8,
      ok: true,
      mismatches: [],
      final: {
        irHash: irHash(liveIr),
        a2uiSha256: sha256(a2uiBatchesToJsonl(a2ui.batches)),
        htmlSha256: sha256(compileConversationToHtml(liveIr).html),
      },
    });
    expect(report.final.irHash).toBe((entries().at(-1) as { irHash: string }).irHash);
  });

  it('prints one human-readable line per entry, then the final hashes', async () => {
    const { code, out } = await replay([log]);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    const recorded = entries();
    expect(lines[0]).toBe(`conversation ${liveIr.conversationId}: 8 entries`);
    expect(lines[1]).toBe('1 created');
    recorded.slice(1).forEach((entry, i) => {
      expect(lines[i + 2]).toBe(`${i + 2} ${entry.type.padEnd(7)} ${(entry as { irHash: string }).irHash} ok`);
    });
    expect(lines.slice(9)).toEqual([
      `final ir hash     ${irHash(liveIr)}`,
      expect.stringMatching(/^final a2ui sha256 [0-9a-f]{64}$/),
      expect.stringMatching(/^final html sha256 [0-9a-f]{64}$/),
      'ok: every recorded IR hash reproduced',
    ]);
  });

  it('prints identical bytes when run twice (both formats)', async () => {
    for (const args of [[log], ['--json', log]]) {
      const first = await replay(args);
      const second = await replay(args);
      expect(second).toEqual(first);
    }
  });

  it.each([
    ['a committed text inside the action entry', 3, 'action', (e: LogEntry) => (e.type === 'action'
      ? { ...e, request: { ...e.request, context: { ...e.request.context, name: 'Bob' } } } : e)],
    ['the time drawn by the action', 3, 'action', (e: LogEntry) => (e.type === 'action'
      ? { ...e, draw: { ...e.draw, now: '2001-01-01T00:00:00.000Z' } } : e)],
    ['the effect result recorded with the action', 3, 'action', (e: LogEntry) => (e.type === 'action' && e.effect
      ? { ...e, effect: { result: { id: 'card-9', saved_at: '2001-01-01T00:00:00.000Z' } } } : e)],
    ['a nonce drawn by the reset', 4, 'reset', (e: LogEntry) => (e.type === 'reset'
      ? { ...e, draws: e.draws.map((d) => (d.kind === 'nonce' ? { ...d, value: `${d.value}x` } : d)) } : e)],
    ['the text of the first turn', 2, 'turn', (e: LogEntry) => (e.type === 'turn' && e.turnIndex === 0
      ? { ...e, text: 'something else' } : e)],
  ])('a tampered log (%s) exits 1 naming the first entry that diverges', async (_what, entry, type, tamper) => {
    const path = writeLog(entries().map(tamper));
    const { code, out, err } = await replay(['--json', path]);
    expect(code).toBe(1);
    const report = JSON.parse(out) as ReplayReport;
    expect(report.ok).toBe(false);
    expect(report.mismatches[0]).toMatchObject({ entry, type });
    expect(err).toContain(`mismatch: entry ${entry} (${type}):`);

    const human = await replay([path]);
    expect(human.code).toBe(1);
    expect(human.out).toMatch(new RegExp(`^${entry} ${type} +\\S+ MISMATCH `, 'm'));
    expect(human.out).toMatch(/^FAILED: \d+ mismatch/m);
  });

  it('cannot see a recorded draw the transition never used (a submit commits with the time only)', async () => {
    // The hash covers the IR, and form.submit takes no nonce: the action entry's nonce is unchecked.
    const path = writeLog(entries().map((e) => (e.type === 'action' ? { ...e, draw: { ...e.draw, nonce: 'x' } } : e)));
    expect((await replay([path])).code).toBe(0);
  });

  it('reports an action the ingress rejects on replay as a mismatch of that entry', async () => {
    const path = writeLog(entries().map((e) => (e.type === 'action' ? { ...e, request: { ...e.request, rev: 99 } } : e)));
    const { code, out } = await replay(['--json', path]);
    expect(code).toBe(1);
    expect((JSON.parse(out) as ReplayReport).mismatches[0]).toMatchObject({ entry: 3, type: 'action', message: expect.stringContaining('rejected on replay') });
  });

  it.each([
    ['a torn last line', () => readFileSync(log, 'utf8').slice(0, -20), /torn line/],
    ['a garbage line', () => readFileSync(log, 'utf8').replace(/\n/, '\nnot json\n'), /line 2 is corrupt/],
    ['an entry that breaks the schema', () => `${JSON.stringify({ ...entries()[0], v: 2 })}\n`, /line 1 is corrupt/],
    ['an empty file', () => '', /empty/],
    ['no "created" entry first', () => readFileSync(log, 'utf8').split('\n').slice(1).join('\n'), /starts with a "created" entry/],
  ])('an unreadable log (%s) exits 1 with a message', async (_what, content, message) => {
    const path = writeFile(content());
    const { code, out, err } = await replay([path]);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(/^surfacer replay: cannot replay /);
    expect(err).toMatch(message);
  });

  it('a missing file exits 1', async () => {
    const { code, err } = await replay([join(dir, 'nope.jsonl')]);
    expect(code).toBe(1);
    expect(err).toMatch(/cannot replay .*ENOENT/);
  });

  it.each([[[]], [['a', 'b']], [['--bogus', 'x']]])('usage errors exit 2 (%j)', async (args) => {
    const { code, out, err } = await replay(args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain('usage: surfacer replay [--json] LOG');
  });

  it('--help prints the usage and exits 0', async () => {
    expect(await replay(['--help'])).toEqual({ code: 0, out: 'usage: surfacer replay [--json] LOG\n', err: '' });
  });

  it('is listed and dispatched by main', async () => {
    const io = fakeIo();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.out()).toContain('surfacer replay [--json] LOG');
    const viaMain = fakeIo();
    expect(await main(['replay', log], viaMain)).toBe(0);
    expect(viaMain.out()).toBe((await replay([log])).out);
  });

  it('gives the same bytes and exit codes through the real bin', async () => {
    const exec = promisify(execFile);
    const { stdout } = await exec(process.execPath, ['bin/surfacer.mjs', 'replay', log], { cwd: root });
    expect(stdout).toBe((await replay([log])).out);
    const tampered = writeLog(entries().map((e) => (e.type === 'action' ? { ...e, draw: { ...e.draw, now: '2001-01-01T00:00:00.000Z' } } : e)));
    await expect(exec(process.execPath, ['bin/surfacer.mjs', 'replay', tampered], { cwd: root })).rejects.toMatchObject({ code: 1 });
    await expect(exec(process.execPath, ['bin/surfacer.mjs', 'replay'], { cwd: root })).rejects.toMatchObject({ code: 2 });
  });
});
