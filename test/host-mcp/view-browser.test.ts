import type { Frame, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildMcpViewHtml, inlineScript, MCP_VIEW_MIME, MCP_VIEW_URI, mcpViewHtml, scriptDataEndState,
} from '../../src/host-mcp/view-html.ts';
import {
  planApply, readSurfacerResult, SURFACER_READ_TOOL, SURFACER_VIEW_ACTION_TOOL,
} from '../../src/host-mcp/view/result.ts';
import { chromiumSuite, closedNetwork, CSP_VIOLATIONS, noChromiumReason, type ConsoleEntry } from '../support/browser/index.ts';
import { skipUnless } from '../support/skip-reason.ts';
import { ARTIFACTS, capture, DESKTOP, field, PHONE, savedRow, shoot } from './view-support/shots.ts';
import { cardSaved, cardShown, CONVERSATION_ID, errorResult, surfacerResult, type ToolResult } from './view-support/fixtures.ts';
import { startViewHosts, VIEW_CSP, type ViewHosts } from './view-support/server.ts';

/*
 * Surfacer's MCP App view (src/host-mcp/view-html.ts, src/host-mcp/view/) in headless Chromium,
 * inside a host built on ext-apps' official AppBridge the way the reference host
 * (examples/basic-host) builds one: a sandbox proxy on another origin whose document carries
 * the spec's default view CSP as a response header, the view in its inner iframe with
 * sandbox="allow-scripts". The host answers the view's surfacer_read and surfacer_view_action
 * calls from fixtures: Surfacer's own A2UI v0.9 for the demo's character card.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the view\'s document', () => {
  it('is one self-contained HTML document, cached, and the same bytes on every build', async () => {
    const html = await mcpViewHtml();
    expect(await mcpViewHtml()).toBe(html);
    expect(await buildMcpViewHtml()).toBe(html);
    expect(MCP_VIEW_URI).toBe('ui://surfacer/view.html');
    expect(MCP_VIEW_MIME).toBe('text/html;profile=mcp-app');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    // One inline module script and one inline stylesheet; nothing the browser would fetch.
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module">']);
    expect(html.match(/<\/script/gi)).toHaveLength(1);
    expect(html.match(/<style\b[^>]*>/g)).toEqual(['<style>']);
    expect(html.match(/<\/style/gi)).toHaveLength(1);
    const markup = html.replace(/<script type="module">[\s\S]*<\/script>/, '').replace(/<style>[\s\S]*<\/style>/, '');
    expect(markup).not.toMatch(/\b(src|href|srcset|action|poster)=/i);
    expect(markup).not.toMatch(/<(link|img|iframe|object|embed|base)\b/i);
    const css = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
    expect(css).not.toMatch(/@import|url\(/i);
    // The empty state, the notice region and the labelled surfaces region are in the markup.
    expect(html).toContain('role="status">Waiting for the assistant…</p>');
    expect(html).toContain('<div id="sv-notice" class="sv-notice-region" role="status" aria-live="polite"></div>');
    expect(html).toContain('<section id="sv-surfaces" class="sv-surfaces" aria-label="Surfacer panels"></section>');
  });

  it('inlines a bundle safely: every </script escaped; a "<!--" then "<script" refused', () => {
    expect(inlineScript('const a = "</script>", b = /<\\/SCRIPT>/;')).toBe('const a = "<\\/script>", b = /<\\/SCRIPT>/;');
    expect(scriptDataEndState('x = "<!-->"; y = "<script>"')).toBe('data');
    expect(scriptDataEndState('x = "<!---->" + "<script>"')).toBe('data');
    expect(scriptDataEndState('x = "<!--"; y = "<script>"')).toBe('double');
    expect(scriptDataEndState('x = "<!--"; y = "<script>"; z = "-->"')).toBe('data');
    expect(() => inlineScript('x = "<!--"; y = "<script>"')).toThrow(/cannot be inlined/);
  });

  it('reads the tools\' structuredContent, and applies a result in the contract\'s order', () => {
    expect(readSurfacerResult({ isError: true, structuredContent: { conversationId: 'c' } })).toBeUndefined();
    expect(readSurfacerResult({ structuredContent: { answer: 42 } })).toBeUndefined();
    expect(readSurfacerResult(undefined)).toBeUndefined();
    const result = readSurfacerResult({
      structuredContent: {
        conversationId: 'c', liveSurfaceIds: ['a', 'n'], outcome: 'stale', notice: 'Changed elsewhere.', tellModel: { kind: 'message', text: 'hi' },
        a2ui: { version: 'v0.9', messages: [
          { version: 'v0.9', createSurface: { surfaceId: 'a', catalogId: 'x' } },
          { version: 'v0.9', updateComponents: { surfaceId: 'a', components: [] } },
          { version: 'v0.9', createSurface: { surfaceId: 'n', catalogId: 'x' } },
        ] },
      },
    })!;
    expect(result).toMatchObject({ conversationId: 'c', outcome: 'stale', notice: 'Changed elsewhere.', tellModel: { kind: 'message', text: 'hi' } });
    // Held: a (created again: deleted first), b (not live: deleted last), k (live, untouched).
    const plan = planApply(['a', 'b', 'k'], { ...result, liveSurfaceIds: ['a', 'n', 'k'] });
    expect(plan.before).toEqual([{ version: 'v0.9', deleteSurface: { surfaceId: 'a' } }]);
    expect(plan.messages).toHaveLength(3);
    expect(plan.after).toEqual([{ version: 'v0.9', deleteSurface: { surfaceId: 'b' } }]);
    // A skipped surface (a catch-up repeating what is shown) is neither deleted nor created again.
    const skipped = planApply(['a', 'b', 'k'], { ...result, liveSurfaceIds: ['a', 'n', 'k'] }, 'v0.9', new Set(['a']));
    expect(skipped.before).toEqual([]);
    expect(skipped.messages).toEqual([result.messages[2]]);
    // Without a live list the view drops nothing.
    const { liveSurfaceIds: _dropped, ...noLive } = result;
    expect(planApply(['a', 'b'], noLive).after).toEqual([]);
  });
});

const noChromium = noChromiumReason();

interface Opened {
  page: Page;
  /** The view's document (inner iframe of the sandbox proxy). */
  view: FrameLocator;
  frame(): Frame;
  /** Requests the page tried to make to any other origin (aborted). */
  foreign: string[];
}

