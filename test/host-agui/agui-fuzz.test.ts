import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors/index.ts';
import { bearerTokenAuthenticator, ownerOfPrincipal, type Principal } from '../../src/hosting/index.ts';
import { irHash } from '../../src/conversation/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { AguiClient, startAgui, TOKEN_A, type AguiStack } from './support.ts';

/*
 * POST /ag-ui fuzz over real HTTP, with a valid token and aimed at a real thread: 2,000 junk
 * RunAgentInput bodies (not JSON, the wrong JSON, a valid input with one field broken, an action
 * with forged or stale parts). None may yield a 5xx; each refusal carries a registered code
 * (before the stream as an HTTP error, or in it as RUN_ERROR); none is accepted; the
 * conversation does not change and no other conversation is created.
 */

let s: AguiStack;
let cid: string;
let valid: { nonce: string; rev: number; epoch: number };

beforeAll(async () => {
  s = await startAgui();
  const client = new AguiClient(s.url, TOKEN_A);
  client.say('create a character card');
  await client.run();
  cid = client.threadId;
  const surface = findSurface((await s.surfacer.conversations.get(cid))!.ir, 'main')!;
  valid = { nonce: surface.nonce, rev: surface.rev, epoch: surface.epoch };
});
afterAll(async () => { await s.close(); });

const junk = fc.oneof(
  fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null), fc.boolean(), fc.constant([]), fc.constant({}),
  fc.constantFrom('__proto__', 'constructor', '\u0000', '🙂', 'x'.repeat(300)),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

const goodMessage = { id: 'm-1', role: 'user', content: 'create a character card' };

/** A valid input of the thread, with exactly one part made invalid. */
function brokenInput(): fc.Arbitrary<unknown> {
  const base = (): Record<string, unknown> => ({ threadId: cid, runId: 'fuzz-run', messages: [goodMessage], tools: [], context: [], forwardedProps: {} });
  const set = (key: string, value: unknown): Record<string, unknown> => ({ ...base(), [key]: value });
  const drop = (key: string): Record<string, unknown> => Object.fromEntries(Object.entries(base()).filter(([k]) => k !== key));
  return fc.oneof(
    fc.constantFrom('threadId', 'runId', 'messages').map(drop),
    fc.record({ key: fc.constantFrom('threadId', 'runId', 'messages', 'tools', 'context'), value: junk.filter((v) => typeof v !== 'string' || v === '') })
      .filter(({ key, value }) => !(key === 'messages' && Array.isArray(value)) && !((key === 'tools' || key === 'context') && Array.isArray(value)))
      .map(({ key, value }) => set(key, value)),
    fc.constantFrom('', 'x'.repeat(257)).map((id) => set('threadId', id)),
    // One message broken: a wrong role, no id, content that is no text.
    fc.record({ role: fc.oneof(fc.constantFrom('robot', '', 'USER'), junk), id: fc.oneof(fc.constant(undefined), fc.integer()), content: fc.oneof(fc.integer(), fc.constant(null), fc.constant(' '), fc.constant([{ type: 'image' }])) })
      .map((m) => set('messages', [{ ...goodMessage, ...Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) }].map((x, i) => (i === 0 && m.id === undefined ? Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'id')) : x)))),
    // A message of text only blanks: no turn's text.
    fc.constantFrom('', '   ', '\n').map((content) => set('messages', [{ ...goodMessage, content }])),
    fc.constant(set('forwardedProps', null)),
    junk.filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)).map((a2uiAction) => set('forwardedProps', { a2uiAction })),
    junk.map((userAction) => set('forwardedProps', { a2uiAction: { userAction } })).filter((b) => {
      const ua = ((b.forwardedProps as Record<string, unknown>).a2uiAction as Record<string, unknown>).userAction;
      return ua === null || typeof ua !== 'object' || Array.isArray(ua) || Object.keys(ua).length < 5;
    }),
  );
}

