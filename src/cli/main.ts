import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}

export type CliCommand = (args: string[], io: CliIo) => Promise<number>;

// Each command lives in its own module, loaded only when asked for, so `surfacer validate`
// does not pay for starting the HTTP stack.
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: CliCommand }> }> = {
  serve: { summary: 'serve [--port N] [--planner offline|ollama]', load: () => import('./commands/serve.ts') },
  compile: { summary: 'compile --target ir|a2ui|html [--a2ui-version 0.8|0.9|0.9.1] [--strict] [--seed S] [FILE|-]', load: () => import('./commands/compile.ts') },
  validate: { summary: 'validate [--incremental] [--a2ui-version 0.8|0.9|0.9.1] [FILE|-]', load: () => import('./commands/validate.ts') },
  sim: { summary: 'sim [--a2ui-version 0.8|0.9|0.9.1] [FILE|-]', load: () => import('./commands/sim.ts') },
  replay: { summary: 'replay [--json] LOG', load: () => import('./commands/replay.ts') },
};

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    io.stderr.write(`surfacer: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  const command = await COMMANDS[name]!.load();
  return command.run(rest, io);
}

function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  surfacer ${c.summary}`);
  return `usage:\n${lines.join('\n')}\n`;
}
