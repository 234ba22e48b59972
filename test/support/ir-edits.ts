import fc from 'fast-check';
import type { ConversationIr } from '../../src/ui-ir/index.ts';
import { arbDataValue } from './arbitraries-ir.ts';

/**
 * Edits of a valid IR that a buggy action handler might make: one part replaced, copy-on-write
 * (so everything else stays shared, as after a real transition), by a value that may or may not
 * be valid. Used to check that the memoised IR validation agrees with the full zod parse.
 */

/** Values that probe the edges of the schemas (and of the data-map fast path). */
const sparse = (): unknown[] => { const a: unknown[] = ['x']; a[2] = 'y'; return a; };
const ownProto = (): object => ({ ['__proto__']: 'x' });
const deep = (n: number): unknown => (n === 0 ? 'leaf' : { k: deep(n - 1) });
const arbNasty = fc.constantFrom<() => unknown>(
  () => Number.NaN, () => Infinity, () => null, () => undefined, sparse, ownProto, () => Object.create(null) as object,
  () => Object.assign(Object.create(null) as object, { a: 'b' }), () => new Date(0), () => new Map(), () => deep(7),
  () => deep(8), () => deep(9), () => ({ constructor: 'x' }), () => ({ 'a.b': 1 }), () => ({ [Symbol('s')]: 1 }),
  () => [[['a']]], () => ({ a: [1, 'b', true] }), () => ({ a: { b: { c: 1 } } }), () => [1, Number.NaN], () => 'x'.repeat(5000),
  () => -0, () => '', () => Object.defineProperty({}, 'hidden', { value: 1, enumerable: false }),
).map((make) => make());
export const arbValue: fc.Arbitrary<unknown> = fc.oneof(arbDataValue(3), fc.dictionary(fc.string(), arbDataValue(2)), arbNasty, fc.anything());

/** Replaces one part of `ir` (copying only the path to it), as a buggy handler might. */
export type Edit = { where: number; key: string; value: unknown };
export const arbEdit: fc.Arbitrary<Edit> = fc.record({
  where: fc.nat(),
  key: fc.constantFrom('name', 'tags', 'toast', 'id', 'text', '__proto__', 'constructor', 'x', 'level', 'rev'),
  value: arbValue,
});

export function edited(ir: ConversationIr, edit: Edit): unknown {
  const surfaces = ir.surfaces;
  const targets: Array<() => unknown> = [
    () => ({ ...ir, [edit.key === 'id' ? 'conversationId' : 'seq']: edit.value }),
    () => ({ ...ir, toasts: [...ir.toasts, edit.value] }),
    () => ({ ...ir, transcript: [...ir.transcript, edit.value] }),
    () => ({ ...ir, surfaces: [...surfaces, edit.value] }),
  ];
  surfaces.forEach((s, i) => {
    const put = (next: unknown): unknown => ({ ...ir, surfaces: surfaces.map((x, j) => (j === i ? next : x)) });
    targets.push(
      () => put({ ...s, [edit.key]: edit.value }),
      () => put({ ...s, data: { ...s.data, draft: { ...s.data.draft, [edit.key]: edit.value } } }),
      () => put({ ...s, data: { ...s.data, committed: { ...s.data.committed, [edit.key]: edit.value } } }),
      () => put({ ...s, data: { ...s.data, ui: { ...s.data.ui, [edit.key]: edit.value } } }),
      () => put({ ...s, data: { ...s.data, ui: edit.value } }),
      () => put({ ...s, view: { ...s.view, blocks: [...s.view.blocks, edit.value] } }),
      () => put({ ...s, tombstones: [...s.tombstones, edit.value] }),
      () => put({ ...s, id: surfaces[(i + 1) % surfaces.length]!.id }), // duplicate id when there are two
    );
  });
  ir.toasts.forEach((t, i) => targets.push(() => ({ ...ir, toasts: ir.toasts.map((x, j) => (j === i ? { ...t, [edit.key]: edit.value } : x)) })));
  return targets[edit.where % targets.length]!();
}

