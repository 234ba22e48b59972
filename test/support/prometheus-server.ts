import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../crash/support/child-server.ts';

/**
 * A real Prometheus (Debian's `prometheus` package, which ships `promtool`; .ci/run installs it)
 * for one test file: its own free loopback port, its own storage directory, scrapes and rule
 * evaluations every second. Never the system's 9090.
 */

/** Why `command` cannot run here (not installed), or undefined when it answers `--version`. */
export function missingCommand(command: 'prometheus' | 'promtool'): string | undefined {
  const probe = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0
    ? undefined
    : `${command} not found: the Prometheus suite needs Debian's prometheus (apt-get install prometheus; .ci/run installs it)`;
}

/** `promtool ARGS` in `cwd`: its exit code and what it printed. */
export function promtool(args: string[], cwd?: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

export interface ScrapeJob {
  job: string;
  /** `host:port` */
  target: string;
  /** Sent as `Authorization: Bearer …`, as a production scrape config would. */
  bearerToken?: string;
}

/** What Prometheus's HTTP API answers (`/api/v1/...`), `data` unchecked. */
interface ApiAnswer { status: string; data: unknown; error?: string }

export interface TestPrometheus {
  readonly url: string;
  /** `GET /api/v1/<path>`; throws unless Prometheus answers `success`. */
  api<T>(path: string, params?: Record<string, string>): Promise<T>;
  /** An instant query: each series' labels and value. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => { for (const child of live) child.kill('SIGKILL'); });

export async function startPrometheus(options: { jobs: ScrapeJob[]; ruleFiles: string[] }): Promise<TestPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'surfacer-prometheus-'));
  const port = await freePort();
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: options.ruleFiles,
    scrape_configs: options.jobs.map((j) => ({
      job_name: j.job,
      ...(j.bearerToken !== undefined ? { authorization: { type: 'Bearer', credentials: j.bearerToken } } : {}),
      static_configs: [{ targets: [j.target] }],
    })),
  };
  // JSON is YAML: no YAML writer needed.
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const proc = spawn('prometheus', [
    `--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited (${proc.exitCode}): ${stderr}`);
    }
    if (await fetch(`${url}/-/ready`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not start on ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  async function api<T>(path: string, params: Record<string, string> = {}): Promise<T> {
    const response = await fetch(`${url}/api/v1/${path}?${new URLSearchParams(params)}`);
    const answer = await response.json() as ApiAnswer;
    if (answer.status !== 'success') throw new Error(`prometheus /api/v1/${path}: ${answer.error ?? response.status}`);
    return answer.data as T;
  }
  return {
    url,
    api,
    async query(promql) {
      const data = await api<{ result: Array<{ metric: Record<string, string>; value: [number, string] }> }>('query', { query: promql });
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    stop,
  };
}
