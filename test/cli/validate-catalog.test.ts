import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run as validate } from '../../src/cli/commands/validate.ts';
import { appCatalogV09 } from '../../src/compiler/components/index.ts';
import { compileConversationToA2uiV09, type A2uiV09Message } from '../../src/compiler/index.ts';
import { memoryIo } from '../support/cli-io.ts';
import { TEST_CATALOG_ID, testComponents } from '../support/components.ts';
import { GAUGE, irWith, SCORES } from '../compiler/components/fixtures.ts';

/** `surfacer validate --catalog FILE`: a stream checked against an app catalogue document. */
const scratch = mkdtempSync(path.join(tmpdir(), 'surfacer-cli-catalog-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const registry = testComponents();
const catalogFile = path.join(scratch, 'catalog.json');
writeFileSync(catalogFile, JSON.stringify(appCatalogV09(registry, TEST_CATALOG_ID), null, 2));
const compiled = compileConversationToA2uiV09(irWith([SCORES, GAUGE]), { components: { registry, catalog: 'app', catalogId: TEST_CATALOG_ID } });
if (!compiled.ok) throw new Error('compile');
const messages: A2uiV09Message[] = compiled.batches.flatMap((b) => b.messages);

function streamFile(name: string, list: readonly unknown[]): string {
  const file = path.join(scratch, name);
  writeFileSync(file, list.map((m) => JSON.stringify(m)).join('\n'));
  return file;
}

describe('surfacer validate --catalog FILE', () => {
  it('accepts a stream using the app\'s components when given the app catalogue (exit 0)', async () => {
    const io = memoryIo();
    expect(await validate(['--a2ui-version', '0.9', '--catalog', catalogFile, streamFile('ok.jsonl', messages)], io)).toBe(0);
    expect(io.out()).toBe('');
    expect(io.err()).toBe(`valid: ${messages.length} messages\n`);
  });

  it('without it, the app catalogue and its components are unknown (exit 1)', async () => {
    const io = memoryIo();
    expect(await validate(['--a2ui-version', '0.9', streamFile('ok2.jsonl', messages)], io)).toBe(1);
    expect(io.out()).toContain('A2UI_S2C_CATALOG_UNKNOWN message 1:');
    expect(io.out()).toContain('A2UI_S2C_COMPONENT_NOT_ALLOWED message 2:');
  });

  it('an unknown or ill-typed property of an app component is a finding (exit 1)', async () => {
    for (const [name, patch] of [['unknown', { colour: 'red' }], ['ill-typed', { max: 'lots' }]] as const) {
      const bad = messages.map((m) => ('updateComponents' in m
        ? { ...m, updateComponents: { ...m.updateComponents, components: m.updateComponents.components.map((c) => (c.component === 'Gauge' ? { ...c, ...patch } : c)) } }
        : m));
      const io = memoryIo();
      expect(await validate(['--a2ui-version', '0.9', '--catalog', catalogFile, streamFile(`${name}.jsonl`, bad)], io), name).toBe(1);
      expect(io.out()).toMatch(/^A2UI_S2C_SCHEMA_INVALID message 2: Gauge: .*\(at \/1\/updateComponents\/components\/\d+/m);
    }
  });

  it('usage errors exit 2: v0.8, an unreadable file, a file that is no catalogue', async () => {
    const stream = streamFile('ok3.jsonl', messages);
    let io = memoryIo();
    expect(await validate(['--catalog', catalogFile, stream], io)).toBe(2);
    expect(io.err()).toContain('--catalog needs --a2ui-version 0.9');
    io = memoryIo();
    expect(await validate(['--a2ui-version', '0.9', '--catalog', path.join(scratch, 'missing.json'), stream], io)).toBe(2);
    expect(io.err()).toContain('CLI_INPUT_UNREADABLE');
    const notCatalog = path.join(scratch, 'not-catalog.json');
    writeFileSync(notCatalog, JSON.stringify({ hello: 'world' }));
    io = memoryIo();
    expect(await validate(['--a2ui-version', '0.9', '--catalog', notCatalog, stream], io)).toBe(2);
    expect(io.err()).toContain('is not an A2UI catalogue: the catalogue names no catalogId');
  });
});
