import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/compile.ts';
import { A2uiMessageSchema } from '@a2ui/web_core/v0_8';
import { validateA2uiMessages } from '../../src/compiler/index.ts';
import { ConversationIr } from '../../src/ui-ir/index.ts';
import { memoryIo } from '../support/cli-io.ts';

const root = new URL('../../', import.meta.url);

const fakeIo = (stdin = ''): ReturnType<typeof memoryIo> => memoryIo({ stdin });

const input = [
  { assistant_text: 'Here is a card.', directives: [{ type: 'ui.show_form', payload: { template: 'character_card', values: { name: 'Aria' } } }] },
  'Sure!\n```json\n{"directives":[{"type":"toast","level":"success","text":"Opened"},{"type":"ui.ask","payload":{"title":"More?","prompt":"Anything else?","fields":[{"name":"more","label":"More","type":"textarea"}],"submit":"Send","surface":"side"}}]}\n```',
  { directives: [{ type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/draft/tagline', value: 'A bard' }] } }] },
];

function file(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'surfacer-compile-'));
  const path = join(dir, 'in.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('surfacer compile --target ir', () => {
  it('prints the IR as 2-space JSON with a trailing newline, byte-identical across runs', async () => {
    const path = file(input);
    const a = fakeIo();
    const b = fakeIo();
    expect(await run(['--target', 'ir', '--seed', '7', path], a)).toBe(0);
    expect(await run(['--target', 'ir', '--seed', '7', path], b)).toBe(0);
    expect(a.out()).toBe(b.out());
    expect(a.out().endsWith('}\n')).toBe(true);
    const ir = JSON.parse(a.out()) as unknown;
    expect(a.out()).toBe(`${JSON.stringify(ir, null, 2)}\n`);
    expect(ConversationIr.safeParse(ir).success).toBe(true);
    expect(ir).toMatchObject({ conversationId: 'cli', surfaces: [{ id: 'main' }, { id: 'side' }] });
    const warnings = a.err().trim().split('\n').map((l) => JSON.parse(l) as { batch: number; code: string; pointer: string });
    expect(warnings.every((w) => w.batch === 1)).toBe(true);
    expect(warnings.map((w) => w.code)).toContain('DIRECTIVE_WARN_TEXT_REPAIRED');
  });

  it('another seed changes nonces; stdin works with "-" and without a file', async () => {
    const seven = fakeIo();
    await run(['--target', 'ir', '--seed', '7', file(input)], seven);
    const viaStdin = fakeIo(JSON.stringify(input));
    expect(await run(['--target', 'ir', '--seed', '7', '-'], viaStdin)).toBe(0);
    expect(viaStdin.out()).toBe(seven.out());
    const other = fakeIo(JSON.stringify(input));
    await run(['--target', 'ir'], other);
    expect(other.out()).not.toBe(seven.out());
  });

  it('strict: any error exits 1 and prints no IR', async () => {
    const io = fakeIo();
    expect(await run(['--target', 'ir', '--strict', file(input)], io)).toBe(1);
    expect(io.out()).toBe('');
    const lines = io.err().trim().split('\n').map((l) => JSON.parse(l) as { code: string });
    expect(lines.map((l) => l.code)).toContain('DIRECTIVE_NON_CANONICAL');
    const canonical = fakeIo();
    expect(await run(['--target', 'ir', '--strict', file([input[0], input[2]])], canonical)).toBe(0);
    expect(canonical.err()).toBe('');
  });

  it.each([
    [['--target', 'pdf'], 2, /unknown target 'pdf'/],
    [[], 2, /missing --target/],
    [['--target', 'ir', 'a', 'b'], 2, /at most one FILE/],
    [['--bogus'], 2, /Unknown option/],
  ])('%j exits %i', async (args, code, message) => {
    const io = fakeIo('[]');
    expect(await run(args, io)).toBe(code);
    expect(io.err()).toMatch(message);
  });

  it.each(['a2ui', 'html'])('--target %s is byte-identical for the same input and seed', async (target) => {
    const path = file(input);
    const [a, b] = [fakeIo(), fakeIo()];
    expect(await run(['--target', target, '--seed', '7', path], a)).toBe(0);
    expect(await run(['--target', target, '--seed', '7', path], b)).toBe(0);
    expect(a.out()).toBe(b.out());
    expect(a.out().length).toBeGreaterThan(0);
  });

  it('--target a2ui prints JSONL the official schema and our validator accept', async () => {
    const io = fakeIo();
    expect(await run(['--target', 'a2ui', file(input)], io)).toBe(0);
    const messages = io.out().trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(messages.length).toBeGreaterThan(2);
    for (const m of messages) expect(A2uiMessageSchema.safeParse(m).success).toBe(true);
    expect(validateA2uiMessages(messages)).toEqual([]);
  });

  it('reports unreadable input as a JSON error line', async () => {
    const io = fakeIo('not json');
    expect(await run(['--target', 'ir'], io)).toBe(1);
    expect(JSON.parse(io.err())).toMatchObject({ code: 'DIRECTIVE_PARSE_FAILED' });
  });

  it('gives the same bytes through the real bin', async () => {
    const path = file(input);
    const io = fakeIo();
    await run(['--target', 'ir', '--seed', '7', path], io);
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/surfacer.mjs', 'compile', '--target', 'ir', '--seed', '7', path], { cwd: root });
    expect(stdout).toBe(io.out());
  });
});
