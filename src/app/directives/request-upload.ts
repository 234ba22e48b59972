import { z } from 'zod';
import { openSurface, panelFor, UploadAccept, type DirectiveDefinition } from '../../index.ts';
import { UPLOAD_KEY, uploadView } from '../views.ts';
import { DEFAULT_SURFACE, Label, SurfaceField } from './common.ts';

const Accept = UploadAccept.describe('".png" or "image/*"');

export const RequestUploadPayloadSchema = z.object({
  accept: z.array(Accept).min(1).max(20),
  purpose: z.string().min(1).max(300).describe('why the file is needed, shown to the user'),
  label: Label.optional(),
  surface: SurfaceField.optional(),
}).strict();
export type RequestUploadPayload = z.infer<typeof RequestUploadPayloadSchema>;

export const requestUploadDirective: DirectiveDefinition<RequestUploadPayload> = {
  type: 'ui.request_upload',
  aliases: ['request_upload', 'requestUpload', 'upload', 'ui.upload', 'ask_file'],
  description: 'Ask the user for a file (e.g. an avatar image). Hosts without a file control ask for a link instead; '
    + 'the app records the file name or link, not its bytes.',
  payload: RequestUploadPayloadSchema,
  example: { accept: ['image/png', 'image/jpeg'], purpose: 'An avatar for your character.', label: 'Avatar image' },
  normalise(payload, ctx) {
    if (payload === null || typeof payload !== 'object' || !Object.hasOwn(payload, 'accept')) return payload;
    let accept = (payload as { accept: unknown }).accept;
    if (typeof accept === 'string') {
      ctx.warn('DIRECTIVE_WARN_COERCED', '/accept', `"${accept}" read as a list`);
      accept = accept.split(',').map((a) => a.trim()).filter((a) => a !== '');
    }
    if (!Array.isArray(accept)) return payload;
    // "png" means ".png": models drop the dot more often than not.
    const fixed = accept.map((a: unknown, i) => {
      if (typeof a !== 'string' || !/^[A-Za-z0-9]{1,10}$/.test(a)) return a;
      ctx.warn('DIRECTIVE_WARN_COERCED', `/accept/${i}`, `"${a}" read as ".${a}"`);
      return `.${a}`;
    });
    return { ...payload, accept: fixed };
  },
  apply(ir, payload, draw) {
    const view = uploadView({ accept: payload.accept, purpose: payload.purpose, label: payload.label });
    return { ok: true, ir: openSurface(ir, { id: panelFor(ir, payload.surface ?? DEFAULT_SURFACE, view), view, draft: { [UPLOAD_KEY]: '' } }, draw) };
  },
};
