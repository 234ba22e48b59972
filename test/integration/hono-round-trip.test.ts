import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { compareHashes, createClientSim, type ClientSim } from '../../src/clientsim/index.ts';
import { compileConversationToA2ui, unguardA2uiValue } from '../../src/compiler/index.ts';
import { createMemoryStore } from '../../src/conversation/index.ts';
import { A2UI_CLIENT_HEADER, createA2uiHost, type A2uiHost } from '../../src/host-a2ui/index.ts';
import { createApp, createConversationStack, type HostApp } from '../../src/host-html/index.ts';
import { createSeededSource, findSurface } from '../../src/ui-ir/index.ts';
import { SseParser } from '../support/sse-client.ts';
import { errorsOf, initLines, SAME_STATE, wire } from './support/host.ts';

/*
 * The round trip of round-trip.test.ts through the real Hono app (app.request, no sockets):
 * the conversation stack, the A2UI host mounted by createApp's `extend`, GET …/stream (SSE) to
 * follow the conversation, POST …/events with the userAction ClientSim built.
 */

const app = createDemoApp();
let running: { a2ui: A2uiHost; host: HostApp; abort: AbortController } | undefined;

afterEach(() => {
  running?.abort.abort();
  running?.a2ui.close();
  running?.host.closeStreams();
  running = undefined;
});

/** Reads an SSE response into ClientSim until `done` holds (or times out). */
function follow(response: Response, sim: ClientSim) {
  const messages: unknown[] = [];
  const parser = new SseParser({ onEvent: (e) => { const m = JSON.parse(e.data) as unknown; messages.push(m); expect(errorsOf(sim.apply(m))).toEqual([]); } });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  // One read in flight at a time, kept across waits: a read that loses a race to the timer
  // still delivers its chunk later.
  let pending: ReturnType<typeof reader.read> | undefined;
  return {
    messages,
    async until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`timed out after ${messages.length} messages: ${JSON.stringify(messages.slice(-3)).slice(0, 1500)}`);
        pending ??= reader.read();
        const chunk = await Promise.race([pending, new Promise<undefined>((r) => setTimeout(r, 100))]);
        if (chunk === undefined) continue;
        pending = undefined;
        if (chunk.done) throw new Error('stream ended');
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
    },
  };
}

describe('round trip through the Hono app (POST /a2ui/c/:cid/events)', () => {
  it('character card: stream init → ClientSim fills and clicks → POST → the streamed update commits the values', async () => {
    const conversations = createConversationStack({ app, store: createMemoryStore(), entropy: createSeededSource('hono') });
    const a2ui = createA2uiHost({ service: conversations, heartbeatMs: 60_000 });
    const host = createApp({ app, conversations, sessionSecret: 's'.repeat(32), extend: (hono) => a2ui.mount(hono) });
    const abort = new AbortController();
    running = { a2ui, host, abort };

    const conversation = await conversations.create('owner-1');
    const turn = await conversations.runTurn(conversation.id, 'I want to create a character named Aria');
    expect(turn).toMatchObject({ ok: true });
    const base = `/a2ui/c/${conversation.id}`;
    const auth = { authorization: `Bearer ${conversation.a2uiToken}`, [A2UI_CLIENT_HEADER]: '1' };

    const sim = createClientSim({ hash: SAME_STATE });
    const stream = await host.hono.request(`${base}/stream`, { headers: { ...auth, accept: 'text/event-stream' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    const events = follow(stream, sim);
    await events.until(() => sim.surface('main--e0')?.rendering === true);

    for (const [id, value] of [
      ['main.f-personality.TextField', 'Curious, kind, a little vain.'], ['main.f-tagline.TextField', '[a bard]'],
      ['main.f-tags.TextField', 'fantasy, bard'], ['main.f-visibility.MultipleChoice', ['public']],
    ] as const) expect(sim.input('main--e0', id, value)).toEqual([]);
    const clicked = sim.click('main--e0', 'main.a0-form_submit.Button');
    if (!clicked.ok) throw new Error(clicked.violation.detail);
    const posted = await host.hono.request(`${base}/events`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(clicked.message),
    });
    expect(posted.status, await posted.clone().text()).toBe(200);
    expect(await posted.json()).toMatchObject({ ok: true, action: 'form.submit', surface: { id: 'main', rev: 1 } });

    const committed = (): unknown => unguardA2uiValue(sim.surface('main--e0')?.dataModel.committed);
    const expected = {
      name: 'Aria', tagline: '[a bard]', personality: 'Curious, kind, a little vain.', tags: { 0: 'fantasy', 1: 'bard' }, visibility: 'public',
    };
    await events.until(() => isDeepStrictEqual(committed(), expected));
    const ir = (await conversations.get(conversation.id))!.ir;
    expect(findSurface(ir, 'main')!.data.committed).toEqual({ ...expected, tags: ['fantasy', 'bard'] });
    // The streamed client equals a fresh init of the committed IR.
    const fresh = createClientSim({ hash: SAME_STATE });
    // Compiled as the host compiles for this app: with its theme (beginRendering.styles).
    const theme = { primaryColor: app.theme!.primaryColor, ...(app.theme!.fontFamily === undefined ? {} : { font: app.theme!.fontFamily }) };
    fresh.applyAll(wire(compileConversationToA2ui(ir, { theme })));
    await events.until(() => compareHashes(sim.hashes(), fresh.hashes()).length === 0);

    // The draft came back guarded ("[a bard]" + U+2060); submitting it untouched must store
    // exactly what the user typed: the A2UI host unguards before the ingress.
    expect(sim.surface('main--e0')!.dataModel.draft).toMatchObject({ tagline: '[a bard]\u2060' });
    const again = sim.click('main--e0', 'main.a0-form_submit.Button');
    if (!again.ok) throw new Error(again.violation.detail);
    const second = await host.hono.request(`${base}/events`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(again.message),
    });
    expect(second.status, await second.clone().text()).toBe(200);
    const after = (await conversations.get(conversation.id))!.ir;
    expect(findSurface(after, 'main')).toMatchObject({ rev: 2, data: { committed: { tagline: '[a bard]' }, draft: { tagline: '[a bard]' } } });

    // The first click again: rendered at rev 0, now stale.
    const stale = await host.hono.request(`${base}/events`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(clicked.message),
    });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ code: 'A2UI_C2S_SURFACE_STALE' });
  });
});
