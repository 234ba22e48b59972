import { summarizeSurface, surfaceSummary, type TurnResult } from '../../conversation/index.ts';
import { addedTranscriptEntries, type ConversationIr } from '../../ui-ir/index.ts';
import { SurfaceId } from '../../ui-ir/index.ts';
import { makeError } from '../../errors/index.ts';
import { respondFailure } from '../errors.ts';
import { changesHtml, panelShows, surfaceHtml } from '../fragments.ts';
import { single } from '../form.ts';
import type { Host, HostHono } from '../host.ts';
import { clientKind } from '../responses.ts';
import { requestGone } from '../../hosting/request-gone.ts';

/** POST /c/{cid}/actions (HTML ingress) and POST /c/{cid}/surfaces/{sid}/regenerate (epoch reset). */
export function registerActionRoutes(app: HostHono, host: Host): void {
  app.post('/c/:cid/actions', async (c) => {
    const conversation = c.get('conversation');
    const pc = c.get('pc');
    const fields = c.get('fields');
    const parsed = host.service.ingress.parseHtml(fields);
    const named = single(fields, '_surface');
    const surfaceId = named !== undefined && SurfaceId.safeParse(named).success ? named : undefined;
    if (!parsed.ok) {
      return respondFailure(host, c, parsed, {
        ir: conversation.ir, ...(surfaceId ? { surfaceId } : {}), rejected: { fields, version: conversation.version },
      });
    }
    const pageId = c.get('pageId');
    // The request's signal cancels an action's side effect when the client goes away.
    const result = await host.service.applyAction(conversation.id, parsed.request, { signal: requestGone(c), ...(pageId === undefined ? {} : { origin: pageId }) });
    const sid = parsed.request.surfaceId;
    if (!result.ok) {
      const current = (await host.service.get(conversation.id)) ?? conversation;
      return respondFailure(host, c, result, { ir: current.ir, surfaceId: sid, rejected: { fields, version: current.version } });
    }
    if (result.kind !== 'applied') {
      return respondFailure(host, c, { error: makeError('HTTP_BAD_REQUEST', `unexpected ${result.kind} outcome`) }, { ir: result.next });
    }
    const kind = clientKind(c);
    // An action that continues the conversation: this request waits for the planner turn (the
    // page's busy indicator and its cancel button serve it like a typed message's turn).
    const turn = result.continuation === undefined ? undefined : await result.continuation;
    const next = turn?.ok ? turn.next : result.next;
    const done = result.replayed ? 'Already done: this form was submitted before.' : result.toast?.text ?? 'Done.';
    const message = turn === undefined ? done : turn.ok ? turn.error?.message ?? 'The assistant replied.' : turn.error.message;
    // The panel's own message ("Saved to your card library…") is where the person looks: the
    // page does not say it a second time (issue 33).
    const inPanel = turn === undefined && !result.replayed && panelShows(next, sid, message);
    if (kind === 'json') {
      return c.json({
        ok: true, replayed: result.replayed, action: result.action, surface: surfaceSummary(result.next, sid),
        ...(result.toast ? { toast: result.toast } : {}),
        ...(turn === undefined ? {} : { continuation: continuationSummary(turn, result.next) }),
      });
    }
    if (kind === 'html') {
      // Without JavaScript: no flash beside the panel's message; the reloaded page opens at that
      // message (its id: compiler/html/views/surface.eta), in view even below a long form.
      if (inPanel) return c.redirect(`${pc.base}#surface-${sid}-toast`, 303);
      const failed = turn !== undefined && (!turn.ok || turn.error !== undefined);
      const level = failed ? (turn.ok && turn.outcome === 'cancelled' ? 'info' : 'error') : result.toast?.level ?? 'success';
      await host.sessions.setFlash(c, { level, text: message });
      return c.redirect(pc.base, 303);
    }
    return c.html(`${surfaceHtml(pc, next, sid)}\n${changesHtml(pc, result.prev, next, { skipSurface: sid, status: message, quietStatus: inPanel, clearAlerts: true })}`);
  });

  app.post('/c/:cid/surfaces/:sid/regenerate', async (c) => {
    const conversation = c.get('conversation');
    const pc = c.get('pc');
    const sid = c.req.param('sid');
    if (!SurfaceId.safeParse(sid).success) {
      return respondFailure(host, c, { error: makeError('IR_SURFACE_NOT_FOUND', 'invalid surface id') }, { ir: conversation.ir });
    }
    const pageId = c.get('pageId');
    const result = await host.service.resetSurfaceEpoch(conversation.id, sid, { reason: 'regenerate', ...(pageId ? { origin: pageId } : {}) });
    if (!result.ok) return respondFailure(host, c, result, { ir: conversation.ir });
    const kind = clientKind(c);
    const message = 'Panel regenerated. Please check it and submit again.';
    if (kind === 'json') return c.json({ ok: true, surface: surfaceSummary(result.next, sid) });
    if (kind === 'html') {
      await host.sessions.setFlash(c, { level: 'info', text: message });
      return c.redirect(pc.base, 303);
    }
    return c.html(`${surfaceHtml(pc, result.next, sid)}\n${changesHtml(pc, result.prev, result.next, { skipSurface: sid, status: message, clearAlerts: true })}`);
  });
}

/** What a JSON client learns of the turn an action continued with (like POST /messages answers). */
function continuationSummary(turn: TurnResult, after: ConversationIr): Record<string, unknown> {
  if (!turn.ok) return { ok: false, error: turn.error };
  return {
    ok: true, outcome: turn.outcome, ...(turn.error ? { error: turn.error } : {}),
    transcript: addedTranscriptEntries(after.transcript, turn.next.transcript),
    surfaces: turn.next.surfaces.map(summarizeSurface), trace_id: turn.trace.request_id,
  };
}