/** An action like the renderer's, with one part forged or stale: the ingress refuses it. */
function badAction(): fc.Arbitrary<unknown> {
  return fc.record({
    name: fc.oneof({ weight: 4, arbitrary: fc.constant('form.submit') }, { weight: 1, arbitrary: fc.oneof( fc.constantFrom('form.delete', 'admin', '', 'x'.repeat(200)), fc.string({ maxLength: 12 })) }),
    surfaceId: fc.oneof({ weight: 4, arbitrary: fc.constant('main--e0') }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('main--e1', 'main', 'other--e0', ''), fc.string({ maxLength: 12 })) }),
    sourceComponentId: fc.oneof({ weight: 4, arbitrary: fc.constant('main.a0-form_submit.Button') }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
    timestamp: fc.oneof({ weight: 4, arbitrary: fc.constant('2026-11-26T00:00:00.000Z') }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
    // Mostly well-formed but wrong (a forged nonce, a stale rev): those reach the ingress's checks.
    nonce: fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'), minLength: 8, maxLength: 32 }) },
      { weight: 2, arbitrary: fc.constant(valid.nonce) },
      { weight: 1, arbitrary: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 40 }), fc.constant('x'.repeat(5000))) },
    ),
    rev: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 50 }) }, { weight: 1, arbitrary: fc.oneof(fc.constant(undefined), fc.integer({ min: -3, max: -1 }), fc.string({ maxLength: 4 })) }),
    extra: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), junk, { maxKeys: 4 }) }),
    // The wire's rev may be the number's string ("0" is rev 0): such an action is the valid one, not junk.
  }).filter((a) => a.nonce !== valid.nonce || String(a.rev) !== String(valid.rev) || a.surfaceId !== 'main--e0' || a.name !== 'form.submit').map((a) => ({
    threadId: cid, runId: `fuzz-${Math.random().toString(36).slice(2)}`, messages: [],
    forwardedProps: {
      a2uiAction: {
        userAction: {
          name: a.name, surfaceId: a.surfaceId, sourceComponentId: a.sourceComponentId, timestamp: a.timestamp,
          context: { ...a.extra, ...(a.nonce === undefined ? {} : { nonce: a.nonce }), ...(a.rev === undefined ? {} : { rev: a.rev }), name: 'Mallory', personality: 'x' },
        },
      },
    },
  }));
}

const bodies = (): fc.Arbitrary<string> => fc.oneof(
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`) },
  { weight: 5, arbitrary: brokenInput().map((v) => JSON.stringify(v)) },
  { weight: 5, arbitrary: badAction().map((v) => JSON.stringify(v)) },
);

describe('POST /ag-ui fuzz', () => {
  it('2,000 junk RunAgentInput bodies: no 5xx, registered codes, none accepted, the conversation unchanged', async () => {
    const before = await s.surfacer.conversations.get(cid);
    // The owner TOKEN_A's conversations are recorded under: none may be added.
    const principal = bearerTokenAuthenticator([TOKEN_A])(new Request(s.url, { headers: { Authorization: `Bearer ${TOKEN_A}` } })) as Principal;
    const owner = ownerOfPrincipal(principal);
    expect(owner).toBe(before!.ownerSessionId);
    const owned = await s.surfacer.conversations.countOwnedBy(owner);
    const statuses = new Map<number, number>();
    let inStream = 0;
    await fc.assert(fc.asyncProperty(bodies(), async (raw) => {
      const response = await fetch(`${s.url}/ag-ui`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN_A}` }, body: raw,
      });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      expect(response.status).toBeLessThan(500);
      const text = await response.text();
      if (response.status !== 200) {
        const error = JSON.parse(text) as { code: string };
        expect(isErrorCode(error.code), error.code).toBe(true);
        return;
      }
      // In the stream: refused with RUN_ERROR and a registered code, never RUN_FINISHED.
      inStream += 1;
      const events = text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)) as { type: string; code?: string });
      expect(events[0]?.type).toBe('RUN_STARTED');
      const last = events.at(-1)!;
      expect(last.type, raw.slice(0, 300)).toBe('RUN_ERROR');
      expect(isErrorCode(last.code ?? ''), last.code).toBe(true);
    }), { numRuns: 2000 });
    const after = await s.surfacer.conversations.get(cid);
    expect(after!.version).toBe(before!.version);
    expect(irHash(after!.ir)).toBe(irHash(before!.ir));
    expect(await s.surfacer.conversations.countOwnedBy(owner)).toBe(owned);
    // Both doors were exercised: refusals before the stream and in it.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(300);
    expect(inStream, JSON.stringify([...statuses])).toBeGreaterThan(100);
    expect(s.errors).toEqual([]);
  }, 300_000);
});
