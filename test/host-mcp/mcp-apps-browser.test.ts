import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ConversationEvent } from '../../src/conversation/index.ts';
import { READ_TOOL, VIEW_ACTION_TOOL } from '../../src/host-mcp/index.ts';
import { findLiveSurface } from '../../src/ui-ir/index.ts';
import { newConversation, type Conversation } from '../e2e/support/stack.ts';
import { failedLoad, noChromiumReason, type ConsoleEntry } from '../support/browser/index.ts';
import { HttpClient } from '../support/http-client.ts';
import { skipUnless } from '../support/skip-reason.ts';
import { DESKTOP, field, savedRow, shoot } from './view-support/shots.ts';
import { appsE2eSuite, type OpenedHost } from './apps-e2e/harness.ts';
import { VIEW_CSP } from './view-support/server.ts';
import type { RunOptions } from './apps-e2e/host-page.ts';
import { startMcp } from './support.ts';

/*
 * Issue 30, "Done when", second bullet, end to end in headless Chromium: a host page built on
 * ext-apps' official AppBridge, connected to a real Surfacer server through the official MCP
 * client (Streamable HTTP from the page itself, a bearer token, the 2026-07-28 protocol), shows
 * the view of `show_form` (read from the server as the tool's `ui://` resource) in a sandboxed
 * iframe behind a sandbox proxy whose document carries the spec's default view CSP, and sends
 * the tool's input and result. A person types into the character card and presses Save once:
 * the AppBridge forwards the view's tools/call to the server through the client, the server
 * applies the save once, the htmx page of the browser session the token acts for shows it, and
 * the host receives the model-context update. No console error or warning, no CSP violation.
 */
/** The token the host page sends: it acts as the owner of the browser session the test opens. */
const AGENT_TOKEN = 'mcp-apps-e2e-agent-0123456789';
const NAME = 'Isolde Marrow';
const PERSONALITY = 'Patient, wry and fiercely loyal.';

const noChromium = noChromiumReason();

