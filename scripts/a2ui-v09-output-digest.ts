/**
 * Digests of everything the v0.9 compiler and validator return, over many generated inputs, to
 * compare two versions of the code (performance work must not change a byte or a finding):
 *
 *   node --import tsx scripts/a2ui-v09-output-digest.ts > before.txt   # on the old commit
 *   node --import tsx scripts/a2ui-v09-output-digest.ts | diff before.txt -
 *
 * Inputs (fixed seeds): N (default 400) generated conversations compiled in full under five
 * option sets; N/2 transition sequences compiled incrementally (priorTypes carried as a host
 * does); each batch validated full and incremental, and validated again after random
 * corruptions (wrong values, removed and extra keys); the bench forms of 1 to 1,000 fields.
 * Not a test with pinned digests: generated inputs move with the arbitraries and the compiler's
 * intended output changes; the digests only mean something between two runs of one checkout's
 * inputs. The last line counts the inputs that gave findings (the corruptions do bite).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { formSurface } from '../bench/a2ui-compile.ts';
import {
  a2uiBatchesToJsonl, collectA2uiV09ComponentTypes, compileA2uiV09Update, compileConversationToA2uiV09, compileSurfaceToA2uiV09, validateA2uiV09Messages,
  type A2uiV09CompileResult,
} from '../src/compiler/index.ts';
import { applyTransitions, arbConversationIr, arbListHistory, arbTransitionSequence } from '../test/support/arbitraries-ir.ts';

const h = createHash('sha256');
const parts: Record<string, ReturnType<typeof createHash>> = {};
const counts: Record<string, number> = {};
function put(tag: string, v: unknown): void {
  if (Array.isArray(v) && v.length > 0) counts[tag] = (counts[tag] ?? 0) + 1;
  const s = JSON.stringify(v);
  h.update(s);
  (parts[tag] ??= createHash('sha256')).update(s);
}
function facts(r: A2uiV09CompileResult): unknown {
  return {
    ok: r.ok, jsonl: a2uiBatchesToJsonl(r.batches), errors: r.ok ? [] : r.errors, epochResets: r.epochResets,
    batches: r.batches.map((b) => ({ ...b, messages: undefined, lines: undefined, linesMatch: b.lines.every((l, i) => l === JSON.stringify(b.messages[i])) })),
  };
}
// Corruptions of a stream, validated: findings must stay identical.
function corrupt(messages: unknown[], rnd: () => number): unknown[] {
  const copy = JSON.parse(JSON.stringify(messages)) as unknown[];
  const walk = (v: unknown, depth: number): void => {
    if (typeof v !== 'object' || v === null) return;
    const keys = Object.keys(v);
    if (keys.length === 0) return;
    const k = keys[Math.floor(rnd() * keys.length)]!;
    const o = v as Record<string, unknown>;
    const r = rnd();
    if (depth > 1 && r < 0.15) { o[k] = [null, 7, 'x', '/a//b', { path: 'a~2' }, { call: 'nope', args: {} }, ['root'], 'root', { componentId: 'root', path: '/x' }, { path: 1 }][Math.floor(rnd() * 10)]; return; }
    if (depth > 1 && r < 0.22) { delete o[k]; return; }
    if (r < 0.28) { o['__extra'] = 1; return; }
    walk(o[k], depth + 1);
  };
  const n = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i += 1) walk(copy, 0);
  return copy;
}
let seed = 42;
const rnd = (): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const opts = [{}, { allowedActions: ['form.submit'] }, { strict: true }, { limits: { maxComponentsPerSurface: 10, maxBytesPerMessage: 1500, maxNestingDepth: 3 } }, { allowedComponents: ['Text', 'Card', 'Column', 'Row', 'Button'] }];
const N = Number(process.env.N ?? 400);
const irs = fc.sample(arbConversationIr, { seed: 7, numRuns: N });
irs.forEach((ir, i) => {
  const r = compileConversationToA2uiV09(ir, opts[i % opts.length] as never);
  put('init', facts(r));
  for (const b of r.batches) {
    put('val', validateA2uiV09Messages(b.messages));
    for (let c = 0; c < 3; c += 1) {
      const bad = corrupt(b.messages as unknown[], rnd);
      put('corrupt', validateA2uiV09Messages(bad));
      put('corruptInc', validateA2uiV09Messages(bad, { incremental: true, allowedActions: ['form.submit'] }));
    }
  }
});
const seqs = fc.sample(fc.oneof(arbTransitionSequence, arbListHistory), { seed: 9, numRuns: Math.floor(N / 2) });
seqs.forEach((ops, i) => {
  const states = applyTransitions(ops);
  const types = new Map<string, Map<string, string>>();
  for (let k = 1; k < states.length; k += 1) {
    const r = compileA2uiV09Update(states[k - 1], states[k]!, opts[(i + k) % 2] as never);
    put('update', facts(r));
    for (const b of r.batches) {
      put('valInc', validateA2uiV09Messages(b.messages, { incremental: true, priorTypes: types }));
      put('corruptInc2', validateA2uiV09Messages(corrupt(b.messages as unknown[], rnd), { incremental: true, priorTypes: types }));
      collectA2uiV09ComponentTypes(b.messages, types);
    }
  }
});
for (const n of [1, 10, 100, 1000]) put('bench', facts(compileSurfaceToA2uiV09(formSurface(n))));
for (const [k, v] of Object.entries(parts)) console.log(k, v.digest('hex').slice(0, 16));
console.log('ALL', h.digest('hex').slice(0, 32));
console.log('with findings', counts);
