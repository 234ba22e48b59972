import { composerData, regenerateHtml, surfacesHtml, transcriptViewModel, type AlertData } from '../fragments.ts';
import type { Host, HostHono } from '../host.ts';
import { clientKind } from '../responses.ts';

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
    const pageId = host.randomToken(12);
    c.header('Cache-Control', 'no-store');
    return c.html(host.views.page('page', host.layout(c, { title: host.deps.app.name, pageId, withTrace: true }), {
      transcript: transcriptViewModel(conversation.ir.transcript),
      surfacesHtml: surfacesHtml(pc, conversation.ir),
      composer: composerData(pc, { autofocus: true }),
      flash: alert,
      statusText: '',
      eventsUrl: `${pc.base}/events?page=${pageId}&v=${conversation.version}`,
    }));
  });

  app.get('/c/:cid/trace', async (c) => {
    const conversation = c.get('conversation');
    const traces = (await host.service.traces(conversation.id)) ?? [];
    c.header('Cache-Control', 'no-store');
    if (clientKind(c) === 'json') return c.json({ conversation_id: conversation.id, traces });
    const base = c.get('pc').base;
    return c.html(host.views.page('trace', host.layout(c, { title: `Traces · ${host.deps.app.name}` }), {
      traces, backUrl: base, jsonUrl: `${base}/trace`,
    }));
  });
}
