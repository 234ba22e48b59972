import { parseArgs } from 'node:util';
import { driversV09, orderedJson, replay } from '../../clientsim/index.ts';
import type { A2uiVersion } from '../../compiler/index.ts';
import { A2UI_VERSION_OPTION, A2UI_VERSION_USAGE, a2uiVersionOf } from '../a2ui-version.ts';
import { EXIT_INPUT_UNREADABLE, inputErrorLine, parseJsonArrayOrLines, readInputText } from '../io.ts';
import type { CliIo } from '../main.ts';

const USAGE = `usage: surfacer sim ${A2UI_VERSION_USAGE} [FILE|-]\n`;

/**
 * `surfacer sim [--a2ui-version V] [FILE|-]`: replays A2UI messages (JSON array or JSONL) through
 * the ClientSim of version V (default 0.8) and prints `{surfaces: {id: {…}}, warnings}`.
 * Violations are findings, not failures: exit 0; exit 1 when the input cannot be parsed, 2 when
 * its FILE cannot be read (CLI_INPUT_UNREADABLE).
 */
type Report = (messages: unknown[]) => unknown;

// A Map keeps ids and data keys in arrival order; orderedJson writes it without the
// integer-keys-first reordering plain objects would impose.
const v08: Report = (messages) => {
  const result = replay(messages);
  const surfaces = new Map([...result.surfaces].map(([id, s]) => [id, {
    hash: s.hash,
    rendering: s.rendering,
    root: s.root,
    components: new Map(Object.entries(s.components)),
    dataModel: s.data,
  }]));
  return { surfaces, warnings: result.violations };
};

/** v0.9: components in their wire form (`{component, …properties}`), the data model as JSON, the rendered tree's node ids. */
const v09: Report = (messages) => {
  const result = driversV09.replay(messages);
  const surfaces = new Map([...result.surfaces].map(([id, s]) => [id, {
    hash: s.hash,
    catalogId: s.catalogId,
    rendering: s.rendering,
    components: new Map(Object.entries(s.components).map(([cid, c]) => [cid, { component: c.type, ...c.properties }])),
    dataModel: s.dataModel,
    rendered: s.tree.nodes.map((n) => (n.state === 'resolved' ? `${n.id}@${n.dataPath}` : `${n.id}@${n.dataPath} (${n.state})`)),
  }]));
  return { surfaces, warnings: result.violations };
};

const REPORTS: Readonly<Record<A2uiVersion, Report>> = { '0.8': v08, '0.9': v09, '0.9.1': v09 };

export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { ...A2UI_VERSION_OPTION, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    io.stderr.write(`surfacer sim: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout.write(USAGE);
    return 0;
  }
  const version = a2uiVersionOf(values['a2ui-version']);
  if (!version.ok || positionals.length > 1) {
    io.stderr.write(`surfacer sim: ${version.ok ? 'expected at most one FILE' : version.message}\n${USAGE}`);
    return 2;
  }
  let messages: unknown[];
  try {
    const read = await readInputText(positionals[0], io.stdin);
    if (!read.ok) {
      io.stderr.write(inputErrorLine('sim', read.error));
      return EXIT_INPUT_UNREADABLE;
    }
    messages = parseJsonArrayOrLines(read.text);
  } catch (error) {
    io.stderr.write(`surfacer sim: cannot read input: ${(error as Error).message}\n`);
    return 1;
  }
  io.stdout.write(`${orderedJson(REPORTS[version.version](messages), 2)}\n`);
  return 0;
}
