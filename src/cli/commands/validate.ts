import { parseArgs } from 'node:util';
import { appCatalogFromDocumentV09, type AppCatalogV09 } from '../../compiler/components/index.ts';
import { a2uiWire, flattenFollowOns, validateA2uiV09Messages, type Violation } from '../../compiler/index.ts';
import { A2UI_VERSION_OPTION, A2UI_VERSION_USAGE, a2uiVersionOf } from '../a2ui-version.ts';
import { EXIT_INPUT_UNREADABLE, inputErrorLine, parseJsonArrayOrLines, readInputText } from '../io.ts';
import type { CliIo } from '../main.ts';

/**
 * `surfacer validate [--incremental] [--a2ui-version V] [FILE|-]`: runs the A2UI semantic validator
 * of version V (default 0.8) over a stream (JSON array or JSON Lines). Exit 0 when it has no
 * errors (warnings are still printed), 1 with one line per finding, `<CODE> message <n>: <detail>`
 * (n counts messages from 1, which is the line number for JSONL), 2 on usage errors and on a FILE
 * that cannot be read (CLI_INPUT_UNREADABLE on stderr). A finding's follow-on findings (the
 * components a dangling reference cut off) are printed under it, indented, not as findings.
 * `--incremental`: surfaces the stream does not start (v0.8: no beginRendering, v0.9: no
 * createSurface) are taken as already on the client (updates after an init).
 * `--catalog FILE` (v0.9): an app catalogue (a v0.9 catalogue document, e.g. the one the server
 * generates from its components) the client also holds: a createSurface may name it, and that
 * surface's app components are checked against its schemas. An unreadable or malformed FILE
 * exits 2 (CLI_INPUT_UNREADABLE, or a usage line).
 */
const USAGE = `usage: surfacer validate [--incremental] ${A2UI_VERSION_USAGE} [--catalog FILE] [FILE|-]\n`;

export function formatViolation(v: Violation): string {
  const where = v.pointer !== undefined ? ` (at ${v.pointer})` : '';
  const level = v.severity === 'warning' || v.severity === 'info' ? `${v.severity}: ` : '';
  return `${v.code} message ${v.messageIndex + 1}: ${level}${v.technical_detail}${where}`;
}

/** Names listed on a follow-on line before the rest is only counted. */
const LISTED = 30;

/**
 * The follow-ons of a finding, one indented line per code: what they are about (the component
 * ids, for unreachable components) rather than a line each. Indented lines start with no code.
 */
export function formatFollowOns(v: Violation): string[] {
  const byCode = new Map<string, Violation[]>();
  for (const f of v.followOns ?? []) byCode.set(f.code, [...(byCode.get(f.code) ?? []), f]);
  return [...byCode].map(([code, list]) => {
    const names = list.map((f) => (f.componentId !== undefined ? f.componentId : f.technical_detail));
    const shown = names.slice(0, LISTED).join(', ') + (names.length > LISTED ? `, … and ${names.length - LISTED} more` : '');
    return `  + ${list.length} follow-on ${code}: ${shown}`;
  });
}

export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { incremental: { type: 'boolean' }, catalog: { type: 'string' }, ...A2UI_VERSION_OPTION, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    io.stderr.write(`surfacer validate: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const version = a2uiVersionOf(parsed.values['a2ui-version']);
  if (!version.ok || parsed.positionals.length > 1) {
    io.stderr.write(`${version.ok ? '' : `surfacer validate: ${version.message}\n`}${USAGE}`);
    return 2;
  }
  let appCatalog: AppCatalogV09 | undefined;
  const catalogFile = parsed.values.catalog;
  if (catalogFile !== undefined) {
    if (version.version === '0.8') {
      io.stderr.write(`surfacer validate: --catalog needs --a2ui-version 0.9 (app components are compiled for v0.9 clients)\n${USAGE}`);
      return 2;
    }
    const read = await readInputText(catalogFile, io.stdin);
    if (!read.ok) {
      io.stderr.write(inputErrorLine('validate', read.error));
      return EXIT_INPUT_UNREADABLE;
    }
    let document: unknown;
    try {
      document = JSON.parse(read.text);
    } catch (error) {
      io.stderr.write(`surfacer validate: ${JSON.stringify(catalogFile)} is not JSON: ${(error as Error).message}\n`);
      return 2;
    }
    const loaded = appCatalogFromDocumentV09(document);
    if (!loaded.ok) {
      io.stderr.write(`surfacer validate: ${JSON.stringify(catalogFile)} is not an A2UI catalogue: ${loaded.message}\n`);
      return 2;
    }
    appCatalog = loaded.catalog;
  }
  let text: string;
  try {
    const read = await readInputText(parsed.positionals[0], io.stdin);
    if (!read.ok) {
      io.stderr.write(inputErrorLine('validate', read.error));
      return EXIT_INPUT_UNREADABLE;
    }
    text = read.text;
  } catch (error) {
    io.stderr.write(`surfacer validate: cannot read standard input: ${(error as Error).message}\n`);
    return EXIT_INPUT_UNREADABLE;
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
  const incremental = parsed.values.incremental === true;
  const violations = appCatalog === undefined
    ? a2uiWire(version.version).validate(messages, { incremental })
    : validateA2uiV09Messages(messages, { incremental, appCatalog });
  for (const v of violations) io.stdout.write([formatViolation(v), ...formatFollowOns(v)].map((l) => `${l}\n`).join(''));
  const failed = flattenFollowOns(violations).some((v) => v.severity === 'error' || v.severity === 'fatal');
  if (!failed) io.stderr.write(`valid: ${messages.length} message${messages.length === 1 ? '' : 's'}\n`);
  return failed ? 1 : 0;
}
