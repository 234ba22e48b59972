import type { CliCommand } from './main.ts';

/**
 * The one description of the `surfacer` commands and their options: `surfacer --help`,
 * `surfacer <command> --help` and the check that refuses an unknown option (exit 2) are all
 * derived from it, so help cannot drift from what is accepted. Each command still parses its own
 * arguments; test/cli/help.test.ts holds every option listed here to be one its command accepts,
 * and the value lists here (planners, targets, A2UI versions) to be the ones the code defines.
 * Kept free of heavy imports: `surfacer --help` loads no compiler.
 */
export interface OptionSpec {
  /** The long name, without `--`. */
  name: string;
  type: 'string' | 'boolean';
  short?: string;
  /** What the value looks like in help: `N`, `DIR`, `ir|a2ui|html`. String options only. */
  value?: string;
  /** The environment variable read when the option is absent. */
  env?: string;
  /** The default, as help shows it. */
  default?: string;
  /** The command cannot run without it. */
  required?: boolean;
  /** One line. */
  description: string;
}

export interface CommandSpec {
  name: string;
  /** One line: what the command does. */
  summary: string;
  /** The positional arguments as the usage line shows them (`[FILE|-]`, `LOG`, `DIR`). */
  args?: string;
  /** One line about the positional arguments. */
  argsDescription?: string;
  options: readonly OptionSpec[];
  /** Each command lives in its own module, loaded only when asked for (`validate` does not start the HTTP stack). */
  load: () => Promise<{ run: CliCommand }>;
}

export const A2UI_VERSION_CHOICES = ['0.8', '0.9', '0.9.1'] as const;
export const PLANNER_CHOICES = ['offline', 'ollama', 'openai', 'replay'] as const;
export const COMPILE_TARGET_CHOICES = ['ir', 'a2ui', 'html'] as const;

const a2uiVersion: OptionSpec = {
  name: 'a2ui-version', type: 'string', value: A2UI_VERSION_CHOICES.join('|'), default: '0.8',
  description: 'the A2UI wire version of the stream',
};
const inputFile = { args: '[FILE|-]', argsDescription: 'the input file; standard input when absent or -' };

/** The help option every command has; listed last in its help. */
export const HELP_OPTION: OptionSpec = { name: 'help', type: 'boolean', short: 'h', description: 'show this help and exit' };

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'serve',
    summary: 'serve the demo app (what `npm start` runs): htmx pages at /, A2UI pages and streams at /a2ui/',
    options: [
      { name: 'port', type: 'string', value: 'N', env: 'PORT', default: '8787', description: 'the HTTP port; 0 picks a free one' },
      { name: 'host', type: 'string', value: 'ADDR', env: 'HOST', default: '127.0.0.1', description: 'the address to listen on' },
      { name: 'planner', type: 'string', value: PLANNER_CHOICES.join('|'), env: 'SURFACER_PLANNER', default: 'offline', description: 'who answers a message: the offline keyword planner or a model' },
      { name: 'data', type: 'string', value: 'DIR', env: 'SURFACER_DATA_DIR', default: '.data/conversations', description: 'the directory of the conversation logs; unused with --redis' },
      { name: 'redis', type: 'string', value: 'URL', env: 'SURFACER_REDIS_URL', description: 'share conversations with other instances through Redis: a redis:// or rediss:// URL; several comma-separated (or SURFACER_REDIS_CLUSTER=1): a Redis Cluster' },
    ],
    load: () => import('./commands/serve.ts'),
  },
  {
    name: 'mcp',
    summary: 'serve the app to an MCP host over stdio (Claude Desktop, VS Code, Goose): directives as tools, surfaces as an MCP App view; logs on stderr',
    options: [
      { name: 'planner', type: 'string', value: PLANNER_CHOICES.join('|'), env: 'SURFACER_PLANNER', default: 'offline', description: 'who answers surfacer_message: the offline keyword planner or a model' },
      { name: 'data', type: 'string', value: 'DIR', env: 'SURFACER_DATA_DIR', default: '.data/conversations', description: 'the directory of the conversation logs (those of `surfacer serve`); unused with --redis' },
      { name: 'redis', type: 'string', value: 'URL', env: 'SURFACER_REDIS_URL', description: 'share conversations with other instances through Redis: a redis:// or rediss:// URL' },
    ],
    load: () => import('./commands/mcp.ts'),
  },
  {
    name: 'init',
    summary: 'write a new app to start from: a directive, an action, an offline planner, a server, a ClientSim test',
    args: 'DIR',
    argsDescription: 'the new app\'s directory: absent or empty',
    options: [
      { name: 'name', type: 'string', value: 'NAME', default: 'from DIR', description: 'the app\'s name, shown as the page title' },
      { name: 'surfacer', type: 'string', value: 'SPEC', default: 'file: this package', description: 'how the app\'s package.json names surfacer: an npm spec, e.g. file:../surfacer-0.1.0.tgz' },
    ],
    load: () => import('./commands/init.ts'),
  },
  {
    name: 'compile',
    summary: 'apply directive envelopes (or raw model texts) to an empty IR and print it compiled; same input and seed, same bytes',
    ...inputFile,
    options: [
      { name: 'target', type: 'string', value: COMPILE_TARGET_CHOICES.join('|'), required: true, description: 'what to print: the IR as JSON, A2UI JSONL or HTML fragments' },
      { ...a2uiVersion, description: 'the A2UI wire version; with --target a2ui only' },
      { name: 'strict', type: 'boolean', description: 'refuse any non-canonical directive input: exit 1' },
      { name: 'seed', type: 'string', value: 'S', default: '0', description: 'the seed of ids and nonces' },
    ],
    load: () => import('./commands/compile.ts'),
  },
  {
    name: 'validate',
    summary: 'check an A2UI stream (JSON array or JSONL): exit 0 when valid, 1 with one line per finding',
    ...inputFile,
    options: [
      { name: 'incremental', type: 'boolean', description: 'surfaces the stream does not begin are taken as already on the client' },
      a2uiVersion,
      { name: 'catalog', type: 'string', value: 'FILE', description: 'an app catalogue (v0.9 catalogue JSON) the client also has: its components are checked against it (A2UI 0.9 only)' },
    ],
    load: () => import('./commands/validate.ts'),
  },
  {
    name: 'sim',
    summary: 'replay an A2UI stream through ClientSim and print each surface\'s state and hash as JSON',
    ...inputFile,
    options: [a2uiVersion],
    load: () => import('./commands/sim.ts'),
  },
  {
    name: 'replay',
    summary: 're-fold a conversation log, check every recorded IR hash, print the final IR, A2UI and HTML hashes',
    args: 'LOG',
    argsDescription: 'a conversation log, e.g. .data/conversations/<cid>.jsonl',
    options: [{ name: 'json', type: 'boolean', description: 'print the report as JSON' }],
    load: () => import('./commands/replay.ts'),
  },
];

