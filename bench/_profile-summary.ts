/**
 * Self time of one or more `--cpu-prof` profiles by package or area, in % of the profile's busy
 * time (idle left out): `node --import tsx bench/_profile-summary.ts A.cpuprofile [B.cpuprofile …]`.
 * Used with BENCH_SSE_PROFILE (bench/telemetry.ts's servers write one profile each) to see where
 * the "on" side's extra CPU goes.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string } }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

function areaOf(n: ProfileNode): string {
  const { url, functionName } = n.callFrame;
  if (url === '') return functionName || '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.replace(/^node:internal\/(process|modules)\/.*/, 'node:internal/$1');
  return /\/src\/([^/]+)\//.exec(url)?.[1] ? `src/${/\/src\/([^/]+)\//.exec(url)![1]}` : 'other';
}

for (const file of process.argv.slice(2)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const area = areaOf(byId.get(id)!);
    if (area === '(idle)') return;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    self.set(area, (self.get(area) ?? 0) + dt);
  });
  console.log(`${file}: busy ${(busy / 1e6).toFixed(2)} s`);
  for (const [area, us] of [...self].sort((a, b) => b[1] - a[1]).filter(([a], i) => i < 8 || /opentelemetry|async_hooks|async_context|promise|als/i.test(a))) console.log(`  ${(100 * us / busy).toFixed(1).padStart(5)} %  ${area}`);
}
