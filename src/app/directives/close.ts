import { z } from 'zod';
import { closeSurface, SurfaceId, type DirectiveDefinition } from '../../index.ts';
import { onSurface } from './common.ts';

export const ClosePayloadSchema = z.object({ surface: SurfaceId.describe('the panel to close, e.g. "main"') }).strict();
export type ClosePayload = z.infer<typeof ClosePayloadSchema>;

export const closeDirective: DirectiveDefinition<ClosePayload> = {
  type: 'ui.close',
  aliases: ['close', 'ui.close_surface', 'close_surface', 'ui.dismiss', 'dismiss'],
  description: 'Remove a panel. Its saved values stay on record; its buttons stop working.',
  payload: ClosePayloadSchema,
  example: { surface: 'main' },
  apply: (ir, payload, draw) => onSurface(closeSurface(ir, payload.surface, draw), payload.surface),
};
