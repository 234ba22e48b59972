import { findSurface, type ConversationIr, type Surface } from '../../ui-ir/index.ts';
import { renderRegenerateForm, renderSurface } from './render.ts';
import { surfaceViewModel, type HtmlCompileOptions } from './view-model.ts';

export { formatDisplayValue, formatFieldValue, safeUrl } from './controls.ts';
export { idempotencyKey, itemIdempotencyKey, surfaceViewModel } from './view-model.ts';
export type { BlockVm, FieldVm, HtmlCompileOptions, ItemFormVm, ListItemVm, ListVm, RejectedSubmit, SurfaceVm } from './view-model.ts';

export interface HtmlSurfaceFragment {
  id: string;
  /** The element id htmx swaps (`surface-<id>`). */
  elementId: string;
  epoch: number;
  rev: number;
  lifecycle: string;
  html: string;
  bytes: number;
}

export interface HtmlCompileResult {
  surfaces: HtmlSurfaceFragment[];
  /** All fragments in surface order, newline-separated. */
  html: string;
}

/** IR → HTML fragments, one per surface. A pure function of (ir, options): same input, same bytes. */
export function compileConversationToHtml(ir: ConversationIr, options: HtmlCompileOptions = {}): HtmlCompileResult {
  const surfaces = ir.surfaces.map((surface) => {
    const html = renderSurface(surfaceViewModel(ir, surface, options));
    return {
      id: surface.id, elementId: `surface-${surface.id}`, epoch: surface.epoch, rev: surface.rev,
      lifecycle: surface.lifecycle, html, bytes: Buffer.byteLength(html, 'utf8'),
    };
  });
  return { surfaces, html: surfaces.map((s) => s.html).join('\n') };
}

/** One surface's fragment; `oob` marks it for an out-of-band swap (e.g. `true`). */
export function compileSurfaceToHtml(
  ir: ConversationIr, surfaceId: string, options: HtmlCompileOptions & { oob?: string } = {},
): string | undefined {
  const surface = findSurface(ir, surfaceId);
  return surface ? renderSurface(surfaceViewModel(ir, surface, options), options.oob) : undefined;
}

/** The small regenerate form shown with a 409 (epoch reset of one surface). */
export function compileRegenerateForm(ir: ConversationIr, surfaceId: string, options: HtmlCompileOptions = {}): string | undefined {
  const surface = findSurface(ir, surfaceId);
  return surface ? renderRegenerateForm(surfaceViewModel(ir, surface, options)) : undefined;
}

/**
 * A surface's HTML depends only on the surface object, its conversation's id and the options,
 * and IR objects are never mutated: trace stats (default options) are computed once per surface
 * object, so a turn pays for the surfaces it changed, not for the whole conversation again.
 */
const statsBytes = new WeakMap<Surface, { conversationId: string; bytes: number }>();

/** Per-surface stats for Trace v1 (`target: 'html'`). */
export function htmlSurfaceStats(ir: ConversationIr, options: HtmlCompileOptions = {}): Array<{
  surface_id: string; target: 'html'; epoch: number; rev: number; lifecycle: string; bytes: number;
}> {
  const memoable = Object.keys(options).length === 0;
  return ir.surfaces.map((surface) => {
    const known = memoable ? statsBytes.get(surface) : undefined;
    let bytes = known?.conversationId === ir.conversationId ? known.bytes : undefined;
    if (bytes === undefined) {
      bytes = Buffer.byteLength(renderSurface(surfaceViewModel(ir, surface, options)), 'utf8');
      if (memoable) statsBytes.set(surface, { conversationId: ir.conversationId, bytes });
    }
    return { surface_id: surface.id, target: 'html' as const, epoch: surface.epoch, rev: surface.rev, lifecycle: surface.lifecycle, bytes };
  });
}
