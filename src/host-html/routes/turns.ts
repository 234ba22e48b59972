import { summarizeSurface } from '../../conversation/index.ts';
import { makeError } from '../../errors/index.ts';
import { addedTranscriptEntries } from '../../ui-ir/index.ts';
import { respondFailure } from '../errors.ts';
import { changesHtml, messageFormHtml } from '../fragments.ts';
import { single } from '../form.ts';
import type { Host, HostHono } from '../host.ts';
import { clientKind } from '../responses.ts';

/** POST /c/{cid}/messages (one planner turn) and POST /c/{cid}/messages/cancel. */
export function registerTurnRoutes(app: HostHono, host: Host): void {
  app.post('/c/:cid/messages', async (c) => {
    const conversation = c.get('conversation');
    const pc = c.get('pc');
    // A suggestion of the empty state the person pressed (a submit button named `hint`) is the message.
    const fields = c.get('fields');
    const text = (single(fields, 'hint') ?? single(fields, 'text') ?? '').trim();
    if (text === '') {
      return respondFailure(host, c, { error: makeError('HTTP_BAD_REQUEST', 'empty message', { message: 'Please type a message.' }) }, { ir: conversation.ir });
    }
    if (text.length > host.limits.maxMessageLength) {
      return respondFailure(host, c, { error: makeError('HTTP_PAYLOAD_TOO_LARGE', `message over ${host.limits.maxMessageLength} characters`) }, { ir: conversation.ir });
    }
    const pageId = c.get('pageId');
    const result = await host.service.runTurn(conversation.id, text, undefined, pageId === undefined ? {} : { origin: pageId });
    if (!result.ok) return respondFailure(host, c, result, { ir: conversation.ir });
    const kind = clientKind(c);
    if (kind === 'json') {
      return c.json({
        ok: true, outcome: result.outcome, ...(result.error ? { error: result.error } : {}),
        transcript: addedTranscriptEntries(result.prev.transcript, result.next.transcript),
        surfaces: result.next.surfaces.map(summarizeSurface),
        trace: result.trace,
      });
    }
    if (kind === 'html') {
      if (result.error) await host.sessions.setFlash(c, { level: result.outcome === 'cancelled' ? 'info' : 'error', text: result.error.message, code: result.error.code });
      return c.redirect(pc.base, 303);
    }
    const cancelled = result.outcome === 'cancelled';
    const status = result.error?.message ?? 'The assistant replied.';
    // A cancelled message goes back into the box so nothing the user typed is lost. No autofocus:
    // htmx would focus it with scrolling (on a phone, away from a new panel); the page's script
    // puts the focus back without scrolling.
    return c.html(`${messageFormHtml(pc, { text: cancelled ? text : '' })}\n${changesHtml(pc, result.prev, result.next, { status, clearAlerts: result.error === undefined })}`);
  });

  app.post('/c/:cid/messages/cancel', async (c) => {
    const cancelled = await host.service.cancelTurn(c.get('conversation').id);
    const kind = clientKind(c);
    if (kind === 'json') return c.json({ ok: true, cancelled });
    if (kind === 'html') return c.redirect(c.get('pc').base, 303);
    return c.body(null, 204);
  });
}
