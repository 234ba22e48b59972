import { findSurface, type ConversationIr, type Surface } from '../ui-ir/index.ts';

/** The public summary of one surface (JSON responses of both hosts). */
export function summarizeSurface(s: Surface): Pick<Surface, 'id' | 'epoch' | 'rev' | 'lifecycle'> {
  return { id: s.id, epoch: s.epoch, rev: s.rev, lifecycle: s.lifecycle };
}

/** The summary of surface `surfaceId` in `ir`, or null when there is none. */
export function surfaceSummary(ir: ConversationIr, surfaceId: string): object | null {
  const s = findSurface(ir, surfaceId);
  return s ? summarizeSurface(s) : null;
}
