import { parseArgs } from 'node:util';
import { validateA2uiMessages, type Violation } from '../../compiler/index.ts';
import { parseJsonArrayOrLines, readInput } from '../io.ts';
import type { CliIo } from '../main.ts';

/**
 * `surfacer validate [--incremental] [FILE|-]`: runs the A2UI semantic validator over a stream
 * (JSON array or JSON Lines). Exit 0 when it has no errors (warnings are still printed), 1 with
 * one line per finding, `<CODE> message <n>: <detail>` (n counts messages from 1, which is the
 * line number for JSONL), 2 on usage or read errors. `--incremental`: surfaces without a
 * beginRendering in the stream are taken as already rendered (updates after an init).
 */
const USAGE = 'usage: surfacer validate [--incremental] [FILE|-]\n';

export function formatViolation(v: Violation): string {
  const where = v.pointer !== undefined ? ` (at ${v.pointer})` : '';
  const level = v.severity === 'warning' || v.severity === 'info' ? `${v.severity}: ` : '';
  return `${v.code} message ${v.messageIndex + 1}: ${level}${v.technical_detail}${where}`;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { incremental: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    io.stderr.write(`surfacer validate: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    io.stderr.write(USAGE);
    return 2;
  }
  let text: string;
  try {
    text = await readInput(parsed.positionals[0], io.stdin);
  } catch (error) {
    io.stderr.write(`surfacer validate: ${(error as Error).message}\n`);
    return 2;
  }
  let messages: unknown[];
  try {
    messages = parseJsonArrayOrLines(text);
  } catch (error) {
    const detail = (error as Error).message;
    const line = /^line (\d+): /.exec(detail);
    io.stdout.write(`A2UI_S2C_STREAM_INVALID message ${line ? line[1] : 1}: ${line ? detail.slice(line[0].length) : detail}\n`);
    return 1;
  }
  const violations = validateA2uiMessages(messages, { incremental: parsed.values.incremental === true });
  for (const v of violations) io.stdout.write(`${formatViolation(v)}\n`);
  const failed = violations.some((v) => v.severity === 'error' || v.severity === 'fatal');
  if (!failed) io.stderr.write(`valid: ${messages.length} message${messages.length === 1 ? '' : 's'}\n`);
  return failed ? 1 : 0;
}
