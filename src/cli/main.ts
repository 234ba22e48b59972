import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { commandHelp, commandSpec, COMMANDS, generalHelp, parseArgsOptions, type CommandSpec } from './commands-spec.ts';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}

export type CliCommand = (args: string[], io: CliIo) => Promise<number>;

/** Exit status of a usage error: an unknown command or option, a missing or malformed argument. */
export const USAGE_ERROR = 2;

/**
 * `surfacer <command> [options]`. Help and the refusal of unknown options come from the one
 * description in commands-spec.ts; the command itself parses what it was given.
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(generalHelp());
    return USAGE_ERROR;
  }
  if (name === '--help' || name === '-h') {
    io.stdout.write(generalHelp());
    return 0;
  }
  if (name === 'help') return help(rest[0], io);
  const command = commandSpec(name);
  if (command === undefined) {
    io.stderr.write(`surfacer: unknown command '${name}' (commands: ${COMMANDS.map((c) => c.name).join(', ')}; see surfacer --help)\n`);
    return USAGE_ERROR;
  }
  const checked = checkOptions(command, rest);
  if (!checked.ok) {
    io.stderr.write(`surfacer ${command.name}: ${checked.message}\nsee: surfacer ${command.name} --help\n`);
    return USAGE_ERROR;
  }
  if (checked.help) {
    io.stdout.write(commandHelp(command));
    return 0;
  }
  const { run } = await command.load();
  return run(rest, io);
}

/** `surfacer help [command]`. */
function help(name: string | undefined, io: CliIo): number {
  if (name === undefined) {
    io.stdout.write(generalHelp());
    return 0;
  }
  const command = commandSpec(name);
  if (command === undefined) {
    io.stderr.write(`surfacer: unknown command '${name}' (commands: ${COMMANDS.map((c) => c.name).join(', ')})\n`);
    return USAGE_ERROR;
  }
  io.stdout.write(commandHelp(command));
  return 0;
}

/** Only the options the description lists get through to the command; `--help` anywhere asks for help. */
function checkOptions(command: CommandSpec, args: string[]): { ok: true; help: boolean } | { ok: false; message: string } {
  try {
    const { values } = parseArgs({ args, options: parseArgsOptions(command), allowPositionals: true, strict: true });
    return { ok: true, help: values.help === true };
  } catch (error) {
    const message = (error as Error).message;
    // node's wording is long ("… To specify a positional argument starting with a '-' …"): keep its first sentence.
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    if (unknown) return { ok: false, message: `unknown option '${unknown[1]}'` };
    return { ok: false, message: message.split(/(?<=\.) /)[0]! };
  }
}
