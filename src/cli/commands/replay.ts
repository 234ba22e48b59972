import { hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { createDemoApp } from '../../app/index.ts';
import { a2uiBatchesToJsonl, compileConversationToA2ui } from '../../compiler/index.ts';
import { compileConversationToHtml } from '../../compiler/html/index.ts';
import {
  foldLog, formatDivergence, irHash, parseLog, runDirectivesAdapter, type FoldContext, type FoldDivergence, type FoldResult, type LogEntry,
} from '../../conversation/index.ts';
import { usageOf } from '../commands-spec.ts';
import type { CliIo } from '../main.ts';

const USAGE = usageOf('replay');

export type ReplayMismatch = FoldDivergence;

export interface ReplayReport {
  conversationId: string;
  /** Number of entries in the log (created included). */
  entries: number;
  ok: boolean;
  mismatches: ReplayMismatch[];
  final: { irHash: string; a2uiSha256: string; htmlSha256: string };
}

/**
 * `surfacer replay [--json] LOG`: re-folds one conversation log (`<cid>.jsonl` as the server
 * writes it) with the demo app and the recorded draws (src/conversation foldLog, the same fold a
 * restarted server runs), checks every recorded IR hash, and prints the final IR hash and the
 * SHA-256 (hex) of the final IR compiled to A2UI JSONL (full init) and to HTML. The output is a
 * function of the log alone. Exit 0 when every entry reproduced its recorded hash, 1 on any
 * mismatch or an unreadable log, 2 on usage errors.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: { values: { json?: boolean; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    io.stderr.write(`surfacer replay: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr.write(`surfacer replay: expected exactly one LOG file\n${USAGE}`);
    return 2;
  }
  const file = positionals[0]!;

  let entries: LogEntry[];
  let folded: FoldResult;
  try {
    entries = readLog(await readFile(file, 'utf8'), basename(file));
    folded = foldLog(entries, foldContext());
  } catch (error) {
    io.stderr.write(`surfacer replay: cannot replay ${file}: ${(error as Error).message}\n`);
    return 1;
  }

  const a2ui = compileConversationToA2ui(folded.ir);
  if (!a2ui.ok) {
    io.stderr.write(`surfacer replay: the replayed IR does not compile to A2UI: ${a2ui.errors.map((e) => e.code).join(', ')}\n`);
    return 1;
  }
  const mismatches = folded.divergences;
  const report: ReplayReport = {
    conversationId: folded.meta.cid,
    entries: entries.length,
    ok: mismatches.length === 0,
    mismatches,
    final: {
      irHash: irHash(folded.ir),
      a2uiSha256: sha256(a2uiBatchesToJsonl(a2ui.batches)),
      htmlSha256: sha256(compileConversationToHtml(folded.ir).html),
    },
  };

  io.stdout.write(values.json === true ? `${JSON.stringify(report)}\n` : human(report, entries));
  for (const m of mismatches) io.stderr.write(`surfacer replay: mismatch: ${formatDivergence(m)}\n`);
  return report.ok ? 0 : 1;
}

/** The log's complete lines (parseLog); unlike the server's read, a torn last line is an error here. */
function readLog(text: string, name: string): LogEntry[] {
  const { entries, validBytes } = parseLog(text, name);
  const torn = Buffer.byteLength(text, 'utf8') - validBytes;
  if (torn > 0) throw new Error(`the log ends in a torn line (${torn} bytes after the last newline)`);
  if (entries.length === 0) throw new Error('the log is empty');
  return entries;
}

/** What the server folds with (service.ts foldContext): the demo app, the real directives runner and ingress checks. */
function foldContext(): FoldContext {
  const app = createDemoApp();
  return {
    // Each turn entry's recorded mode overrides this one.
    turn: { runDirectives: runDirectivesAdapter, registry: app.directives, mode: 'best-effort' },
    actions: app.actions,
  };
}

function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

function human(report: ReplayReport, entries: readonly LogEntry[]): string {
  const bad = new Map<number, string>();
  for (const m of report.mismatches) bad.set(m.entry, [bad.get(m.entry), m.message].filter(Boolean).join('; '));
  const width = String(entries.length).length;
  const lines = [`conversation ${report.conversationId}: ${entries.length} entries`];
  entries.forEach((entry, i) => {
    const n = i + 1;
    const head = `${String(n).padStart(width)} ${entry.type.padEnd(7)}`;
    const status = bad.has(n) ? `MISMATCH ${bad.get(n)!}` : 'ok';
    // "created" records no IR hash (the fold starts from the empty conversation of its cid).
    lines.push(entry.type === 'created' ? head.trimEnd() : `${head} ${entry.irHash} ${status}`);
  });
  lines.push(
    `final ir hash     ${report.final.irHash}`,
    `final a2ui sha256 ${report.final.a2uiSha256}`,
    `final html sha256 ${report.final.htmlSha256}`,
    report.ok
      ? 'ok: every recorded IR hash reproduced'
      : `FAILED: ${report.mismatches.length} mismatch${report.mismatches.length === 1 ? '' : 'es'}`,
  );
  return `${lines.join('\n')}\n`;
}
