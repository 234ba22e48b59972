import os from 'node:os';
import { compileSurfaceToA2ui, compileSurfaceToA2uiV09, type CompileResult } from '../src/compiler/index.ts';
import {
  createSeededSource, draw, emptyConversation, openSurface,
  type Block, type DataMap, type FieldBlock, type Surface,
} from '../src/ui-ir/index.ts';

/**
 * IR → A2UI for one surface with 10 / 100 / 1,000 fields, for each wire version (v0.8, v0.9):
 * compile + validate + guardrails + serialise (compileSurfaceToA2ui / compileSurfaceToA2uiV09 do
 * all four and return the JSON lines), against the floor = a bare JSON.stringify of the same
 * output messages, measured in the same run.
 * Goal: ratio ≤ 3×, and linear growth (per-field time flat from 10 to 1,000 fields).
 */
const CONTROLS: FieldBlock['control'][] = [
  'text', 'textarea', 'number', 'secret', 'date', 'datetime', 'time',
  'checkbox', 'select', 'multiselect', 'slider', 'tags', 'url', 'email',
];

function field(i: number): FieldBlock {
  const control = CONTROLS[i % CONTROLS.length]!;
  const options = control === 'select' || control === 'multiselect'
    ? [{ value: 'a', label: 'Option A' }, { value: 'b', label: 'Option B' }, { value: 'c', label: 'Option C' }]
    : undefined;
  return {
    kind: 'field', name: `f${i}`, label: `Field number ${i}`, control, required: i % 3 === 0,
    ...(options ? { options } : {}), ...(i % 5 === 0 ? { help: `Help for field ${i}` } : {}),
    ...(control === 'slider' ? { min: 0, max: 10 } : {}),
  };
}

function draftValue(f: FieldBlock, i: number): DataMap[string] {
  switch (f.control) {
    case 'checkbox': return i % 2 === 0;
    case 'slider': return i % 10;
    case 'number': return i;
    case 'select': return 'a';
    case 'multiselect': return ['a', 'c'];
    default: return `value ${i}`;
  }
}

export function formSurface(fields: number): Surface {
  const all = Array.from({ length: fields }, (_, i) => field(i));
  // The IR allows 200 top-level blocks and 100 per group: big forms come in groups of 100.
  const blocks: Block[] = fields <= 100 ? all : Array.from({ length: Math.ceil(fields / 100) }, (_, g) => ({
    kind: 'group' as const, title: `Section ${g + 1}`, layout: 'column' as const, blocks: all.slice(g * 100, g * 100 + 100),
  }));
  const draft = Object.fromEntries(all.map((f, i) => [f.name, draftValue(f, i)]));
  const ir = openSurface(emptyConversation('bench'), {
    id: 'main',
    view: {
      template: 'bench', title: `Form with ${fields} fields`, blocks,
      actions: [{ name: 'form.submit', label: 'Save', role: 'submit', primary: true }, { name: 'form.cancel', label: 'Cancel', role: 'cancel', primary: false }],
    },
    draft,
  }, draw(createSeededSource('bench')));
  return ir.surfaces[0]!;
}

/**
 * Best ms per call over rounds of `inner` calls. Rounds of the two sides are interleaved so both
 * see the same JIT/GC state; the minimum is the least disturbed by other load on the machine.
 */
function measure(fns: (() => unknown)[], inner: number, rounds: number): number[] {
  const samples: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r += 1) {
    fns.forEach((fn, k) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < inner; i += 1) fn();
      samples[k]!.push(Number(process.hrtime.bigint() - t0) / 1e6 / inner);
    });
  }
  return samples.map((xs) => Math.min(...xs));
}

export interface A2uiBenchRow {
  fields: number; components: number; messages: number; bytes: number;
  compileMs: number; floorMs: number; ratio: number; usPerField: number;
}

export type CompileSurface = (surface: Surface) => CompileResult<unknown>;

export const VERSIONS: ReadonlyArray<{ name: string; compile: CompileSurface }> = [
  { name: 'v0.8', compile: (surface) => compileSurfaceToA2ui(surface) },
  { name: 'v0.9', compile: (surface) => compileSurfaceToA2uiV09(surface) },
];

export function benchSizes(sizes: readonly number[] = [10, 100, 1000], compileSurface: CompileSurface = VERSIONS[0]!.compile): A2uiBenchRow[] {
  const rows: A2uiBenchRow[] = [];
  for (const fields of sizes) {
    const surface = formSurface(fields);
    const result = compileSurface(surface);
    if (!result.ok || result.batches[0]!.kind !== 'init' || result.batches[0]!.recovery !== 'none') {
      throw new Error(`bench surface with ${fields} fields did not compile cleanly`);
    }
    const batch = result.batches[0]!;
    const messages = batch.messages;
    const compile = (): unknown => compileSurface(surface);
    const floor = (): unknown => messages.map((m) => JSON.stringify(m));
    const inner = Math.max(1, Math.round(2000 / fields));
    measure([compile, floor], inner, 5); // warm-up
    const [compileMs, floorMs] = measure([compile, floor], inner, 25) as [number, number];
    rows.push({
      fields, components: batch.stats.components, messages: batch.stats.messages, bytes: batch.stats.bytes,
      compileMs, floorMs, ratio: compileMs / floorMs, usPerField: (compileMs * 1000) / fields,
    });
  }
  return rows;
}

export function run(): void {
  const out: string[] = [`date ${new Date().toISOString().slice(0, 10)} · machine ${os.cpus()[0]?.model ?? 'unknown'} · node ${process.version} · load ${os.loadavg()[0]!.toFixed(2)}`];
  for (const version of VERSIONS) out.push('', `### ${version.name}`, '', ...table(benchSizes(undefined, version.compile)));
  process.stdout.write(`${out.join('\n')}\n`);
}

function table(rows: readonly A2uiBenchRow[]): string[] {
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  return [
    '| fields | components | messages | bytes | compile+validate+serialise ms | JSON.stringify ms (floor) | ratio | µs/field |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.fields} | ${r.components} | ${r.messages} | ${r.bytes} | ${r.compileMs.toFixed(3)} | ${r.floorMs.toFixed(3)} | ${r.ratio.toFixed(2)}× | ${r.usPerField.toFixed(1)} |`),
    '',
    `growth ${first.fields}→${last.fields} fields: time ×${(last.compileMs / first.compileMs).toFixed(1)} for ×${last.fields / first.fields} fields (per-field ×${(last.usPerField / first.usPerField).toFixed(2)}); floor ×${(last.floorMs / first.floorMs).toFixed(1)}`,
  ];
}
