import { describe, expect, it } from 'vitest';
import { codesOf, validateCli } from './a2ui-v0_8/cli-io.ts';

/*
 * The depth limits of the official A2UI agent-SDK validator (google/A2UI agent_sdks/python,
 * MAX_GLOBAL_DEPTH = 50), held to the cases of its conformance suite
 * (agent_sdks/conformance/suites/validator.yaml). The suite's simplified catalogues write
 * `text: End`; the standard catalogues here need a bound value (v0.8) and `version` on v0.9
 * messages, which is all that differs.
 */

/** `{level: 0, next: {level: 1, next: … {level: n - 1}}}`: n objects nested. */
function nested(n: number): Record<string, unknown> {
  let value: Record<string, unknown> = { level: n - 1 };
  for (let level = n - 2; level >= 0; level -= 1) value = { level, next: value };
  return value;
}

const jsonl = (messages: unknown[]): string => messages.map((m) => JSON.stringify(m)).join('\n');

/** A Card chain root → c0 → … → c(n-1) ending in a Text: n + 2 levels. */
function chainV08(n: number): unknown[] {
  const components: unknown[] = [{ id: 'root', component: { Card: { child: 'c0' } } }];
  for (let i = 0; i < n; i += 1) components.push({ id: `c${i}`, component: { Card: { child: `c${i + 1}` } } });
  components.push({ id: `c${n}`, component: { Text: { text: { literalString: 'End' } } } });
  return [{ beginRendering: { surfaceId: 'test-surface', root: 'root' } }, { surfaceUpdate: { surfaceId: 'test-surface', components } }];
}

function chainV09(n: number): unknown[] {
  const components: unknown[] = [{ id: 'root', component: 'Card', child: 'c0' }];
  for (let i = 0; i < n; i += 1) components.push({ id: `c${i}`, component: 'Card', child: `c${i + 1}` });
  components.push({ id: `c${n}`, component: 'Text', text: 'End' });
  return [
    { version: 'v0.9', createSurface: { surfaceId: 'test-surface', catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' } },
    { version: 'v0.9', updateComponents: { surfaceId: 'test-surface', components } },
  ];
}

describe('the official validator suite\'s depth cases', () => {
  it('v0.9 "global recursion limit exceeded": a data model nested 56 levels is refused, in full and incremental mode', async () => {
    const message = { version: 'v0.9', updateDataModel: { surfaceId: 'test-surface', value: nested(56) } };
    for (const mode of [[], ['--incremental']]) {
      const out = await validateCli(['--a2ui-version', '0.9', ...mode, '-'], jsonl([message]));
      expect(out.code).toBe(1);
      expect(codesOf(out.stdout)).toContain('A2UI_S2C_DATA_TOO_DEEP');
      expect(out.stdout).toMatch(/^A2UI_S2C_DATA_TOO_DEEP message 1: the value nests deeper than 50 levels/m);
    }
  });

  it('v0.9: the limit is the official one, a value at depth 50 of its message passes and one at 51 is refused', async () => {
    const create = chainV09(0)[0];
    // The value object is depth 2; n nested objects put the deepest scalar at depth n + 2.
    const at = (n: number) => [create, { version: 'v0.9', updateDataModel: { surfaceId: 'test-surface', path: '/deep', value: nested(n) } }];
    const fits = await validateCli(['--a2ui-version', '0.9', '--incremental', '-'], jsonl(at(48)));
    expect(codesOf(fits.stdout)).not.toContain('A2UI_S2C_DATA_TOO_DEEP');
    const over = await validateCli(['--a2ui-version', '0.9', '--incremental', '-'], jsonl(at(49)));
    expect(codesOf(over.stdout)).toContain('A2UI_S2C_DATA_TOO_DEEP');
    expect(over.code).toBe(1);
  });

  it('v0.8: dataModelUpdate contents nesting beyond depth 50 are refused with the same code', async () => {
    let deep: unknown = { key: 'leaf', valueString: 'x' };
    for (let i = 0; i < 30; i += 1) deep = { key: `k${i}`, valueMap: [deep] };
    const out = await validateCli(['--incremental', '-'], jsonl([{ dataModelUpdate: { surfaceId: 's', contents: [deep] } }]));
    expect(out.code).toBe(1);
    expect(codesOf(out.stdout)).toEqual(['A2UI_S2C_DATA_TOO_DEEP']);
  });

  it.each([['0.8', chainV08], ['0.9', chainV09]] as const)('v%s: components nested 57 levels are refused, 42 levels pass (the suite\'s two component cases)', async (version, chain) => {
    const refused = await validateCli(['--a2ui-version', version, '-'], jsonl(chain(55)));
    expect(refused.code).toBe(1);
    expect(codesOf(refused.stdout)).toContain('A2UI_S2C_NESTING_TOO_DEEP');
    const valid = await validateCli(['--a2ui-version', version, '-'], jsonl(chain(40)));
    expect(valid.stdout).toBe('');
    expect(valid.code).toBe(0);
  });
});
