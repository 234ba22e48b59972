import { TaskState } from '@a2a-js/sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createClientSimV09 } from '../../src/clientsim/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { ownerOfPrincipal } from '../../src/hosting/index.ts';
import { createSurfacer, type Surfacer } from '../../src/server/index.ts';
import { CHARACTER, fillAndSubmitV09 } from '../e2e/support/stack.ts';
import { a2aClient, a2uiData, a2uiOf, CAPS_V09, sendTask, text, userMessage } from './support.ts';

/*
 * Who may call the A2A agent (issue 19 item 3): bearer tokens from SURFACER_API_TOKENS, each its
 * own principal; no token → 401 (the card, which declares the scheme, stays public); another
 * principal's conversation (contextId) or task is not found, never its UI. Then 2,000 junk
 * JSON-RPC requests from the owner: no 5xx, nothing accepted, the conversation unchanged.
 */
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';

let surfacer: Surfacer;
let server: RunningServer;
beforeAll(async () => {
  surfacer = createSurfacer({ app: createDemoApp(), env: { SURFACER_API_TOKENS: ` ${ALICE}, ${BOB} ` } });
  server = await surfacer.listen({ port: 0 });
});
afterAll(async () => { await server.close(1000); });

const rpc = (body: unknown, headers: Record<string, string> = {}) => fetch(`${server.url}/a2a`, {
  method: 'POST', headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers }, body: JSON.stringify(body),
});

/** Alice's conversation with the character card open, and the click her renderer would send. */
async function alicesCard() {
  const alice = await a2aClient(server.url, { token: ALICE });
  const task = await sendTask(alice, userMessage([text('create a character card')], { metadata: CAPS_V09 }));
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const sim = createClientSimV09();
  sim.applyAll(a2uiOf(task.status?.message).messages);
  return { alice, task, cid: task.contextId, action: fillAndSubmitV09(sim, 'main--e0', CHARACTER) };
}

