import { z } from 'zod';
import { canonicaliseDataPath, DataValueSchema, type DataOp } from '../ui-ir/index.ts';
import { isPlainObject } from './diagnostics.ts';
import type { NormaliseContext } from './registry.ts';

/**
 * The RFC 6902 subset directives may use on surface data: add, replace, remove, on `/draft/...`
 * and `/ui/...` only. Data maps hold no arrays a model may index, so `add` and `replace` both
 * set the key (no existence test, no `-` append) and removing an absent key changes nothing.
 * `move`, `copy` and `test` are refused.
 */
export const WRITABLE_POINTER = /^\/(draft|ui)(\/[A-Za-z0-9_-]{1,64}){1,6}$/;

const PatchPath = z.string().regex(WRITABLE_POINTER).describe('JSON Pointer into /draft or /ui, e.g. /draft/name');

export const PatchOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: PatchPath, value: DataValueSchema }).strict(),
  z.object({ op: z.literal('replace'), path: PatchPath, value: DataValueSchema }).strict(),
  z.object({ op: z.literal('remove'), path: PatchPath }).strict(),
]);
export type PatchOp = z.infer<typeof PatchOpSchema>;

/** Op spellings models use, folded to lower case first. Decision: `set` means replace. */
export const PATCH_OP_ALIASES: ReadonlyMap<string, PatchOp['op']> = new Map([
  ['add', 'add'], ['insert', 'add'], ['create', 'add'],
  ['replace', 'replace'], ['set', 'replace'], ['update', 'replace'], ['put', 'replace'], ['assign', 'replace'],
  ['remove', 'remove'], ['delete', 'remove'], ['unset', 'remove'],
]);

/**
 * Canonicalises one data path for writing. Segment paths (`name`, `draft/name`, `draft.name`)
 * become pointers with a warning; `/committed` is never writable by a directive.
 */
export function normaliseWritablePath(path: unknown, pointer: string, ctx: NormaliseContext): unknown {
  if (typeof path !== 'string') return path;
  const result = canonicaliseDataPath(path);
  if (!result.ok) {
    ctx.fail('DIRECTIVE_POINTER_INVALID', pointer, result.reason);
    return path;
  }
  if (result.path.namespace === 'committed') {
    ctx.fail('DIRECTIVE_COMMITTED_READONLY', pointer, `"${path}" is in /committed, which only a submit writes`);
    return path;
  }
  if (result.path.keys.length === 0) {
    ctx.fail('DIRECTIVE_POINTER_INVALID', pointer, `"${path}" names a whole namespace, not a key`);
    return path;
  }
  if (result.canonicalised) ctx.warn('DIRECTIVE_WARN_SEGMENT_PATH', pointer, `"${path}" read as "${result.pointer}"`);
  return result.pointer;
}

/** Normalises `ops` (op aliases, paths) ahead of PatchOpSchema; pointers relative to the payload. */
export function normalisePatchOps(ops: unknown, ctx: NormaliseContext, pointer = '/ops'): unknown {
  if (!Array.isArray(ops)) return ops;
  return ops.map((op, i) => {
    if (!isPlainObject(op)) return op;
    const at = `${pointer}/${i}`;
    const out: Record<string, unknown> = { ...op };
    if (typeof op.op === 'string') {
      const canonical = PATCH_OP_ALIASES.get(op.op.trim().toLowerCase());
      if (canonical === undefined) {
        ctx.fail('DIRECTIVE_PATCH_OP_INVALID', `${at}/op`, `unsupported op "${op.op}" (add, replace, remove)`);
      } else if (canonical !== op.op) {
        ctx.warn('DIRECTIVE_WARN_ALIAS_USED', `${at}/op`, `op "${op.op}" read as "${canonical}"`);
        out.op = canonical;
      }
    }
    if (Object.hasOwn(op, 'path')) out.path = normaliseWritablePath(op.path, `${at}/path`, ctx);
    if (out.op === 'remove' && Object.hasOwn(out, 'value')) {
      ctx.warn('DIRECTIVE_WARN_COERCED', `${at}/value`, 'a value given to "remove" was ignored');
      delete out.value;
    }
    return out;
  });
}

/** Validated ops → the IR's data ops. */
export function toDataOps(ops: readonly PatchOp[]): DataOp[] {
  return ops.map((op) => {
    const [namespace, ...keys] = op.path.slice(1).split('/') as ['draft' | 'ui', ...string[]];
    return op.op === 'remove' ? { op: 'remove', namespace, keys } : { op: op.op, namespace, keys, value: op.value };
  });
}