export function commandSpec(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** The options of `command` as node:util parseArgs takes them, help included. */
export function parseArgsOptions(command: CommandSpec): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const o of [...command.options, HELP_OPTION]) options[o.name] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  return options;
}

function flag(o: OptionSpec): string {
  return `--${o.name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
}

/** `surfacer compile --target ir|a2ui|html [--a2ui-version …] [FILE|-]`: required options bare, the rest in brackets. */
export function usageLine(command: CommandSpec): string {
  const options = command.options.map((o) => (o.required ? flag(o) : `[${flag(o)}]`));
  return ['surfacer', command.name, ...options, ...(command.args ? [command.args] : [])].join(' ');
}

function optionLines(options: readonly OptionSpec[], indent: string): string[] {
  const labels = options.map((o) => `${o.short ? `-${o.short}, ` : ''}${flag(o)}`);
  const width = Math.max(...labels.map((l) => l.length));
  return options.map((o, i) => {
    const notes = [o.required ? 'required' : '', o.env ? `env ${o.env}` : '', o.default ? `default ${o.default}` : ''].filter(Boolean).join('; ');
    return `${indent}${labels[i]!.padEnd(width)}  ${o.description}${notes ? ` (${notes})` : ''}`;
  });
}

/** The usage line of the command `name`, as its own error messages print it. */
export function usageOf(name: string): string {
  const command = commandSpec(name);
  if (command === undefined) throw new Error(`no command '${name}' in commands-spec.ts`);
  return `usage: ${usageLine(command)}\n`;
}

/** `surfacer <command> --help`. */
export function commandHelp(command: CommandSpec): string {
  const lines = [`usage: ${usageLine(command)}`, '', command.summary];
  if (command.args) lines.push('', 'arguments:', `  ${command.args}  ${command.argsDescription ?? ''}`.trimEnd());
  lines.push('', 'options:', ...optionLines([...command.options, HELP_OPTION], '  '));
  return `${lines.join('\n')}\n`;
}

/** `surfacer --help`: every command with its summary, and every option with a line each. */
export function generalHelp(): string {
  const lines = ['usage: surfacer <command> [options]', '       surfacer <command> --help', '', 'commands:'];
  for (const command of COMMANDS) {
    lines.push('', `  ${command.name}  ${command.summary}`, `    ${usageLine(command)}`);
    if (command.args) lines.push(`    ${command.args}  ${command.argsDescription ?? ''}`.trimEnd());
    if (command.options.length > 0) lines.push(...optionLines(command.options, '    '));
  }
  lines.push('', 'Every command also takes -h, --help.', 'Exit status: 0 done; 1 the input is wrong (a finding, a failure); 2 a wrong call (an unknown command or option, a missing or bad value).');
  return `${lines.join('\n')}\n`;
}