describe('an MCP Apps host on the official AppBridge and MCP client, against a real Surfacer, in Chromium', skipUnless(noChromium), () => {
  const suite = appsE2eSuite(AGENT_TOKEN, (options) => startMcp(options));
  const { consoleLog, open, recorded, asE2e } = suite;
  type Opened = OpenedHost;

  async function expectClean(opened: Opened, expected: ConsoleEntry[] = []): Promise<void> {
    expect(consoleLog.drain(), 'the console has no error or warning').toEqual(expected);
    expect(opened.page.frames()).toHaveLength(3);
    for (const frame of opened.page.frames()) {
      expect(await frame.evaluate(() => window.__svViolations ?? ['(no recorder)']), `CSP violations in ${frame.url() || '(srcdoc)'}`).toEqual([]);
    }
    expect(opened.foreign, 'no request left the three origins').toEqual([]);
  }

  it.each([
    { era: 'pinned', protocol: '2026-07-28', shots: true },
    { era: 'default', protocol: '2025-11-25', shots: false },
  ] as const)('$era protocol ($protocol): the card from show_form; one Save is applied once, seen on the htmx page, and reaches the host as model context', async ({ era, protocol, shots }) => {
    // A browser session with its conversation; the host's token acts as that session's owner.
    const session = new HttpClient(suite.stack.url);
    const c: Conversation = await newConversation(asE2e(), session);
    suite.sessionOwner = (await suite.stack.surfacer.conversations.get(c.cid))!.ownerSessionId;
    const causes: ConversationEvent['cause'][] = [];
    onTestFinished(suite.stack.surfacer.conversations.subscribe(c.cid, (event) => causes.push(event.cause)));
    const versionBefore = (await suite.stack.surfacer.conversations.get(c.cid))!.version;
    const pageBefore = await (await session.get(c.base)).text();
    expect(pageBefore).not.toContain(NAME);

    const opened = await open(DESKTOP);
    const { page, view } = opened;
    onTestFinished(() => page.context().close());
    const args = { conversationId: c.cid, payload: { template: 'character_card' } };
    const options: RunOptions = {
      serverUrl: suite.stack.url, token: AGENT_TOKEN, sandboxUrl: suite.hosts.sandboxUrl, era, tool: 'show_form', arguments: args,
      hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', containerDimensions: { maxHeight: 4000 } },
    };
    // (As unknown: Playwright's serialisable-type check does not terminate on McpUiHostContext.)
    await page.evaluate((o) => window.appsHost.run(o as RunOptions), options as unknown);

    // What the host did through the official client: the tool's view read, the call (a handshake in the 2025 era only).
    let host = await recorded(page);
    expect(host.failure).toBeUndefined();
    expect(host.protocolVersion).toBe(protocol);
    expect(host.resourceUri).toBe('ui://surfacer/view.html');
    expect(host.resourceMimeType).toBe('text/html;profile=mcp-app');
    expect(host.sent.map((s) => s.method).includes('initialize')).toBe(era === 'default');
    expect(host.sent.filter((s) => s.method === 'tools/call')[0]).toMatchObject({ target: 'show_form', arguments: args, status: 200 });
    expect(host.toolResult).toMatchObject({ structuredContent: { conversationId: c.cid, outcome: 'shown' } });

    // The card, in the view; its one catch-up read went to the server through the bridge.
    await field(view, 'Name *').waitFor();
    await expect.poll(() => view.getByRole('button', { name: 'Save character' }).isVisible()).toBe(true);
    await expect.poll(async () => (await recorded(page)).sent.filter((s) => s.target === READ_TOOL).map((s) => s.status)).toEqual([200]);
    expect((await recorded(page)).sent.find((s) => s.target === READ_TOOL)!.arguments).toEqual({ conversationId: c.cid });
    if (shots) await shoot(opened, 'apps-e2e-card');

    // A person types a name and a personality and presses Save once.
    await field(view, 'Name *').click();
    await field(view, 'Name *').pressSequentially(NAME);
    await field(view, 'Personality *').fill(PERSONALITY);
    await view.getByRole('button', { name: 'Save character' }).click();
    await savedRow(view, 'Name', NAME).waitFor();
    await savedRow(view, 'Personality', PERSONALITY).waitFor();
    await view.locator('a2ui-surface[aria-busy]').waitFor({ state: 'detached' });

    // The host: one forwarded surfacer_view_action, one model-context update naming the card and the name.
    await expect.poll(async () => (await recorded(page)).modelContext).toHaveLength(1);
    host = await recorded(page);
    const actions = host.sent.filter((s) => s.target === VIEW_ACTION_TOOL);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      method: 'tools/call', status: 200,
      arguments: { conversationId: c.cid, message: { version: 'v0.9', action: { name: 'form.submit', context: { name: NAME, personality: PERSONALITY } } } },
    });
    const context = host.modelContext[0] as { content: Array<{ type: string; text: string }> };
    expect(context.content).toHaveLength(1);
    expect(context.content[0]!.type).toBe('text');
    expect(context.content[0]!.text).toContain(NAME);
    expect(context.content[0]!.text).toContain('Character card');
    expect(host.messages).toEqual([]);
    expect(host.failure).toBeUndefined();
    // Every POST the client made (the host's and the view's, forwarded) answered (202: a
    // notification). The 2025 era's client also asks for the optional server-to-client stream with
    // a GET, which the SDK's stateless fallback declines with 405, as the spec allows ("or else
    // return HTTP 405"); the 2026 era has no such stream.
    expect(host.sent.filter((s) => s.http === 'POST').every((s) => s.status === 200 || s.status === 202), JSON.stringify(host.sent)).toBe(true);
    expect(host.sent.filter((s) => s.http !== 'POST')).toEqual(era === 'default' ? [{ http: 'GET', method: '', status: 405 }] : []);
    expect(host.sent.filter((s) => s.method === 'tools/call').map((s) => s.target)).toEqual(['show_form', READ_TOOL, VIEW_ACTION_TOOL]);
    await expect.poll(() => page.locator('#model-context').textContent()).toContain(NAME);

    // The server: the tool's turn and exactly one action, the card saved with what was typed.
    expect(causes.map((cause) => cause.kind)).toEqual(['turn', 'action']);
    const after = (await suite.stack.surfacer.conversations.get(c.cid))!;
    expect(after.version).toBe(versionBefore + 2);
    const card = findLiveSurface(after.ir, 'main');
    expect(card).toBeDefined();
    expect(JSON.stringify(card)).toContain(NAME);
    expect(JSON.stringify(card)).toContain(PERSONALITY);

    // The htmx page of the session shows the saved card.
    const pageAfter = await (await session.get(c.base)).text();
    expect(pageAfter).toContain('id="surface-main"');
    expect(pageAfter).toContain(NAME);
    expect(pageAfter).toContain(PERSONALITY);

    // The view shows the saved state and keeps what was typed.
    expect(await field(view, 'Name *').inputValue()).toBe(NAME);
    expect(await field(view, 'Personality *').inputValue()).toBe(PERSONALITY);
    // The action's toast, as an info notice (not an error): "Saved to your card library as …".
    const notice = view.locator('#sv-notice[role="status"] .sv-notice');
    expect(await notice.getAttribute('data-kind')).toBe('info');
    expect(await notice.locator('.sv-notice__text').textContent()).toMatch(/^Saved to your card library as \S+$/);
    if (shots) await shoot(opened, 'apps-e2e-saved');

    // Chromium logs that declined GET as a failed load: the one console line the 2025 era brings.
    await expectClean(opened, era === 'default' ? [failedLoad(`${suite.stack.url}/mcp`, 405, 'Method Not Allowed')] : []);
    expect(suite.stack.errors).toEqual([]);

    // The view ran under the spec's default CSP: the proxy's document carried it as a header, and
    // the view's srcdoc document enforces it (a load it forbids is blocked and reported).
    expect(opened.sandboxCsp).toEqual([VIEW_CSP]);
    const probe = await opened.frame().evaluate(async (url) => {
      const blocked = new Promise<string>((resolve) => document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), { once: true }));
      const img = new Image();
      img.src = url;
      return blocked;
    }, `${suite.stack.url}/probe.png`);
    expect(probe).toBe('img-src');
    const probed = consoleLog.drain();
    expect(probed.length).toBeGreaterThan(0);
    expect(probed.every((e) => e.kind === 'error' && /img-src|probe\.png/.test(e.text)), JSON.stringify(probed)).toBe(true);
    await page.evaluate(() => window.appsHost.close());
  }, 120_000);
});
