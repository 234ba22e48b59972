import { describe, expect, it } from 'vitest';
import { run as compile } from '../../../src/cli/commands/compile.ts';
import { run as sim } from '../../../src/cli/commands/sim.ts';
import { validateA2uiV09Messages } from '../../../src/compiler/index.ts';
import { feed, newOracle, renderedTree } from '../../support/a2ui-v0_9-oracle.ts';
import { officialExamples } from '../../support/a2ui-v0_9-examples.ts';
import { memoryIo } from '../../support/cli-io.ts';

/** `surfacer compile --target a2ui --a2ui-version 0.9|0.9.1` and `surfacer sim --a2ui-version 0.9`. */
const input = [
  { assistant_text: 'Here is a card.', directives: [{ type: 'ui.show_form', payload: { template: 'character_card', values: { name: 'Aria' } } }] },
  { directives: [{ type: 'ui.ask', payload: { title: 'More?', prompt: 'Anything else?', fields: [{ name: 'more', label: 'More', type: 'textarea' }], submit: 'Send', surface: 'side' } }] },
];

async function compileIo(args: string[], stdin = JSON.stringify(input)): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ stdin });
  const code = await compile(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('surfacer compile --target a2ui --a2ui-version 0.9', () => {
  it('prints v0.9 JSONL the official processor accepts, byte-identical across runs', async () => {
    const a = await compileIo(['--target', 'a2ui', '--a2ui-version', '0.9', '--seed', '7', '-']);
    const b = await compileIo(['--target', 'a2ui', '--a2ui-version', '0.9', '--seed', '7', '-']);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    const messages = a.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(messages.every((m) => m.version === 'v0.9')).toBe(true);
    expect(messages.map((m) => Object.keys(m).find((k) => k !== 'version'))).toEqual([
      'createSurface', 'updateComponents', 'updateDataModel', 'createSurface', 'updateComponents', 'updateDataModel',
    ]);
    expect(validateA2uiV09Messages(messages)).toEqual([]);
    const oracle = newOracle();
    feed(oracle, messages);
    expect(renderedTree(oracle, 'main--e0')).toMatchObject({ id: 'root', type: 'Card' });
    expect(renderedTree(oracle, 'side--e0')).toMatchObject({ id: 'root', type: 'Card' });
  });

  it('0.9.1 stamps "v0.9.1"; 0.8 and no flag give the v0.8 stream', async () => {
    const v091 = await compileIo(['--target', 'a2ui', '--a2ui-version', '0.9.1', '--seed', '7', '-']);
    expect(v091.out.trim().split('\n').every((l) => (JSON.parse(l) as { version: string }).version === 'v0.9.1')).toBe(true);
    const v08 = await compileIo(['--target', 'a2ui', '--a2ui-version', '0.8', '--seed', '7', '-']);
    const plain = await compileIo(['--target', 'a2ui', '--seed', '7', '-']);
    expect(v08.out).toBe(plain.out);
    expect(JSON.parse(plain.out.split('\n')[0]!)).toHaveProperty('surfaceUpdate');
  });

  it.each([
    [['--target', 'a2ui', '--a2ui-version', '1.0'], /unknown --a2ui-version '1.0'/],
    [['--target', 'html', '--a2ui-version', '0.9'], /--a2ui-version goes with --target a2ui/],
  ])('%j exits 2', async (args, message) => {
    const out = await compileIo(args, '[]');
    expect(out.code).toBe(2);
    expect(out.err).toMatch(message);
  });
});

describe('surfacer sim --a2ui-version 0.9', () => {
  it('replays a v0.9 stream through ClientSim v0.9: hash, rendering, components, data, rendered nodes', async () => {
    const example = officialExamples().find((e) => e.name === '34_child-list-template.json')!;
    const io = memoryIo({ stdin: example.messages.map((m) => JSON.stringify(m)).join('\n') });
    expect(await sim(['--a2ui-version', '0.9', '-'], io)).toBe(0);
    const report = JSON.parse(io.out()) as { surfaces: Record<string, any>; warnings: unknown[] };
    expect(report.warnings).toEqual([]);
    const surface = report.surfaces['gallery-child-list-template'];
    expect(surface).toMatchObject({ rendering: true, catalogId: expect.stringContaining('v0_9') });
    expect(surface.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(surface.components.root).toEqual({ component: 'Card', child: 'main-column' });
    expect(surface.dataModel.items).toHaveLength(3);
    expect(surface.rendered).toContain('item-row@/items/2');
  });

  it('reports refused messages as warnings of the report, and a bad version as a usage error', async () => {
    const io = memoryIo({ stdin: JSON.stringify([{ version: 'v0.9', updateComponents: { surfaceId: 'x', components: [{ id: 'root', component: 'Text', text: 'a' }] } }]) });
    expect(await sim(['--a2ui-version', '0.9'], io)).toBe(0);
    expect((JSON.parse(io.out()) as { warnings: { code: string }[] }).warnings.map((w) => w.code)).toEqual(['CLIENTSIM_SURFACE_NOT_FOUND']);
    const bad = memoryIo({ stdin: '[]' });
    expect(await sim(['--a2ui-version', '2'], bad)).toBe(2);
  });
});
