import { z } from 'zod';
import { makeError, SurfaceId, type TransitionResult } from '../../index.ts';

/** The panel a directive targets; `main` when left out. */
export const DEFAULT_SURFACE = 'main';

export const SurfaceField = SurfaceId.describe('surface id; default "main"');
export const Label = z.string().min(1).max(200);

/** Handler failures point into the payload; the runner prefixes the directive's position. */
export function surfaceUnknown(surfaceId: string, pointer = '/surface'): TransitionResult {
  return { ok: false, error: makeError('DIRECTIVE_SURFACE_UNKNOWN', `no open surface "${surfaceId}"`, { pointer }) };
}

/** Maps the IR's "no such surface" to the directive code; other failures pass through. */
export function onSurface(result: TransitionResult, surfaceId: string): TransitionResult {
  return !result.ok && result.error.code === 'IR_SURFACE_NOT_FOUND' ? surfaceUnknown(surfaceId) : result;
}
