import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

// Runs a child vitest over fixture suites with our summary reporter and checks that its closing
// line and exit code count every kind of failure (see the rules in test/support/summary-reporter.ts).

const config = fileURLToPath(new URL('../fixtures/reporter/vitest.config.ts', import.meta.url));
const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'surfacer-reporter-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface ChildRun {
  closingLine: string;
  exitCode: number | null;
  /** The lines just above the closing line that say why tests were skipped. */
  skipLines?: string[];
}

// The parent's VITEST_* variables would make the child believe it runs inside a worker.
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key];
  return env;
}

function runChild(args: string[], options: { env?: Record<string, string>; interruptWhen?: () => boolean } = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitestBin, 'run', '--config', config, ...args], {
      env: childEnv(options.env ?? {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += String(chunk); });
    child.stderr.on('data', (chunk) => { stderr += String(chunk); });
    const poll = options.interruptWhen === undefined ? undefined : setInterval(() => {
      if (options.interruptWhen?.()) {
        clearInterval(poll);
        child.kill('SIGINT');
      }
    }, 50);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearInterval(poll);
      const lines = stdout.split('\n').filter((line) => line.trim() !== '');
      const closingLine = lines.at(-1) ?? '';
      if (!/^\d+ passed, \d+ failed, \d+ skipped$/.test(closingLine)) {
        reject(new Error(`no closing line (exit ${exitCode}):\n${stdout}\n${stderr}`));
        return;
      }
      const skipLines = lines.slice(0, -1).filter((line) => /^\d+ skipped: /.test(line));
      resolve(skipLines.length > 0 ? { closingLine, exitCode, skipLines } : { closingLine, exitCode });
    });
  });
}

describe.concurrent('the closing line counts every failure and the exit code agrees', () => {
  test('a passing file: its tests and skips, exit 0', async () => {
    expect(await runChild(['passing'])).toEqual({ closingLine: '2 passed, 0 failed, 1 skipped', exitCode: 0 });
  });

  test.each([
    ['a file that throws at import', 'import-throws', '2 passed, 1 failed, 1 skipped'],
    // vitest marks both tests skipped; the suite whose beforeAll failed is the failure.
    ['a failing beforeAll', 'before-all-fails', '2 passed, 1 failed, 3 skipped'],
    ['an afterAll that throws after its test passed', 'after-all-throws', '3 passed, 1 failed, 1 skipped'],
    ['an unhandled rejection in a passing test', 'unhandled-rejection', '3 passed, 1 failed, 1 skipped'],
    ['an exception thrown from a timer of a passing test', 'uncaught-exception', '3 passed, 1 failed, 1 skipped'],
  ])('%s counts one failure, exit 1', async (_name, fixture, closingLine) => {
    expect(await runChild(['passing', fixture])).toEqual({ closingLine, exitCode: 1 });
  });

  test('an unhandled rejection still fails the run when vitest is told to ignore it', async () => {
    // vitest alone exits 0 here; the reporter sets the exit code because it counted a failure.
    const run = await runChild(['--dangerouslyIgnoreUnhandledErrors', 'unhandled-rejection']);
    expect(run).toEqual({ closingLine: '1 passed, 1 failed, 0 skipped', exitCode: 1 });
  });

  test('a run cancelled by --bail: the failed test plus the interruption', async () => {
    expect(await runChild(['--bail', '1', 'bail'])).toEqual({ closingLine: '0 passed, 2 failed, 0 skipped', exitCode: 1 });
  });

  test('a run interrupted by SIGINT still prints its closing line, exit 130', async () => {
    const marker = join(scratch, 'running');
    const run = await runChild(['hangs'], { env: { REPORTER_FIXTURE_MARKER: marker }, interruptWhen: () => existsSync(marker) });
    expect(run).toEqual({ closingLine: '0 passed, 1 failed, 0 skipped', exitCode: 130 });
  });

  test('skips with a reason are listed above the closing line, with their counts; all are counted skipped', async () => {
    expect(await runChild(['skipped-with-reason'])).toEqual({
      closingLine: '1 passed, 0 failed, 4 skipped',
      exitCode: 0,
      skipLines: ['2 skipped: the folder is not here', '1 skipped: a note given at run time'],
    });
  });

  test('a run that finds no test file counts one failure, exit 1', async () => {
    expect(await runChild(['no-such-fixture'])).toEqual({ closingLine: '0 passed, 1 failed, 0 skipped', exitCode: 1 });
  });
});
