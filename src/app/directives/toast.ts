import { z } from 'zod';
import { addToast, findLiveSurface, ToastLevel, type DirectiveDefinition } from '../../index.ts';
import { DEFAULT_SURFACE, SurfaceField, surfaceUnknown } from './common.ts';

export const ToastPayloadSchema = z.object({
  level: ToastLevel,
  text: z.string().min(1).max(500),
  surface: SurfaceField.optional().describe('panel the toast belongs to; default "main" when it is open'),
}).strict();
export type ToastPayload = z.infer<typeof ToastPayloadSchema>;

export const toastDirective: DirectiveDefinition<ToastPayload> = {
  type: 'ui.toast',
  aliases: ['toast', 'notify', 'ui.notify', 'ui.notification'],
  description: 'Show a short transient message (info, success, warning or error).',
  payload: ToastPayloadSchema,
  example: { level: 'success', text: 'Character saved.' },
  apply(ir, payload, draw) {
    // An explicit surface must exist; the default one is optional (the toast then stays global).
    if (payload.surface !== undefined && findLiveSurface(ir, payload.surface) === undefined) return surfaceUnknown(payload.surface);
    const surfaceId = payload.surface ?? DEFAULT_SURFACE;
    return { ok: true, ir: addToast(ir, { level: payload.level, text: payload.text, surfaceId }, draw) };
  },
};
