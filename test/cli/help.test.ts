import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { TARGETS } from '../../src/cli/commands/compile.ts';
import {
  A2UI_VERSION_CHOICES, COMMANDS, COMPILE_TARGET_CHOICES, HELP_OPTION, PLANNER_CHOICES, usageLine, type CommandSpec, type OptionSpec,
} from '../../src/cli/commands-spec.ts';
import { main } from '../../src/cli/main.ts';
import { A2UI_VERSIONS } from '../../src/compiler/index.ts';
import { PlannerKind } from '../../src/llm/index.ts';
import { memoryIo } from '../support/cli-io.ts';

/*
 * The CLI's help and usage errors, all derived from src/cli/commands-spec.ts: every command and
 * every option has a line in `surfacer --help` and in `surfacer <command> --help`; an unknown
 * command or option is refused with exit 2 before any command runs; every option the description
 * lists is one its command accepts. Then the ways to run the CLI from a checkout, for real.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** The line of `text` that introduces `--name` (followed by its value, if any). */
function optionLine(text: string, option: OptionSpec): string | undefined {
  const flag = `--${option.name}${option.type === 'string' ? ` ${option.value}` : ''}`;
  return text.split('\n').find((line) => new RegExp(`^\\s+(-\\w, )?${flag.replace(/[|.]/g, '\\$&')}\\s`).test(line));
}

/** Arguments that give every option of `command` a value of the right shape. */
function everyOption(command: CommandSpec): string[] {
  return command.options.flatMap((o) => (o.type === 'boolean' ? [`--${o.name}`] : [`--${o.name}`, o.value!.split('|')[0]!]));
}

describe('surfacer --help', () => {
  it('lists every command with its summary and usage, and every option on a line of its own with its description', async () => {
    const { code, out, err } = await cli(['--help']);
    expect(code).toBe(0);
    expect(err).toBe('');
    // One section per command, blank-line separated: its summary, usage line, arguments, options.
    const sections = out.split('\n\n');
    for (const command of COMMANDS) {
      const section = sections.find((s) => s.startsWith(`  ${command.name}  ${command.summary}\n`));
      expect(section, command.name).toBeDefined();
      expect(section).toMatch(new RegExp(`^    surfacer ${command.name}\\b`, 'm'));
      for (const option of command.options) {
        const line = optionLine(section!, option);
        expect(line, `${command.name} --${option.name}`).toBeDefined();
        expect(line).toContain(option.description);
        if (option.env) expect(line).toContain(`env ${option.env}`);
      }
    }
    expect(COMMANDS.map((c) => c.name)).toEqual(['serve', 'mcp', 'init', 'compile', 'validate', 'sim', 'replay']);
    expect((await cli(['-h'])).out).toBe(out);
    expect((await cli(['help'])).out).toBe(out);
  });

  it('with no command: the same help on stderr, exit 2', async () => {
    const { code, out, err } = await cli([]);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe((await cli(['--help'])).out);
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s --help: its usage, summary, arguments and every option with a line each', async (name, command) => {
    const { code, out, err } = await cli([name, '--help']);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out.split('\n')[0]).toMatch(new RegExp(`^usage: surfacer ${name}( |$)`));
    expect(out).toContain(command.summary);
    if (command.args) expect(out).toContain(`  ${command.args}  ${command.argsDescription}`);
    for (const option of [...command.options, HELP_OPTION]) {
      expect(optionLine(out, option), `--${option.name}`).toContain(option.description);
    }
    expect((await cli([name, '-h'])).out).toBe(out);
    expect((await cli(['help', name])).out).toBe(out);
    // --help wins wherever it stands, and nothing runs: no server starts, no file is read.
    expect((await cli([name, ...everyOption(command), '--help'])).out).toBe(out);
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s accepts every option its description lists', async (_name, command) => {
    // The command's own parser, reached directly: --help answers only once the options parsed.
    const { run } = await command.load();
    const io = memoryIo();
    expect(await run([...everyOption(command), '--help'], io), io.err()).toBe(0);
  });

  it('the value lists in help are the ones the code defines', () => {
    expect([...PLANNER_CHOICES]).toEqual(PlannerKind.options);
    expect([...A2UI_VERSION_CHOICES]).toEqual([...A2UI_VERSIONS]);
    expect([...COMPILE_TARGET_CHOICES]).toEqual([...TARGETS.keys()]);
  });

  it('docs/cli-commands.md shows every command\'s usage line as help prints it', () => {
    const doc = readFileSync(join(ROOT, 'docs/cli-commands.md'), 'utf8');
    for (const command of COMMANDS) expect(doc, command.name).toContain(`\`${usageLine(command).replaceAll('|', '\\|')}\``);
  });
});

describe('usage errors: exit 2, a clear line, nothing run', () => {
  it('an unknown command', async () => {
    const { code, out, err } = await cli(['deploy']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(`surfacer: unknown command 'deploy' (commands: ${COMMANDS.map((c) => c.name).join(', ')}; see surfacer --help)\n`);
    expect((await cli(['help', 'deploy'])).code).toBe(2);
  });

  it.each(COMMANDS.map((c) => [c.name] as const))('%s with an unknown option', async (name) => {
    const { code, out, err } = await cli([name, '--bogus', 'x']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(`surfacer ${name}: unknown option '--bogus'\nsee: surfacer ${name} --help\n`);
    expect((await cli([name, '-z'])).err).toContain(`surfacer ${name}: unknown option '-z'`);
  });

  it('an option without its value, or a flag given one', async () => {
    expect(await cli(['serve', '--port'])).toEqual({ code: 2, out: '', err: "surfacer serve: Option '--port <value>' argument missing\nsee: surfacer serve --help\n" });
    const flag = await cli(['validate', '--incremental=yes']);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain("surfacer validate: Option '--incremental' does not take an argument");
  });
});

describe('running the CLI from a checkout', () => {
  // The documented ways (docs/cli-commands.md); npx with an empty npm cache and offline, as in a fresh clone.
  const cache = mkdtempSync(join(tmpdir(), 'surfacer-npx-cache-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));
  const env = { ...process.env, npm_config_cache: cache, npm_config_offline: 'true', npm_config_update_notifier: 'false' };
  const ways: Array<[string, string, string[]]> = [
    ['npx surfacer', 'npx', ['surfacer']],
    ['npm run surfacer --', 'npm', ['run', '--silent', 'surfacer', '--']],
    ['node bin/surfacer.mjs', process.execPath, ['bin/surfacer.mjs']],
  ];

  it.each(ways)('%s --help, <command> --help, and exit 2 on an unknown option', async (_way, command, prefix) => {
    const help = await exec(command, [...prefix, '--help'], { cwd: ROOT, env });
    expect(help.stdout).toBe((await cli(['--help'])).out);
    const sim = await exec(command, [...prefix, 'sim', '--help'], { cwd: ROOT, env });
    expect(sim.stdout).toBe((await cli(['sim', '--help'])).out);
    const bad = await exec(command, [...prefix, 'sim', '--bogus'], { cwd: ROOT, env }).then(() => undefined, (error: { code: number; stderr: string }) => error);
    expect(bad?.code).toBe(2);
    expect(bad?.stderr).toContain("surfacer sim: unknown option '--bogus'");
  }, 60_000);
});
