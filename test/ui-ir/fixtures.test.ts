import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConversationIr } from '../../src/ui-ir/index.ts';

const dir = new URL('../fixtures/ir/', import.meta.url);
const load = (kind: string, file: string): unknown => JSON.parse(readFileSync(new URL(`${kind}/${file}`, dir), 'utf8'));
const files = (kind: string): string[] => readdirSync(new URL(`${kind}/`, dir)).filter((f) => f.endsWith('.json')).sort();

describe('IR v1 fixtures', () => {
  it('has fixtures of both kinds', () => {
    expect(files('valid').length).toBeGreaterThanOrEqual(4);
    expect(files('invalid').length).toBeGreaterThanOrEqual(15);
  });

  it.each(files('valid'))('accepts valid/%s', (file) => {
    const result = ConversationIr.safeParse(load('valid', file));
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(files('invalid'))('rejects invalid/%s', (file) => {
    expect(ConversationIr.safeParse(load('invalid', file)).success).toBe(false);
  });

  // Contract quirk (reported): zod 4.6 records drop an own "__proto__" key instead of rejecting
  // it, so `safeParse(x).success` does not prove `x` lacks one; only `.data` is clean.
  it('accepts-and-strips a JSON "__proto__" data key (zod record behaviour)', () => {
    const text = readFileSync(new URL('valid/character-card-committed.json', dir), 'utf8').replace('"draft": {', '"draft": {"__proto__": "x",');
    const ir = JSON.parse(text) as { surfaces: Array<{ data: { draft: object } }> };
    expect(Object.hasOwn(ir.surfaces[0]!.data.draft, '__proto__')).toBe(true);
    const result = ConversationIr.safeParse(ir);
    expect(result.success).toBe(true);
    expect(Object.hasOwn(result.data!.surfaces[0]!.data.draft, '__proto__')).toBe(false);
  });
});
