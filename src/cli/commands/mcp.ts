import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { parseArgs } from 'node:util';
import { nodeEndOfLifeWarning } from '../../hosting/index.ts';
import { createPinoLogger, logSettingsFromEnv } from '../../telemetry/log.ts';
import { usageOf } from '../commands-spec.ts';
import type { CliIo } from '../main.ts';
import { untilStopped } from '../until-stopped.ts';
import { buildSurfacer, plannerAndStore, startProblem } from './serve.ts';

const USAGE = usageOf('mcp');

/**
 * `surfacer mcp`: the MCP door over stdio, for hosts that launch local servers (Claude Desktop,
 * VS Code, Goose). Standard output is the protocol's alone: every log line goes to stderr. The
 * conversations are the ones `surfacer serve` keeps (the same data directory, or Redis), owned
 * by the one local principal. Runs until the host closes standard input (or SIGINT/SIGTERM).
 */
export async function run(args: string[], io: CliIo, stop?: AbortSignal): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args, allowPositionals: false, strict: true,
      options: { planner: { type: 'string' }, data: { type: 'string' }, redis: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    io.stderr.write(`surfacer mcp: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  // Help goes to stderr too: a host that runs `surfacer mcp --help` by mistake reads no garbage.
  if (values.help) { io.stderr.write(USAGE); return 0; }
  const chosen = plannerAndStore(values, io.env);
  if ('problem' in chosen) {
    io.stderr.write(`surfacer mcp: ${chosen.problem}\n${USAGE}`);
    return 2;
  }
  const { planner, redisUrl } = chosen;
  const settings = logSettingsFromEnv(io.env, false);
  if ('error' in settings) {
    io.stderr.write(`surfacer mcp: ${settings.error}\n${USAGE}`);
    return 2;
  }
  const logger = createPinoLogger({ ...settings, destination: io.stderr, colorize: false });
  let built;
  try {
    built = await buildSurfacer({
      planner, ...(redisUrl ? { redisUrl } : {}), dataDir: values.data ?? io.env.SURFACER_DATA_DIR ?? '.data/conversations',
      env: io.env, logger,
    });
  } catch (error) {
    io.stderr.write(`surfacer mcp: ${startProblem(error)}\n`);
    return 2;
  }
  const { surfacer, cards } = built;
  if (surfacer.mcp === undefined) throw new Error('the MCP door is off');
  const connection = surfacer.mcp.serveStdio({ transport: new StdioServerTransport(io.stdin, io.stdout) });
  logger.info('MCP over stdio ready', { planner: surfacer.planner.label, store: built.backend.engine });
  const pastEndOfLife = nodeEndOfLifeWarning(process.version, new Date());
  if (pastEndOfLife !== undefined) logger.warn(pastEndOfLife);
  // Until the host closes our standard input, or the process is told to stop.
  await untilStopped(stop, io.stdin);
  await connection.close();
  await surfacer.close();
  await cards?.close();
  return 0;
}
