import { compileConversationToHtml, compileSurfaceToHtml } from '../compiler/html/index.ts';
import type { Failure } from '../conversation/types.ts';
import type { SurfacerError } from '../errors/index.ts';
import { findLiveSurface, type ConversationIr } from '../ui-ir/index.ts';
import { alertHtml, compileOptions, regenerateHtml, type AlertData, type PageContext } from './fragments.ts';
import type { FormFields, Host, HostContext } from './host.ts';
import { asStatus, clientKind, htmxError, issueLines, jsonError, retryHint, statusFor } from './responses.ts';
import { conversationPage } from './routes/page.ts';

const STALE = 'A2UI_C2S_SURFACE_STALE';
const KEY_REUSED = 'A2UI_C2S_IDEMPOTENCY_KEY_REUSED';

export interface FailureOptions {
  surfaceId?: string;
  ir: ConversationIr;
  /**
   * A rejected surface form (POST /c/{cid}/actions): a plain browser post then gets the page
   * itself, with the failure status, its typed values back in the form (a redirect would rebuild
   * the form from the stored draft, which the rejected action never changed: bad input never
   * loses data) and the message in the surface's alert slot. `version` is that of `ir`.
   */
  rejected?: { fields: FormFields; version: number };
}

/**
 * A failure inside an owned conversation: htmx gets a fragment in the surface's alert slot (or
 * #alerts), JSON clients the canonical object, a plain form post a flash and 303 back (or, for
 * a rejected surface form, the page with what was typed). A stale surface comes with a
 * regenerate button. A reused idempotency key means the form in the page carries a used key:
 * htmx gets the surface itself, current (fresh hidden fields) with what was typed and the alert,
 * as a plain post gets the page, so sending it again is a new request.
 */
export async function respondFailure(
  host: Host, c: HostContext, failure: Pick<Failure, 'error' | 'status' | 'issues'>, options: FailureOptions,
): Promise<Response> {
  const { error } = failure;
  const status = statusFor(error, failure.status);
  const kind = clientKind(c);
  // Not on the flash-and-redirect answer: on a 3xx, Retry-After would delay the redirect itself.
  if (kind !== 'html' || options.rejected !== undefined) retryHint(c, error);
  if (kind === 'json') return jsonError(c, error, status, failure.issues);
  const pc = c.get('pc');
  const live = options.surfaceId !== undefined && findLiveSurface(options.ir, options.surfaceId) !== undefined;
  if (kind === 'html' && options.rejected !== undefined) {
    return rejectedPage(host, c, alertFor(pc, error, failure.issues, options), status, { ...options, rejected: options.rejected }, live);
  }
  if (kind === 'html') {
    await host.sessions.setFlash(c, {
      level: error.severity === 'warning' ? 'warning' : 'error', text: error.message, code: error.code,
      ...(error.code === STALE && live ? { surfaceId: options.surfaceId! } : {}),
    });
    return c.redirect(pc.base, 303);
  }
  const alert = alertFor(pc, error, failure.issues, options);
  if (error.code === KEY_REUSED && live && options.rejected !== undefined) {
    return htmxRejectedSurface(c, alert, status, { ir: options.ir, surfaceId: options.surfaceId!, fields: options.rejected.fields });
  }
  return htmxError(c, pc, alert, status, live ? `#surface-${options.surfaceId}-alert` : '#alerts');
}

/** The live surface re-rendered from `ir` with the submitted fields and the alert, swapped whole. */
function htmxRejectedSurface(
  c: HostContext, alert: AlertData, status: number, rejected: { ir: ConversationIr; surfaceId: string; fields: FormFields },
): Response {
  const pc = c.get('pc');
  const html = compileSurfaceToHtml(rejected.ir, rejected.surfaceId, {
    ...compileOptions(pc),
    rejected: { surfaceId: rejected.surfaceId, fields: rejected.fields, alertHtml: alertHtml(pc, alert) },
  }) ?? '';
  // htmx swaps 4xx into #alerts (HTMX_CONFIG) unless retargeted: here the surface, whole.
  c.header('HX-Retarget', `#surface-${rejected.surfaceId}`);
  c.header('HX-Reswap', 'outerHTML');
  return c.html(html, asStatus(status) as never);
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

/**
 * The conversation page as GET /c/{cid} renders it, but with the rejected surface showing the
 * submitted values and the alert (in #alerts when the surface is gone). Nothing is stored.
 */
function rejectedPage(
  host: Host, c: HostContext, alert: AlertData, status: number,
  options: FailureOptions & { rejected: NonNullable<FailureOptions['rejected']> }, live: boolean,
): Response {
  const { ir, surfaceId, rejected } = options;
  const surfacesHtml = (pc: PageContext): string => compileConversationToHtml(ir, {
    ...compileOptions(pc),
    ...(live ? { rejected: { surfaceId: surfaceId!, fields: rejected.fields, alertHtml: alertHtml(pc, alert) } } : {}),
  }).html;
  // The version of `ir`: the events stream refreshes (and so resets the form) only on later changes.
  return conversationPage(host, c, { ir, version: rejected.version, surfacesHtml, flash: live ? undefined : alert }, asStatus(status));
}