describe('bearer tokens', () => {
  it('no token or an unknown one: 401 with the scheme; the card stays public and declares it', async () => {
    const card = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(card.status).toBe(200);
    expect((await card.json() as { securitySchemes: unknown }).securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { description: expect.any(String), scheme: 'Bearer' } } });
    const send = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } } };
    for (const headers of [{} as Record<string, string>, { Authorization: 'Bearer nope' }, { Authorization: `Basic ${ALICE}` }, { Authorization: `Bearer ${ALICE}x` }]) {
      const res = await rpc(send, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ code: 'HTTP_UNAUTHORIZED', category: 'session' });
    }
    // The official client without a token fails the same way.
    const anonymous = await a2aClient(server.url);
    await expect(sendTask(anonymous, userMessage([text('hello')]))).rejects.toThrow(/401/);
    const owned = await surfacer.conversations.countOwnedBy(ownerOfPrincipal({ id: 'nobody' }));
    expect(owned).toBe(0);
  });

  it("another principal's conversation and tasks are not found; nothing of them leaks, nothing changes", async () => {
    const { task, cid, action } = await alicesCard();
    const before = (await surfacer.conversations.get(cid))!;
    const bob = await a2aClient(server.url, { token: BOB });
    await expect(sendTask(bob, userMessage([text('show me the card')], { contextId: cid, metadata: CAPS_V09 }))).rejects.toThrow(/no such conversation/);
    await expect(sendTask(bob, userMessage([a2uiData([action])], { contextId: cid, metadata: CAPS_V09 }))).rejects.toThrow(/no such conversation/);
    const stream = bob.sendMessageStream({ tenant: '', message: userMessage([text('hi')], { contextId: cid, metadata: CAPS_V09 }), configuration: undefined, metadata: undefined });
    await expect(stream.next()).rejects.toThrow(/no such conversation/);
    await expect(bob.getTask({ tenant: '', id: task.id })).rejects.toThrow();
    await expect(bob.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow();
    // On the wire: the JSON-RPC not-found error, with our code in its ErrorInfo.
    const raw = await rpc({ jsonrpc: '2.0', id: 9, method: 'SendMessage', params: { message: { messageId: 'm9', contextId: cid, role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }, { Authorization: `Bearer ${BOB}` });
    expect(raw.status).toBe(200);
    const body = await raw.json() as { error: { code: number; data: Array<{ metadata?: { code?: string } }> } };
    expect(body.error.code).toBe(-32001);
    expect(body.error.data[0]?.metadata?.code).toBe('HTTP_NOT_FOUND');
    expect(JSON.stringify(body)).not.toContain('main--e0');
    expect((await surfacer.conversations.get(cid))!.version).toBe(before.version);
    // Alice still can.
    const alice = await a2aClient(server.url, { token: ALICE });
    const applied = await sendTask(alice, userMessage([a2uiData([action])], { contextId: cid, metadata: CAPS_V09 }));
    expect(applied.status?.state, JSON.stringify(applied.status?.message?.parts)).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe('createSurfacer options', () => {
  it('`authenticate` replaces the tokens; `agents.a2a: false` leaves the agent out', async () => {
    const custom = createSurfacer({
      app: createDemoApp(), env: { SURFACER_API_TOKENS: ALICE },
      authenticate: (request) => (request.headers.get('x-user') === 'carol' ? { id: 'carol' } : undefined),
    });
    const running = await custom.listen({ port: 0 });
    try {
      const send = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'c1', role: 'ROLE_USER', parts: [{ text: 'create a character card' }] } } };
      const post = (headers: Record<string, string>) => fetch(`${running.url}/a2a`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers }, body: JSON.stringify(send) });
      expect((await post({ Authorization: `Bearer ${ALICE}` })).status).toBe(401);
      const ok = await post({ 'X-User': 'carol' });
      expect(ok.status).toBe(200);
      const body = await ok.json() as { result: { task: { contextId: string } } };
      expect((await custom.conversations.get(body.result.task.contextId))!.ownerSessionId).toBe(ownerOfPrincipal({ id: 'carol' }));
    } finally {
      await running.close(1000);
    }
    const without = createSurfacer({ app: createDemoApp(), agents: { a2a: false } });
    const off = await without.listen({ port: 0 });
    try {
      expect((await fetch(`${off.url}/.well-known/agent-card.json`)).status).toBe(404);
      expect((await fetch(`${off.url}/a2a`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status).toBe(404);
    } finally {
      await off.close(1000);
    }
  });
});

describe('fuzz: 2,000 junk JSON-RPC requests', () => {
  it('no 5xx, none accepted, the conversation unchanged', async () => {
    const { cid, action } = await alicesCard();
    const before = (await surfacer.conversations.get(cid))!;
    const owner = before.ownerSessionId;
    const ownedBefore = await surfacer.conversations.countOwnedBy(owner);

    const junk = fc.jsonValue({ maxDepth: 3 });
    const inner = action.action;
    // Each mutation breaks something the ingress checks: none is the real click.
    const brokenAction = fc.oneof(
      fc.string({ minLength: 1, maxLength: 20 }).map((nonce) => ({ ...action, action: { ...inner, context: { ...inner.context, nonce: `x${nonce}` } } })),
      fc.integer({ min: -3, max: 50 }).filter((r) => r !== inner.context.rev).map((rev) => ({ ...action, action: { ...inner, context: { ...inner.context, rev } } })),
      fc.constantFrom('main--e1', 'main', 'nope--e0', '', 'main--e0x').map((surfaceId) => ({ ...action, action: { ...inner, surfaceId } })),
      fc.string({ maxLength: 12 }).map((name) => ({ ...action, action: { ...inner, name: `zz${name}` } })),
      junk.map((context) => ({ ...action, action: { ...inner, context } })),
      fc.constant({ ...action, version: 'v9' }),
      fc.constant({ userAction: { ...inner, context: { ...inner.context, nonce: 'stale' } } }),
      fc.constant(JSON.parse(`{"version":"v0.9","action":{"name":"x","surfaceId":"main--e0","sourceComponentId":"b","timestamp":"2026-01-01T00:00:00Z","context":{"__proto__":{"nonce":"n"},"rev":1}}}`)),
      junk,
    );
    const mime = fc.constantFrom('application/json+a2ui', 'application/a2ui+json', 'application/json+a2ui', 'application/a2ui+json', 'application/json', '');
    const v1Part = fc.oneof(
      { weight: 6, arbitrary: fc.record({ data: fc.oneof(brokenAction, fc.array(brokenAction, { maxLength: 3 })), mediaType: mime, metadata: fc.option(fc.record({ mimeType: mime }), { nil: undefined }) }, { requiredKeys: ['data'] }) },
      fc.record({ text: fc.constantFrom('', ' ', '\n\t') }),
      fc.record({ url: fc.webUrl(), mediaType: mime }),
      junk,
    );
    const v03Part = fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('data'), data: brokenAction, metadata: fc.record({ mimeType: mime }) }) },
      fc.record({ kind: fc.constantFrom('text', 'file', 'nope'), text: fc.constantFrom('', ' ') }),
      junk,
    );
    const contextId = fc.oneof({ weight: 6, arbitrary: fc.constant(cid) }, { weight: 1, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 1, arbitrary: fc.constant(undefined) });
    // Mostly well-formed messages around broken parts (so the ingress itself is exercised), some junk everywhere.
    const message = (part: fc.Arbitrary<unknown>, role: fc.Arbitrary<unknown>, validRole: string) => fc.record({
      messageId: fc.oneof({ weight: 8, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) }, { weight: 1, arbitrary: junk }),
      contextId,
      taskId: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }),
      role: fc.oneof({ weight: 8, arbitrary: fc.constant(validRole) }, { weight: 2, arbitrary: role }),
      kind: fc.option(fc.constant('message'), { nil: undefined }),
      parts: fc.oneof({ weight: 8, arbitrary: fc.array(part, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: junk }),
      metadata: fc.oneof({ weight: 3, arbitrary: fc.constant(CAPS_V09) }, { weight: 1, arbitrary: junk }),
    }, { requiredKeys: ['parts', 'messageId', 'role'] });
    const taskRef = fc.record({ id: fc.oneof(fc.uuid(), fc.string({ maxLength: 10 }), junk) }, { requiredKeys: [] });
    const v1 = fc.record({
      jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '2.0', '1.0', 2),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)),
      method: fc.constantFrom('SendMessage', 'SendMessage', 'SendMessage', 'SendStreamingMessage', 'GetTask', 'CancelTask', 'ListTasks', 'SubscribeToTask', 'GetExtendedAgentCard', 'CreateTaskPushNotificationConfig', 'Nope'),
      params: fc.oneof({ weight: 6, arbitrary: fc.record({ message: message(v1Part, fc.constantFrom('ROLE_AGENT', 1, 'user', 'x'), 'ROLE_USER'), configuration: junk }, { requiredKeys: ['message'] }) }, taskRef, junk),
    }, { requiredKeys: ['method'] });
    const v03 = fc.record({
      jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '2.0', '1.0'),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)),
      method: fc.constantFrom('message/send', 'message/send', 'message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe', 'tasks/pushNotificationConfig/set', 'agent/getAuthenticatedExtendedCard', 'nope/nope'),
      params: fc.oneof({ weight: 6, arbitrary: fc.record({ message: message(v03Part, fc.constantFrom('agent', 'ROLE_USER', 3), 'user'), configuration: junk }, { requiredKeys: ['message'] }) }, taskRef, junk),
    }, { requiredKeys: ['method'] });
    const request = fc.oneof(
      { weight: 4, arbitrary: v1.map((b) => ({ body: JSON.stringify(b), version: '1.0' as string | undefined })) },
      { weight: 4, arbitrary: v03.map((b) => ({ body: JSON.stringify(b), version: undefined as string | undefined })) },
      { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.string(), junk.map((j) => JSON.stringify(j))), fc.constantFrom('1.0', '0.3', '2.0', 'x', undefined)).map(([body, version]) => ({ body, version })) },
    );
    const samples = fc.sample(fc.tuple(request, fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', undefined)), { numRuns: 2000, seed: 19 });

    const statuses = new Map<number, number>();
    let accepted = 0;
    let reachedIngress = 0;
    for (const [{ body, version }, type] of samples) {
      const headers: Record<string, string> = { Authorization: `Bearer ${ALICE}` };
      if (type !== undefined) headers['Content-Type'] = type;
      if (version !== undefined) headers['A2A-Version'] = version;
      const res = await fetch(`${server.url}/a2a`, { method: 'POST', headers, body });
      const answer = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(res.status, `${body.slice(0, 300)} → ${answer.slice(0, 300)}`).toBeLessThan(500);
      // A send that completed is an accepted request (ListTasks/GetTask may show Alice's earlier, real tasks).
      const send = /"method":"(SendMessage|SendStreamingMessage|message\/send|message\/stream)"/.test(body);
      if (/"code":"(A2UI_C2S_|ACTION_)/.test(answer)) reachedIngress += 1;
      if (send && /"state":\s*"(TASK_STATE_COMPLETED|completed)"/.test(answer)) accepted += 1;
    }
    expect(accepted).toBe(0);
    const after = (await surfacer.conversations.get(cid))!;
    expect(after.version).toBe(before.version);
    expect(after.ir).toEqual(before.ir);
    expect(await surfacer.conversations.countOwnedBy(owner)).toBe(ownedBefore);
    // The junk reached past the door: many answers are JSON-RPC errors (200), hundreds refused by the ingress itself.
    console.log('A2A fuzz statuses', Object.fromEntries(statuses), 'refused by the ingress', reachedIngress);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(800);
    expect(reachedIngress).toBeGreaterThan(60);
  });
});
