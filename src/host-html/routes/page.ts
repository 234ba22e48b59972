import type { ConversationIr } from '../../ui-ir/index.ts';
import {
  composerData, emptyStateHtml, PAGE_MESSAGES, recentTranscript, regenerateHtml, surfacesHtml, transcriptViewModel, type AlertData, type PageContext,
} from '../fragments.ts';
import type { Host, HostContext, HostHono } from '../host.ts';
import { clientKind } from '../responses.ts';

/**
 * The whole conversation page for `ir`. `version` is the conversation version `ir` belongs to:
 * the page's events stream refreshes only on later changes. Every page load is a rendering of
 * its own: its page id (drawn from the host's injected token source) names it, so its forms'
 * idempotency keys are its own; `surfacesHtml` renders the panels for it.
 */
export function conversationPage(
  host: Host, c: HostContext,
  page: { ir: ConversationIr; version: number; surfacesHtml: (pc: PageContext) => string; flash: AlertData | undefined; autofocus?: boolean },
  status?: number,
): Response {
  // A request from no page already drew a fresh rendering id (app.ts): this page is named by it.
  const pageId = c.get('pageId') === undefined ? c.get('pc').renderId : host.randomToken(12);
  const pc: PageContext = { ...c.get('pc'), renderId: pageId };
  c.header('Cache-Control', 'no-store');
  const recent = recentTranscript(page.ir.transcript, c.req.query('messages'));
  const html = host.views.page('page', host.layout(c, { title: host.deps.app.name, pageId, withTrace: true }), {
    transcript: transcriptViewModel(recent.entries),
    ...(recent.earlier > 0 ? {
      earlier: { count: recent.earlier, url: `${pc.base}?messages=${recent.shown + PAGE_MESSAGES}#transcript`, more: Math.min(PAGE_MESSAGES, recent.earlier) },
    } : {}),
    surfacesHtml: page.surfacesHtml(pc),
    emptyStateHtml: emptyStateHtml(pc),
    description: pc.texts.description,
    composer: composerData(pc, { autofocus: page.autofocus ?? false }),
    flash: page.flash,
    statusText: '',
    eventsUrl: `${pc.base}/events?page=${pageId}&v=${page.version}`,
  });
  return status === undefined ? c.html(html) : c.html(html, status as never);
}

/** GET /c/{cid} (the page) and GET /c/{cid}/trace (JSON or a readable page). */
export function registerPageRoutes(app: HostHono, host: Host): void {
  app.get('/c/:cid', async (c) => {
    const conversation = c.get('conversation');
    const pc = c.get('pc');
    const flash = await host.sessions.takeFlash(c);
    let alert: AlertData | undefined;
    if (flash) {
      alert = { level: flash.level, text: flash.text, ...(flash.code ? { code: flash.code } : {}) };
      const regenerate = flash.surfaceId === undefined ? undefined : regenerateHtml(pc, conversation.ir, flash.surfaceId);
      if (regenerate !== undefined) alert.regenerateHtml = regenerate;
    }
    return conversationPage(host, c, {
      ir: conversation.ir, version: conversation.version, surfacesHtml: (page) => surfacesHtml(page, conversation.ir),
      flash: alert, autofocus: true,
    });
  });

  app.get('/c/:cid/trace', async (c) => {
    const conversation = c.get('conversation');
    const traces = (await host.service.traces(conversation.id)) ?? [];
    c.header('Cache-Control', 'no-store');
    if (clientKind(c) === 'json') return c.json({ conversation_id: conversation.id, traces });
    const base = c.get('pc').base;
    return c.html(host.views.page('trace', host.layout(c, { title: `Traces · ${host.deps.app.name}` }), {
      traces, backUrl: base, jsonUrl: `${base}/trace`,
      ...(host.deps.otelTraceUrl !== undefined ? { otelTraceUrl: host.deps.otelTraceUrl } : {}),
    }));
  });
}
