import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../eval/fixture.ts';
import { generateFixtures } from '../../eval/generate.ts';
import { handwrittenFixtures } from '../../eval/handwritten.ts';
import { runEval } from '../../eval/harness.ts';

/**
 * CI keeps the goals of the offline eval (`npm run eval`, BENCHMARKS.md): on every labelled
 * model answer, ≥ 99 % of the recoverable ones recovered as labelled, every other one rejected
 * with its stable code, 0 crashes, 0 half-applied batches.
 */
describe('offline eval over test/fixtures/model-outputs', () => {
  const fixtures = loadFixtures();

  it('has at least 300 labelled answers in the styles of several model families, and every category', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(300);
    expect(new Set(fixtures.map((f) => f.family)).size).toBeGreaterThanOrEqual(8);
    const categories = new Set(fixtures.map((f) => f.category));
    for (const c of ['reasoning_block', 'tool_call_object', 'tool_call_string', 'tool_call_tagged', 'python_literals', 'envelope_as_string',
      'key_synonyms', 'non_finite_numbers', 'prose_only', 'truncated', 'over_budget', 'unknown_directive', 'wrong_template', 'a2ui_or_html', 'empty']) {
      expect(categories).toContain(c);
    }
  });

  it('the fixture files are what the generator writes (regenerate with node --import tsx eval/generate.ts)', () => {
    const stored = new Map(fixtures.map((f) => [f.id, f]));
    for (const f of [...generateFixtures(), ...handwrittenFixtures()]) expect(stored.get(f.id)).toEqual(f);
    expect(stored.size).toBe(generateFixtures().length + handwrittenFixtures().length);
  });

  it('meets the goals', async () => {
    const report = await runEval(fixtures);
    const t = report.total;
    expect(report.failures.map((f) => `${f.id}: ${f.crash ?? f.halfApplied ?? f.why ?? 'not repaired'}`)).toEqual([]);
    expect(t.crashes).toBe(0);
    expect(t.halfApplied).toBe(0);
    expect(t.recovered / t.recoverable).toBeGreaterThanOrEqual(0.99);
    expect(t.rejectedRight).toBe(t.rejectable);
  });
});
