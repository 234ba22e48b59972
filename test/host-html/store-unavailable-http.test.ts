import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore, StoreUnavailableError, type ConversationStore } from '../../src/conversation/index.ts';
import { retryAfterOf } from '../../src/errors/index.ts';
import { CHARACTER_VALUES, startHarness, type Harness } from './support/harness.ts';
import { formFields, openConversation, pageOf, sendMessage, submitForm } from './support/page.ts';

/** A store whose appends fail as a shared store does while it is away (the conversation stays readable from the cache). */
function storeGoingAway(): ConversationStore & { down: boolean } {
  const inner = createMemoryStore();
  const store = {
    ...inner,
    down: false,
    async append(...args: Parameters<ConversationStore['append']>) {
      if (store.down) throw new StoreUnavailableError('store away (test)');
      return inner.append(...args);
    },
  };
  return store;
}

describe('retryAfterOf: the registry decides which errors carry a retry hint', () => {
  it('the retryable 503s, and nothing else', () => {
    expect(retryAfterOf('STORE_UNAVAILABLE')).toBe(2);
    expect(retryAfterOf('CONVERSATION_LOG_FAILED')).toBe(2);
    expect(retryAfterOf('CONVERSATION_BUSY')).toBeUndefined();
    expect(retryAfterOf('A2UI_C2S_SURFACE_STALE')).toBeUndefined();
    expect(retryAfterOf('NOT_A_CODE')).toBeUndefined();
  });
});

// An append refused because the shared store went away between the page's checks and the write:
// the service answers STORE_UNAVAILABLE as a value (not a throw), and the host still sends the hint.
describe('HTML host: an append the store could not take', () => {
  let h: Harness;
  const store = storeGoingAway();
  beforeAll(async () => { h = await startHarness({ wiring: 'demo', store }); });
  afterAll(async () => { await h.close(); });

  it('answers 503 STORE_UNAVAILABLE with Retry-After, for JSON, htmx and a plain form post, and changes nothing', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const fields = { ...formFields(await pageOf(client, c), 'main'), ...CHARACTER_VALUES.demo };
    const version = (await h.service.get(c.cid))!.version;
    store.down = true;
    try {
      for (const as of ['json', 'htmx', 'browser'] as const) {
        const res = await submitForm(client, c, fields, 'form.submit', as);
        expect(res.status, as).toBe(503);
        expect(res.headers.get('retry-after'), as).toBe('2');
        if (as === 'json') expect(await res.json()).toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: true });
        else expect(await res.text(), as).toContain('briefly unavailable');
      }
      const turn = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'open my persona' }, { as: 'json' });
      expect(turn.status).toBe(503);
      expect(turn.headers.get('retry-after')).toBe('2');
      // A plain browser's message post is answered with a redirect and a flash: no retry hint on a 3xx.
      const browser = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'open my persona' });
      expect(browser.status).toBe(303);
      expect(browser.headers.get('retry-after')).toBeNull();
    } finally {
      store.down = false;
    }
    expect((await h.service.get(c.cid))!.version).toBe(version);
    expect((await submitForm(client, c, fields, 'form.submit', 'json')).status).toBe(200);
  });
});
