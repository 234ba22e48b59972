import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `npm run bench [-- FILTER]`: runs every bench/*.ts in name order (only those whose file name
 * contains FILTER, when given). Contract for a bench file: export `run(): Promise<void> | void`,
 * print its own results, and do nothing on import. Files starting with `_` are scratch and skipped.
 */
const dir = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .filter((f) => filter === undefined || f.includes(filter))
  .sort();

let failed = 0;
for (const file of files) {
  process.stdout.write(`\n## ${file}\n\n`);
  try {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { run?: () => unknown };
    if (typeof mod.run !== 'function') {
      process.stdout.write('(no run() export; skipped)\n');
      continue;
    }
    await mod.run();
  } catch (error) {
    failed += 1;
    process.stderr.write(`${file} failed: ${(error as Error).stack ?? String(error)}\n`);
  }
}
if (files.length === 0) process.stdout.write('no bench files matched\n');
process.exitCode = failed > 0 ? 1 : 0;
