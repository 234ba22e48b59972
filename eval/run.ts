import { loadFixtures } from './fixture.ts';
import { runEval, type CategoryRow, type EvalReport } from './harness.ts';

/**
 * `npm run eval`: the offline eval over test/fixtures/model-outputs/. Prints one row per
 * category (markdown with --markdown, for BENCHMARKS.md) and the cases that missed their label.
 */
const pct = (n: number, d: number): string => (d === 0 ? '—' : `${n}/${d} (${((100 * n) / d).toFixed(1)} %)`);

function row(r: CategoryRow): string[] {
  return [r.category, String(r.total), pct(r.recovered, r.recoverable), pct(r.rejectedRight, r.rejectable), pct(r.repaired, r.repairable), String(r.crashes), String(r.halfApplied), pct(r.streamedSame, r.total)];
}

export function renderTable(report: EvalReport): string {
  const head = ['category', 'answers', 'recovered as labelled', 'rejected with the right code', 'repaired by the loop', 'crashes', 'half-applied', 'streamed = whole'];
  const lines = [head, head.map(() => '---'), ...report.rows.map(row), row(report.total).map((c) => `**${c}**`)];
  return lines.map((l) => `| ${l.join(' | ')} |`).join('\n');
}

const started = performance.now();
const fixtures = loadFixtures();
const report = await runEval(fixtures);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(`${renderTable(report)}\n\n${fixtures.length} answers, ${report.families.length} model families (${report.families.join(', ')}), ${seconds} s\n`);
for (const f of report.failures) {
  process.stdout.write(`MISS ${f.id} [${f.category}]: ${f.crash ?? f.halfApplied ?? f.why ?? f.streamed ?? (f.repaired === false ? 'not repaired' : '')}\n`);
}
const kept = report.streamedKept.filter((k) => k.kept > 0);
process.stdout.write(`Streamed at random chunk boundaries: ${report.total.streamedSame}/${report.total.total} answers read as whole (${report.streamedEarly} applied directives before their end); `
  + `${report.streamedKept.length} cut-off answers (streaming keeps what closed before the cut: ${kept.length} of them kept directives)\n`);
const t = report.total;
const met = t.recovered / t.recoverable >= 0.99 && t.rejectedRight === t.rejectable && t.crashes === 0 && t.halfApplied === 0 && t.streamedSame === t.total;
process.stdout.write(met ? 'goals met\n' : 'GOALS NOT MET\n');
process.exitCode = met ? 0 : 1;
