import { z } from 'zod';
import {
  findLiveSurface, makeError, normalisePatchOps, PatchOpSchema, patchSurfaceData, toDataOps, type DirectiveDefinition,
  type TransitionResult,
} from '../../index.ts';
import { draftKind, viewFields } from '../fields.ts';
import { DEFAULT_SURFACE, onSurface, SurfaceField, surfaceUnknown } from './common.ts';

export const PatchPayloadSchema = z.object({
  surface: SurfaceField.optional(),
  ops: z.array(PatchOpSchema).min(1).max(64).describe('RFC 6902 subset: add | replace | remove on /draft/<field> or /ui/<key>'),
}).strict();
export type PatchPayload = z.infer<typeof PatchPayloadSchema>;

function opError(pointer: string, detail: string): TransitionResult {
  return { ok: false, error: makeError('DIRECTIVE_PATCH_OP_INVALID', detail, { pointer }) };
}

export const patchDirective: DirectiveDefinition<PatchPayload> = {
  type: 'ui.patch',
  aliases: ['patch', 'ui.update', 'update', 'ui.set', 'set_data'],
  description: 'Change what the user is editing (/draft/<field>) or presentation state (/ui/<key>) on an open panel. '
    + 'Saved values (/committed) cannot be patched.',
  payload: PatchPayloadSchema,
  example: { ops: [{ op: 'replace', path: '/draft/tagline', value: 'A bard who never sings the same song twice' }] },
  normalise(payload, ctx) {
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload) || !Object.hasOwn(payload, 'ops')) return payload;
    return { ...payload, ops: normalisePatchOps((payload as { ops: unknown }).ops, ctx) };
  },
  apply(ir, payload, draw) {
    const id = payload.surface ?? DEFAULT_SURFACE;
    const surface = findLiveSurface(ir, id);
    if (surface === undefined) return surfaceUnknown(id);
    const fields = new Map(viewFields(surface.view).map((f) => [f.name, f]));
    for (const [i, op] of payload.ops.entries()) {
      const [namespace, ...keys] = op.path.slice(1).split('/');
      if (namespace !== 'draft') continue;
      // /draft is flat and holds exactly the form's fields, each with its own type.
      const field = keys.length === 1 ? fields.get(keys[0]!) : undefined;
      if (field === undefined) return opError(`/ops/${i}/path`, `"${op.path}" is not a field of surface "${id}"`);
      if (op.op === 'remove') return opError(`/ops/${i}/op`, 'form fields cannot be removed; replace with "" to clear');
      const kind = draftKind(field.control);
      const ok = kind === 'string' ? typeof op.value === 'string'
        : kind === 'boolean' ? typeof op.value === 'boolean'
          : typeof op.value === 'number' || op.value === '';
      if (!ok) return opError(`/ops/${i}/value`, `"${field.name}" holds a ${kind}`);
    }
    return onSurface(patchSurfaceData(ir, id, toDataOps(payload.ops), draw), id);
  },
};
