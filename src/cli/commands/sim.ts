import { parseArgs } from 'node:util';
import { orderedJson, replay } from '../../clientsim/index.ts';
import { readInput, parseJsonArrayOrLines } from '../io.ts';
import type { CliIo } from '../main.ts';

const USAGE = 'usage: surfacer sim [FILE|-]\n';

/**
 * `surfacer sim [FILE|-]`: replays A2UI messages (JSON array or JSONL) through ClientSim and
 * prints `{surfaces: {id: {hash, rendering, root, components, dataModel}}, warnings}`.
 * Violations are findings, not failures: exit 0; exit 1 only when the input cannot be read.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: { values: { help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    io.stderr.write(`surfacer sim: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    io.stderr.write(`surfacer sim: expected at most one FILE\n${USAGE}`);
    return 2;
  }
  let messages: unknown[];
  try {
    messages = parseJsonArrayOrLines(await readInput(positionals[0], io.stdin));
  } catch (error) {
    io.stderr.write(`surfacer sim: cannot read input: ${(error as Error).message}\n`);
    return 1;
  }
  const result = replay(messages);
  // A Map keeps ids and data keys in arrival order; orderedJson writes it without the
  // integer-keys-first reordering plain objects would impose.
  const surfaces = new Map([...result.surfaces].map(([id, s]) => [id, {
    hash: s.hash,
    rendering: s.rendering,
    root: s.root,
    components: new Map(Object.entries(s.components)),
    dataModel: s.data,
  }]));
  io.stdout.write(`${orderedJson({ surfaces, warnings: result.violations }, 2)}\n`);
  return 0;
}
