import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore, DEFAULT_APP_TEXTS, resolveAppTexts } from '../../src/conversation/index.ts';
import { createApp, createConversationStack, startServer } from '../../src/host-html/index.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import { createFakePlanner, createTestApp, fakeRunDirectives } from '../conversation/fixtures/demo-app.ts';
import { HttpClient } from '../support/http-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { openConversation } from './support/page.ts';

/** Every text the host shows besides the panels comes from AppDefinition.texts, with neutral defaults. */
describe('AppDefinition.texts on the htmx page', () => {
  let plain: Harness;
  let custom: Harness;
  beforeAll(async () => {
    plain = await startHarness({ wiring: 'fixture' });
    custom = await startHarnessWithTexts();
  });
  afterAll(async () => {
    await plain?.close();
    await custom?.close();
  });

  /** The fixture app with texts of its own, hosted as the harness hosts it. */
  async function startHarnessWithTexts(): Promise<Harness> {
    const app = {
      ...createTestApp(createFakePlanner()),
      texts: { description: 'Tickets, <b>fast</b>.', placeholder: 'e.g. new ticket', emptyState: 'No queue yet.', hints: ['show the queue', ' '] },
    };
    const store = createMemoryStore();
    const service = createConversationStack({ app, store, entropy: createSeededSource('texts'), runDirectives: fakeRunDirectives });
    const host = createApp({ app, conversations: service, sessionSecret: 'harness-secret-0123456789' });
    const server = await startServer(host, { port: 0 });
    return { url: server.url, app, service, host, server, store, client: () => new HttpClient(server.url), close: () => server.close(1000) };
  }

  it('an app that sets none shows neutral words: no demo examples', async () => {
    const c = await openConversation(plain.client());
    expect(c.$('#message-text').attr('placeholder')).toBe(DEFAULT_APP_TEXTS.placeholder);
    expect(c.$('.surfaces__empty-text').text()).toBe(DEFAULT_APP_TEXTS.emptyState);
    expect(c.$('.surfaces__hints').length).toBe(0);
    expect(c.$('.chat__description').length).toBe(0);
    expect(c.$('body').text()).not.toMatch(/character card/i);
  });

  it("an app's own texts, escaped; blank hints are dropped", async () => {
    const c = await openConversation(custom.client());
    expect(c.$('#message-text').attr('placeholder')).toBe('e.g. new ticket');
    expect(c.$('.surfaces__empty-text').text()).toBe('No queue yet.');
    expect(c.$('.surfaces__hints li').map((_, el) => c.$(el).text()).get()).toEqual(['show the queue']);
    expect(c.$('.chat__description').html()).toBe('Tickets, &lt;b&gt;fast&lt;/b&gt;.');
  });

  it('resolveAppTexts fills the defaults and treats blank strings as unset', () => {
    expect(resolveAppTexts({})).toEqual({ description: undefined, ...DEFAULT_APP_TEXTS, hints: [] });
    expect(resolveAppTexts({ texts: { placeholder: '  ', emptyState: 'x', description: '' } })).toEqual({
      description: undefined, placeholder: DEFAULT_APP_TEXTS.placeholder, emptyState: 'x', hints: [],
    });
  });
});
