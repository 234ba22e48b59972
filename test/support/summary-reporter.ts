import type { Reporter, TestModule, TestRunEndReason, TestSuite, Vitest } from 'vitest/node';
import './skip-reason.ts';

/*
 * CI counts the plain closing line `N passed, N failed, N skipped`; vitest's own summary has
 * another shape. That line must never say 0 failed when anything failed, so it counts more
 * than test cases:
 *
 * - each test case by its state: passed, failed, or skipped (todo and skip, and the tests vitest
 *   marks skipped because their suite's beforeAll failed). A test still pending when the run
 *   stopped ran to no verdict and is left out of all three;
 * - +1 failed for each module or suite with errors of its own: a file that fails to load
 *   (import or syntax error, a throwing describe body), a failing beforeAll or afterAll;
 * - +1 failed for a module vitest marks failed that none of the rules above counted;
 * - +1 failed for each unhandled error or rejection;
 * - +1 failed for a run that was interrupted (bail, cancel, SIGINT/SIGTERM);
 * - +1 failed for a run that found no test file while passWithNoTests is off (vitest exits 1).
 *
 * Above the closing line, one line per reason a test was skipped for (`N skipped: reason`), from
 * the `skipReason` a suite carries (test/support/skip-reason.ts) or a `ctx.skip(note)`, so a skip
 * always says why; skips without a reason are counted on the closing line only.
 *
 * The exit code agrees: vitest already exits non-zero in each of these cases (130 on a signal),
 * and where a setting such as dangerouslyIgnoreUnhandledErrors would let it exit 0, a count
 * above 0 sets the exit code to 1.
 */

interface RunCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** Skip reasons and how many tests each one skipped, in the order first met. */
type SkipReasons = Map<string, number>;

function collectSkipReasons(modules: Iterable<TestModule>): SkipReasons {
  const reasons: SkipReasons = new Map();
  for (const mod of modules) {
    for (const test of mod.children.allTests()) {
      const result = test.result();
      if (result.state !== 'skipped') continue;
      const reason = test.meta().skipReason ?? result.note;
      if (reason !== undefined && reason !== '') reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
  }
  return reasons;
}

interface RunOutcome {
  interrupted: boolean;
  unhandledErrors: number;
  passWithNoTests: boolean;
}

const ownErrorCount = (entity: TestModule | TestSuite): number => (entity.errors().length > 0 ? 1 : 0);

function countModule(mod: TestModule): RunCounts {
  const counts: RunCounts = { passed: 0, failed: 0, skipped: 0 };
  for (const test of mod.children.allTests()) {
    const state = test.result().state;
    if (state === 'passed') counts.passed += 1;
    else if (state === 'failed') counts.failed += 1;
    else if (state === 'skipped') counts.skipped += 1;
  }
  counts.failed += ownErrorCount(mod);
  for (const suite of mod.children.allSuites()) counts.failed += ownErrorCount(suite);
  if (mod.state() === 'failed' && counts.failed === 0) counts.failed = 1;
  return counts;
}

function countRun(modules: Iterable<TestModule>, outcome: RunOutcome): RunCounts {
  const total: RunCounts = { passed: 0, failed: 0, skipped: 0 };
  let moduleCount = 0;
  for (const mod of modules) {
    moduleCount += 1;
    const counts = countModule(mod);
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
  }
  total.failed += outcome.unhandledErrors;
  if (outcome.interrupted) total.failed += 1;
  if (moduleCount === 0 && !outcome.passWithNoTests && !outcome.interrupted) total.failed += 1;
  return total;
}

const closingLine = ({ passed, failed, skipped }: RunCounts): string =>
  `${passed} passed, ${failed} failed, ${skipped} skipped`;

export default class SummaryReporter implements Reporter {
  // Every module queued in this run, so a signal can still report what had finished.
  private readonly queued = new Set<TestModule>();
  private passWithNoTests = false;
  private printedForRun = false;

  onInit(vitest: Vitest): void {
    this.passWithNoTests = vitest.config.passWithNoTests;
    // vitest exits on SIGINT/SIGTERM without calling onTestRunEnd; its own handler exits on a
    // later tick (with code 130 or 143), so this synchronous write still lands.
    const onSignal = (): void => {
      if (this.printedForRun) return;
      this.print(countRun(this.queued, {
        interrupted: true, unhandledErrors: 0, passWithNoTests: this.passWithNoTests,
      }));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }

  onTestRunStart(): void {
    this.queued.clear();
    this.printedForRun = false;
  }

  onTestModuleQueued(mod: TestModule): void {
    this.queued.add(mod);
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
    reason: TestRunEndReason,
  ): void {
    const counts = countRun(testModules, {
      interrupted: reason === 'interrupted',
      unhandledErrors: unhandledErrors.length,
      passWithNoTests: this.passWithNoTests,
    });
    this.print(counts, collectSkipReasons(testModules));
    if (counts.failed > 0 && !process.exitCode) process.exitCode = 1;
  }

  private print(counts: RunCounts, reasons: SkipReasons = new Map()): void {
    this.printedForRun = true;
    const why = [...reasons].map(([reason, n]) => `${n} skipped: ${reason}\n`).join('');
    process.stdout.write(`\n${why}${closingLine(counts)}\n`);
  }
}
