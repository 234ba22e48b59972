import { parseArgs } from 'node:util';
import { createDemoApp } from '../../app/index.ts';
import type { AppDefinition } from '../../conversation/app-definition.ts';
import { runDirectives, runModelOutput, type RunMode } from '../../directives/index.ts';
import { a2uiBatchesToJsonl, a2uiWire, type A2uiVersion } from '../../compiler/index.ts';
import { compileConversationToHtml } from '../../compiler/html/index.ts';
import { makeError, type SurfacerError } from '../../errors/index.ts';
import { createSeededSource, emptyConversation, type ConversationIr } from '../../ui-ir/index.ts';
import { A2UI_VERSION_OPTION, A2UI_VERSION_USAGE, a2uiVersionOf } from '../a2ui-version.ts';
import { EXIT_INPUT_UNREADABLE, parseJsonArrayOrLines, readInputText } from '../io.ts';
import type { CliIo } from '../main.ts';

/**
 * `surfacer compile --target T [--a2ui-version V] [--seed S] [--strict] [FILE|-]`: applies a JSON
 * array of directive envelopes (or raw model texts: string elements are parsed as model output)
 * to an empty IR (conversation "cli") with a seeded entropy source, then renders the IR with the
 * target. Same input + seed → same bytes.
 */
export interface TargetContext {
  app: AppDefinition;
  strict: boolean;
  /** The A2UI wire version (`--a2ui-version`, default 0.8); only the a2ui target reads it. */
  a2uiVersion: A2uiVersion;
}

export interface TargetOutput {
  output: string;
  /** Reported on stderr; any error makes a strict run exit 1. */
  errors?: SurfacerError[];
  warnings?: SurfacerError[];
}

export interface CompileTarget {
  summary: string;
  render(ir: ConversationIr, context: TargetContext): TargetOutput | Promise<TargetOutput>;
}

function renderA2ui(ir: ConversationIr, { strict, a2uiVersion }: TargetContext): TargetOutput {
  const result = a2uiWire(a2uiVersion).compileConversation(ir, { strict });
  if (!result.ok) return { output: '', errors: result.errors };
  return {
    output: a2uiBatchesToJsonl(result.batches),
    errors: result.batches.flatMap((b) => b.errors),
    warnings: result.batches.flatMap((b) => b.warnings),
  };
}

// One entry per target.
export const TARGETS: ReadonlyMap<string, CompileTarget> = new Map<string, CompileTarget>([
  ['ir', { summary: 'the UI IR as JSON', render: (ir) => ({ output: `${JSON.stringify(ir, null, 2)}\n` }) }],
  ['a2ui', { summary: 'A2UI JSONL (v0.8, or the --a2ui-version given), full init of every surface', render: renderA2ui }],
  ['html', { summary: 'HTML fragments, one per surface', render: (ir) => ({ output: `${compileConversationToHtml(ir).html}\n` }) }],
]);

const USAGE = `usage: surfacer compile --target ${[...TARGETS.keys()].join('|')} ${A2UI_VERSION_USAGE} [--seed S] [--strict] [FILE|-]\n`;

function line(io: CliIo, batch: number | undefined, error: SurfacerError): void {
  io.stderr.write(`${JSON.stringify(batch === undefined ? error : { batch, ...error })}\n`);
}

export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        target: { type: 'string' },
        seed: { type: 'string' },
        strict: { type: 'boolean', default: false },
        ...A2UI_VERSION_OPTION,
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    io.stderr.write(`surfacer compile: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const target = values.target === undefined ? undefined : TARGETS.get(values.target);
  if (target === undefined || positionals.length > 1) {
    const why = values.target === undefined ? 'missing --target' : positionals.length > 1 ? 'at most one FILE' : `unknown target '${values.target}'`;
    io.stderr.write(`surfacer compile: ${why} (targets: ${[...TARGETS.keys()].join(', ')})\n${USAGE}`);
    return 2;
  }
  const version = a2uiVersionOf(values['a2ui-version']);
  if (!version.ok || (values['a2ui-version'] !== undefined && values.target !== 'a2ui')) {
    io.stderr.write(`surfacer compile: ${version.ok ? '--a2ui-version goes with --target a2ui' : version.message}\n${USAGE}`);
    return 2;
  }
  const strict = values.strict === true;
  let batches: unknown[];
  try {
    const read = await readInputText(positionals[0], io.stdin);
    if (!read.ok) {
      line(io, undefined, read.error);
      return EXIT_INPUT_UNREADABLE;
    }
    batches = parseJsonArrayOrLines(read.text);
  } catch (error) {
    line(io, undefined, makeError('DIRECTIVE_PARSE_FAILED', `input: ${(error as Error).message}`, { pointer: '' }));
    return 1;
  }
  const app = createDemoApp();
  const source = createSeededSource(values.seed ?? '0');
  const mode: RunMode = strict ? 'strict' : 'best_effort';
  let ir = emptyConversation('cli');
  for (const [batch, element] of batches.entries()) {
    const result = typeof element === 'string'
      ? runModelOutput(app.directives, ir, element, { mode, source })
      : runDirectives(app.directives, ir, element, { mode, source });
    for (const w of result.warnings) line(io, batch, w);
    for (const e of result.errors) line(io, batch, e);
    if (strict && result.errors.length > 0) return 1;
    ir = result.ir;
  }
  const rendered = await target.render(ir, { app, strict, a2uiVersion: version.version });
  for (const w of rendered.warnings ?? []) line(io, undefined, w);
  for (const e of rendered.errors ?? []) line(io, undefined, e);
  if (strict && (rendered.errors?.length ?? 0) > 0) return 1;
  io.stdout.write(rendered.output);
  return 0;
}
