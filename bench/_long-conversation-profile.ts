/**
 * CPU profiles for bench/long-conversation.ts (LONG_PROFILE=<dir>): the inspector's Profiler on
 * this very thread around one phase, written as a .cpuprofile (Chrome DevTools opens it), and a
 * summary of one: `node --import tsx bench/_long-conversation-profile.ts FILE.cpuprofile [TOP]`
 * prints the top functions by self time and by inclusive time (url:line, share of samples).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export interface Profiling { stop(file: string): Promise<void> }

export async function startProfiling(intervalUs = 200): Promise<Profiling> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop') as { profile: CpuProfile };
      session.disconnect();
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(profile));
    },
  };
}

const where = (frame: ProfileNode['callFrame']): string => {
  const url = frame.url.replace(/^file:\/\//, '').replace(/^.*\/work\/main\//, '');
  return `${frame.functionName || '(anonymous)'} ${url}${url ? `:${frame.lineNumber + 1}` : ''}`;
};

/** Self and inclusive time per function (a sample counts once per function on its stack). */
export function summarize(profile: CpuProfile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  profile.samples.forEach((id, i) => { time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)); });
  const total = [...time.values()].reduce((a, b) => a + b, 0);
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  for (const [id, t] of time) {
    const node = byId.get(id)!;
    const key = where(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = where(byId.get(cur)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + t);
    }
  }
  const fmt = (m: Map<string, number>): string[] => [...m].sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([k, t]) => `${(t / 1000).toFixed(0).padStart(7)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
  return [`total sampled ${(total / 1000).toFixed(0)} ms`, '', 'self time:', ...fmt(self), '', 'inclusive time:', ...fmt(incl)].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node --import tsx bench/_long-conversation-profile.ts FILE.cpuprofile [TOP]');
  process.stdout.write(`${summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(process.argv[3] ?? 25))}\n`);
}
