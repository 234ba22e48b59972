import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors/index.ts';
import { CHARACTER_VALUES, startHarness, type Harness } from './support/harness.ts';
import { formFields, openConversation, parse, sendMessage, type OpenedConversation } from './support/page.ts';

/**
 * The ingress fuzz over real HTTP: bodies with a valid session and CSRF token (so every one
 * reaches the ingress) but a wrong shape, size, depth, charset, or a stale/forged nonce,
 * epoch or rev. None may yield a 5xx, each must carry a registered code, and the conversation
 * must not change.
 */
type Fields = Record<string, string | string[]>;

const PROTECTED = ['_surface', '_epoch', '_nonce', '_rev', '_action'] as const;

function junkString(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('', ' ', '../..', '<script>', '__proto__', 'constructor', '\u0000', '🙂', '-1', '1e999', 'NaN'),
  );
}

/** One mutation that makes a valid submission invalid. */
function badForm(valid: Fields): fc.Arbitrary<Fields> {
  const epoch = Number(valid._epoch);
  const rev = Number(valid._rev);
  const without = (key: string): Fields => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));
  return fc.oneof(
    fc.constantFrom(...PROTECTED).map(without),
    fc.record({ key: fc.constantFrom(...PROTECTED), value: junkString() })
      .filter(({ key, value }) => value !== valid[key])
      .map(({ key, value }) => ({ ...valid, [key]: value })),
    fc.integer({ min: 0, max: 1000 }).filter((e) => e !== epoch).map((e) => ({ ...valid, _epoch: String(e) })),
    fc.integer({ min: 0, max: 1000 }).filter((r) => r !== rev).map((r) => ({ ...valid, _rev: String(r) })),
    fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'), minLength: 8, maxLength: 64 })
      .filter((n) => n !== valid._nonce)
      .map((n) => ({ ...valid, _nonce: n })),
    fc.constantFrom('form.delete', 'admin', 'ask.submit', 'upload.submit').map((a) => ({ ...valid, _action: a })),
    fc.constantFrom(...PROTECTED).map((k) => ({ ...valid, [k]: [String(valid[k]), String(valid[k])] })),
    fc.integer({ min: 20_000, max: 200_000 }).map((n) => ({ ...valid, _nonce: 'x'.repeat(n) })),
    fc.integer({ min: 300, max: 3000 }).map((n) => {
      const many: Fields = { ...valid, _epoch: String(epoch + 1) };
      for (let i = 0; i < n; i++) many[`extra${i}`] = 'y';
      return many;
    }),
  );
}

/** Raw bodies that are not a form at all. */
function badRaw(): fc.Arbitrary<{ contentType: string; body: string }> {
  return fc.record({
    contentType: fc.constantFrom('application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x'),
    body: fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constant('%%%&&&==='),
      fc.constant('--x\r\nContent-Disposition: form-data; name="_epoch"\r\n\r\n0\r\n--x'),
      fc.nat({ max: 40 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
    ),
  });
}

describe('ingress fuzz over real HTTP', () => {
  let h: Harness;
  let c: OpenedConversation;
  let valid: Fields;
  let cookie: string;

  beforeAll(async () => {
    h = await startHarness({ wiring: 'demo' });
    const client = h.client();
    c = await openConversation(client);
    const turn = await sendMessage(client, c, 'create a character card');
    valid = { ...formFields(parse(await turn.text()), 'main'), ...CHARACTER_VALUES.demo, _action: 'form.submit' };
    cookie = client.cookieHeader();
  });
  afterAll(async () => { await h.close(); });

  async function post(body: BodyInit, contentType?: string): Promise<Response> {
    const headers: Record<string, string> = { cookie, origin: new URL(h.url).origin, accept: 'application/json' };
    if (contentType) headers['content-type'] = contentType;
    return fetch(`${h.url}${c.base}/actions`, { method: 'POST', headers, body, redirect: 'manual' });
  }

  async function expectRejectedUnchanged(response: Response, before: unknown): Promise<void> {
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    const body = await response.json() as { code?: string };
    expect(typeof body.code === 'string' && isErrorCode(body.code)).toBe(true);
    expect((await h.service.get(c.cid))!.ir).toEqual(before);
  }

  it('2,000 bad forms: never a 5xx, always a registered code, state unchanged', async () => {
    const before = structuredClone((await h.service.get(c.cid))!.ir);
    await fc.assert(
      fc.asyncProperty(badForm(valid), async (fields) => {
        const params = new URLSearchParams();
        for (const [k, v] of Object.entries(fields)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
        params.set('_csrf', c.csrf);
        await expectRejectedUnchanged(await post(params), before);
      }),
      { numRuns: 2000 },
    );
    // The untouched valid submission still applies, so the rejections were not for another reason.
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(valid)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
    expect((await post(params)).status).toBe(200);
  }, 120_000);

  it('300 bodies that are not forms: never a 5xx, state unchanged', async () => {
    const before = structuredClone((await h.service.get(c.cid))!.ir);
    await fc.assert(
      fc.asyncProperty(badRaw(), async ({ contentType, body }) => {
        await expectRejectedUnchanged(await post(body, contentType), before);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});