describe('the MCP App view in Chromium, behind the official AppBridge and a sandbox proxy', skipUnless(noChromium), () => {
  let hosts: ViewHosts;
  let html: string;
  beforeAll(async () => {
    [hosts, html] = await Promise.all([startViewHosts(), mcpViewHtml()]);
  });
  afterAll(async () => {
    await hosts?.close();
  });
  const chromium = chromiumSuite({ artifacts: ARTIFACTS });
  const { consoleLog } = chromium;

  async function open(viewport: { width: number; height: number }, hostContext: Record<string, unknown>, dark = false): Promise<Opened> {
    const context = await chromium.browser.newContext({ viewport });
    const page = await consoleLog.watch(await context.newPage());
    await page.addInitScript(CSP_VIOLATIONS);
    const foreign = await closedNetwork(page, [new URL(hosts.hostUrl).origin, new URL(hosts.sandboxUrl).origin]);
    await page.goto(hosts.hostUrl);
    if (dark) await page.evaluate(() => { document.documentElement.dataset.theme = 'dark'; });
    await page.evaluate((options) => window.mcpHost.open(options as never), { html, sandboxUrl: hosts.sandboxUrl, hostContext });
    const frame = (): Frame => {
      const found = page.frames().find((f) => f.parentFrame() !== null && f.parentFrame()!.parentFrame() === page.mainFrame());
      if (found === undefined) throw new Error('no view frame');
      return found;
    };
    return { page, view: page.frameLocator('#view').frameLocator('iframe'), frame, foreign };
  }

  const recorded = (page: Page) => page.evaluate(() => JSON.parse(JSON.stringify(window.mcpHost.recorded)) as typeof window.mcpHost.recorded);
  const callsOf = async (page: Page, name: string) => (await recorded(page)).calls.filter((c) => c.name === name);
  const send = (page: Page, what: 'sendToolInput' | 'sendToolResult', value: unknown) =>
    page.evaluate(([w, v]) => window.mcpHost[w as 'sendToolResult'](v as never), [what, value] as const);
  const setFixtures = (page: Page, fixtures: { read?: ToolResult; readDelayMs?: number; actions: Array<ToolResult | { throw: string }>; actionDelayMs: number }) =>
    page.evaluate((f) => { Object.assign(window.mcpHost.fixtures, f); }, fixtures);


  async function expectClean(opened: Opened): Promise<void> {
    expect(consoleLog.drain(), 'the console has no error or warning').toEqual([]);
    for (const frame of opened.page.frames()) {
      expect(await frame.evaluate(() => window.__svViolations ?? ['(no recorder)']), `CSP violations in ${frame.url()}`).toEqual([]);
    }
    expect(opened.foreign, 'no request left the two origins').toEqual([]);
  }

  it('renders the card; one Save is one surfacer_view_action; results, notices and the model context apply; no CSP violation', async () => {
    const shown = cardShown();
    const saved = cardSaved(shown, { name: 'Aria', personality: 'Brave, curious and kind.', tags: 'bard, brave' });
    const elsewhere = cardSaved(saved, { name: 'Cora', personality: 'Sharp and quick.', tags: 'rogue' });
    const staleNotice = 'This card was changed elsewhere before your save, so it was not applied. It now shows the latest version.';
    const opened = await open(DESKTOP, { theme: 'light', displayMode: 'inline', platform: 'web', containerDimensions: { maxHeight: 4000 } });
    const { page, view } = opened;
    await setFixtures(page, {
      read: surfacerResult(shown, 'The conversation\'s open panels.'),
      actions: [
        surfacerResult(saved, 'Saved.', { outcome: 'applied', tellModel: { kind: 'context', text: 'The person saved the character card: Aria.' } }),
        surfacerResult(elsewhere, 'Not applied: stale.', { outcome: 'stale', notice: staleNotice }),
        errorResult('The server refused the action: the card is locked.'),
        { throw: 'The host lost the connection.' },
        surfacerResult(cardSaved(elsewhere, { name: 'Dara', personality: 'Sharp and quick.', tags: 'rogue' }), 'Saved.', {
          outcome: 'applied', tellModel: { kind: 'message', text: 'I saved Dara\'s card.' },
        }),
      ],
      actionDelayMs: 400,
      readDelayMs: 600,
    });

    // Before any result: the quiet empty state; the tool's input: working; an error result: ignored.
    await view.getByText('Waiting for the assistant…', { exact: true }).waitFor();
    await send(page, 'sendToolInput', { text: 'create a character card' });
    await view.getByText('Working…', { exact: true }).waitFor();
    await capture(opened, `${ARTIFACTS}/view-working-desktop.png`);
    await send(page, 'sendToolResult', errorResult('The tool failed.'));
    await view.getByText('Waiting for the assistant…', { exact: true }).waitFor();
    await send(page, 'sendToolResult', { content: [{ type: 'text', text: 'no UI here' }], structuredContent: { other: true } });
    expect(await view.locator('a2ui-surface').count()).toBe(0);

    // The card: a labelled text field and a button in the labelled region; one catch-up read.
    await send(page, 'sendToolResult', surfacerResult(shown, 'Opened the character card.', { outcome: 'shown' }));
    const region = view.getByRole('region', { name: 'Surfacer panels' });
    await region.getByRole('heading', { name: 'Character card' }).or(region.getByText('Character card', { exact: true })).first().waitFor();
    await field(view, 'Name *').waitFor();
    await expect.poll(() => field(view, 'Name *').isVisible()).toBe(true);
    await expect.poll(() => view.getByRole('button', { name: 'Save character' }).isVisible()).toBe(true);
    await expect.poll(() => callsOf(page, SURFACER_READ_TOOL)).toEqual([{ name: SURFACER_READ_TOOL, arguments: { conversationId: CONVERSATION_ID } }]);
    // The catch-up answers what the tool result showed: the card stays as the person left it.
    await view.locator('a2ui-surface').evaluate((el) => { el.dataset.mark = 'before-catch-up'; });
    await field(view, 'Name *').fill('Early');
    await expect.poll(async () => (await recorded(page)).readsAnswered).toBe(1);
    await view.locator('#sv-app').evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    expect(await view.locator('a2ui-surface[data-mark="before-catch-up"]').count()).toBe(1);
    expect(await field(view, 'Name *').inputValue()).toBe('Early');
    await field(view, 'Name *').fill('');
    expect(await view.locator('a2ui-surface').count()).toBe(1);
    await shoot(opened, 'view-card');

    // Type and double-click Save: one call, the surface busy meanwhile, the answer applied.
    await field(view, 'Name *').fill('Aria');
    await field(view, 'Personality *').fill('Brave, curious and kind.');
    await field(view, 'Tags').fill('bard, brave');
    await view.getByRole('button', { name: 'Save character' }).dblclick();
    await view.locator('a2ui-surface[aria-busy="true"]').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/view-busy-desktop.png` });
    await savedRow(view, 'Name', 'Aria').waitFor();
    await savedRow(view, 'Tags', 'bard, brave').waitFor();
    await view.locator('a2ui-surface[aria-busy]').waitFor({ state: 'detached' });
    const [first, ...more] = await callsOf(page, SURFACER_VIEW_ACTION_TOOL);
    expect(more).toEqual([]);
    expect(first!.arguments).toMatchObject({
      conversationId: CONVERSATION_ID,
      message: {
        version: 'v0.9',
        action: {
          name: 'form.submit', surfaceId: 'main--e0', sourceComponentId: 'main.a0-form_submit.Button',
          context: { name: 'Aria', personality: 'Brave, curious and kind.', tags: 'bard, brave', rev: 0 },
        },
      },
    });
    expect(Object.keys((first!.arguments!.message as { action: object }).action).sort()).toEqual(['context', 'name', 'sourceComponentId', 'surfaceId', 'timestamp']);
    expect(first!.arguments!.idempotencyKey).toMatch(UUID);
    // tellModel of kind 'context' reached the host as ui/update-model-context.
    await expect.poll(async () => (await recorded(page)).modelContext).toEqual([{ content: [{ type: 'text', text: 'The person saved the character card: Aria.' }] }]);
    expect(await field(view, 'Name *').inputValue()).toBe('Aria');
    await shoot(opened, 'view-saved');

    // Save again: stale. The notice says why; the card shows the server's state.
    await field(view, 'Name *').fill('Aria Vale');
    await view.getByRole('button', { name: 'Save character' }).click();
    const notice = view.locator('#sv-notice[role="status"] .sv-notice');
    await expect.poll(() => notice.textContent()).toContain(staleNotice);
    expect(await notice.getAttribute('data-kind')).toBe('warning');
    await savedRow(view, 'Name', 'Cora').waitFor();
    await expect.poll(() => field(view, 'Name *').inputValue()).toBe('Cora');
    const second = (await callsOf(page, SURFACER_VIEW_ACTION_TOOL))[1]!;
    expect(second.arguments).toMatchObject({ message: { action: { context: { name: 'Aria Vale', rev: 1 } } } });
    expect(second.arguments!.idempotencyKey).toMatch(UUID);
    expect(second.arguments!.idempotencyKey).not.toBe(first!.arguments!.idempotencyKey);
    await shoot(opened, 'view-stale');
    // By keyboard: after the phone-width shot the host is still resizing the iframe, and on a busy
    // machine a click by coordinates once landed beside the button as it moved (CI, stop 38).
    await view.getByRole('button', { name: 'Dismiss' }).press('Enter');
    await notice.waitFor({ state: 'detached' });

    // An error result: its text as a notice, nothing else changes.
    await field(view, 'Name *').fill('Dara');
    await view.getByRole('button', { name: 'Save character' }).click();
    await expect.poll(() => notice.textContent()).toContain('The server refused the action: the card is locked.');
    expect(await notice.getAttribute('data-kind')).toBe('error');
    expect(await field(view, 'Name *').inputValue()).toBe('Dara');
    await savedRow(view, 'Name', 'Cora').waitFor();

    // A thrown error: a notice with Try again, which resends the same click with the same key.
    await view.getByRole('button', { name: 'Save character' }).click();
    await expect.poll(() => notice.textContent()).toContain('The host lost the connection.');
    await shoot(opened, 'view-error');
    await view.getByRole('button', { name: 'Try again' }).click();
    await savedRow(view, 'Name', 'Dara').waitFor();
    const calls = await callsOf(page, SURFACER_VIEW_ACTION_TOOL);
    expect(calls).toHaveLength(5);
    expect(calls[4]!.arguments).toEqual(calls[3]!.arguments);
    expect(new Set(calls.slice(0, 4).map((c) => c.arguments!.idempotencyKey)).size).toBe(4);
    // tellModel of kind 'message' reached the host as ui/message.
    await expect.poll(async () => (await recorded(page)).messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'I saved Dara\'s card.' }] }]);
    expect(await notice.count()).toBe(0);
    expect((await callsOf(page, SURFACER_READ_TOOL))).toHaveLength(1);

    // No error, no warning, no CSP violation in any frame; nothing fetched but the host's pages.
    await expectClean(opened);
    expect(hosts.requests.filter((r) => !/\/(host\.js|sandbox\.html|sandbox\.js)?$/.test(r))).toEqual([]);

    // The policy is in force in the view (a violation is recorded when the view breaks it).
    const probe = await opened.frame().evaluate(async () => {
      const blocked = new Promise<string>((resolve) => document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), { once: true }));
      const img = new Image();
      img.src = 'http://127.0.0.1:9/probe.png';
      return blocked;
    });
    expect(probe).toBe('img-src');
    expect(await opened.frame().evaluate(() => window.__svViolations)).toEqual(['img-src http://127.0.0.1:9/probe.png']);
    const probed = consoleLog.drain();
    expect(probed.length).toBeGreaterThan(0);
    expect(probed.every((e: ConsoleEntry) => e.kind === 'error' && /img-src|probe\.png/.test(e.text)), JSON.stringify(probed)).toBe(true);
    await page.context().close();
  }, 120_000);

  it('follows the host\'s theme and style variables (dark, at a phone\'s width), and releases everything at teardown', async () => {
    const opened = await open(PHONE, {
      theme: 'dark',
      platform: 'mobile',
      displayMode: 'inline',
      styles: {
        variables: {
          '--font-sans': '"Host Sans", system-ui, sans-serif',
          '--color-background-primary': 'light-dark(#ffffff, #1e1f22)',
          '--color-text-primary': 'light-dark(#1f2328, #ececec)',
          '--color-text-secondary': 'light-dark(#59636e, #a9b0b8)',
          '--color-border-primary': 'light-dark(#d1d9e0, #3a3d42)',
          '--color-background-inverse': 'light-dark(#1f2328, #ececec)',
          '--color-text-inverse': 'light-dark(#ffffff, #1e1f22)',
          '--color-ring-primary': 'light-dark(#0969da, #4493f8)',
          '--border-radius-md': '10px',
        },
        // A local face: no fetch (the view's CSP allows no font from anywhere).
        css: { fonts: '@font-face { font-family: "Host Sans"; src: local("DejaVu Sans"); }' },
      },
    }, true);
    const { page, view, frame } = opened;
    // A view re-opened from the host's history: the tool result is the card as it was then; the
    // catch-up read brings what it is now (saved since).
    const now = cardSaved(cardShown(), { name: 'Aria', personality: 'Brave, curious and kind.', tags: 'bard, brave' });
    await setFixtures(page, { read: surfacerResult(now, 'The conversation\'s open panels.'), actions: [], actionDelayMs: 0 });
    await send(page, 'sendToolInput', { text: 'create a character card' });
    await send(page, 'sendToolResult', surfacerResult(cardShown(), 'Opened the character card.', { outcome: 'shown' }));
    await field(view, 'Name *').waitFor();
    await expect.poll(() => callsOf(page, SURFACER_READ_TOOL)).toHaveLength(1);
    await savedRow(view, 'Name', 'Aria').waitFor();
    await expect.poll(() => field(view, 'Name *').inputValue()).toBe('Aria');
    expect(await view.locator('a2ui-surface').count()).toBe(1);

    const look = () => frame().evaluate(() => ({
      theme: document.documentElement.dataset.theme,
      scheme: document.documentElement.style.colorScheme,
      background: document.documentElement.style.getPropertyValue('--color-background-primary'),
      font: getComputedStyle(document.body).fontFamily,
      bodyColor: getComputedStyle(document.body).color,
      fonts: document.getElementById('__mcp-host-fonts')?.textContent ?? '',
    }));
    expect(await look()).toMatchObject({
      theme: 'dark', scheme: 'dark', background: 'light-dark(#ffffff, #1e1f22)', font: '"Host Sans", system-ui, sans-serif', bodyColor: 'rgb(236, 236, 236)',
    });
    expect((await look()).fonts).toContain('Host Sans');
    await shoot(opened, 'view-dark');

    // The host switches to light: the view follows.
    await page.evaluate(() => { document.documentElement.dataset.theme = 'light'; });
    await page.evaluate(() => window.mcpHost.sendHostContextChange({ theme: 'light' }));
    await expect.poll(async () => (await look()).theme).toBe('light');
    expect((await look()).bodyColor).toBe('rgb(31, 35, 40)');

    // Teardown: answered, and the view holds nothing any more.
    expect(await page.evaluate(() => window.mcpHost.teardown())).toEqual({});
    expect(await view.locator('a2ui-surface').count()).toBe(0);
    expect(await view.locator('#sv-app').getAttribute('data-state')).toBe('closed');
    // A late result is ignored.
    await send(page, 'sendToolResult', surfacerResult(cardShown(), 'Again.'));
    expect(await view.locator('a2ui-surface').count()).toBe(0);

    await expectClean(opened);
    expect(VIEW_CSP).toBe("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'");
    await page.context().close();
  }, 60_000);
});
