import type { Failure } from '../conversation/types.ts';
import type { SurfacerError } from '../errors/index.ts';
import { findLiveSurface, type ConversationIr } from '../ui-ir/index.ts';
import { regenerateHtml, type AlertData, type PageContext } from './fragments.ts';
import type { Host, HostContext } from './host.ts';
import { clientKind, htmxError, issueLines, jsonError, statusFor } from './responses.ts';

const STALE = 'A2UI_C2S_SURFACE_STALE';

/**
 * A failure inside an owned conversation: htmx gets a fragment in the surface's alert slot (or
 * #alerts), JSON clients the canonical object, a plain form post a flash and 303 back. A stale
 * surface comes with a regenerate button.
 */
export async function respondFailure(
  host: Host, c: HostContext, failure: Pick<Failure, 'error' | 'status' | 'issues'>, options: { surfaceId?: string; ir: ConversationIr },
): Promise<Response> {
  const { error } = failure;
  const status = statusFor(error, failure.status);
  const kind = clientKind(c);
  if (kind === 'json') return jsonError(c, error, status, failure.issues);
  const pc = c.get('pc');
  const live = options.surfaceId !== undefined && findLiveSurface(options.ir, options.surfaceId) !== undefined;
  if (kind === 'html') {
    await host.sessions.setFlash(c, {
      level: error.severity === 'warning' ? 'warning' : 'error', text: error.message, code: error.code,
      ...(error.code === STALE && live ? { surfaceId: options.surfaceId! } : {}),
    });
    return c.redirect(pc.base, 303);
  }
  const alert = alertFor(pc, error, failure.issues, options);
  return htmxError(c, pc, alert, status, live ? `#surface-${options.surfaceId}-alert` : '#alerts');
}

export function alertFor(
  pc: PageContext, error: Pick<SurfacerError, 'code' | 'message' | 'severity'>,
  issues: Failure['issues'], options: { surfaceId?: string; ir: ConversationIr },
): AlertData {
  const alert: AlertData = { level: error.severity === 'warning' ? 'warning' : 'error', text: error.message, code: error.code };
  const lines = issueLines(issues);
  if (lines.length > 0) alert.issues = lines;
  if (error.code === STALE) {
    const regenerate = options.surfaceId === undefined ? undefined : regenerateHtml(pc, options.ir, options.surfaceId);
    if (regenerate !== undefined) alert.regenerateHtml = regenerate;
    else alert.reload = pc.base;
  }
  return alert;
}
