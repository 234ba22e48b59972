import { TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientSim, createClientSimV09 } from '../../src/clientsim/index.ts';
import { A2UI_MIME, A2UI_MIME_LEGACY } from '../../src/host-a2a/index.ts';
import { LOCAL_PRINCIPAL, ownerOfPrincipal } from '../../src/hosting/index.ts';
import { DEMO_CATALOG_ID } from '../../src/app/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { expectSameState, errorsOf, runBoth } from '../clientsim/compare.ts';
import { errorIndexes, expectSameStateV09, runBothV09 } from '../clientsim/v0_9/compare.ts';
import { CHARACTER, fillAndSubmit, fillAndSubmitV09, startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { wireState08, wireState09 } from '../support/a2ui-equivalence.ts';
import {
  a2aClient, a2uiData, a2uiOf, CAPS_V08, CAPS_V09, CAPS_V091, collect, errorOf, sendTask, text, textOf, userMessage,
} from './support.ts';

/*
 * Issue 19 item 2 over real HTTP, driven by the official @a2a-js/sdk client against the product
 * as `npm start` composes it (no tokens: open on loopback, one local principal). Every A2UI
 * message an answer carries goes through the official @a2ui/web_core processor of its version
 * and ClientSim, which must agree with each other and with the conversation's own A2UI snapshot.
 */
let s: E2eServer;
beforeAll(async () => { s = await startE2e(); });
afterAll(async () => { await s.close(); });

/** The A2UI state a fresh client of the native stream would hold now (the bridges' snapshot). */
async function nativeV09(cid: string) {
  const { bridges } = s.handle.a2ui.wire('0.9');
  expect(await bridges.prepare(cid)).toBe(true);
  const sim = createClientSimV09();
  expect(sim.applyAll(bridges.snapshot(cid)).filter((v) => v.severity === 'error')).toEqual([]);
  return sim;
}

async function nativeV08(cid: string) {
  const { bridges } = s.handle.a2ui.wire('0.8');
  expect(await bridges.prepare(cid)).toBe(true);
  const sim = createClientSim();
  expect(errorsOf(sim.applyAll(bridges.snapshot(cid)))).toEqual([]);
  return sim;
}

/** Everything a v0.9 A2A client received so far, through both renderers: no refusal, same state, same as native. */
async function expectV09Agrees(received: readonly Record<string, unknown>[], cid: string) {
  const run = runBothV09(received);
  expect(run.refused.map((i) => `${i}: ${run.reasons.get(i)}`)).toEqual([]);
  expect(errorIndexes(run.violations)).toEqual([]);
  expectSameStateV09(run.sim, run.oracle);
  expect(wireState09(run.sim)).toEqual(wireState09(await nativeV09(cid)));
  return run;
}

async function expectV08Agrees(received: readonly Record<string, unknown>[], cid: string) {
  const run = runBoth(received);
  expect(run.wc.threw).toEqual([]);
  expect(errorsOf(run.violations)).toEqual([]);
  expectSameState(run.sim, run.wc);
  expect(wireState08(run.sim)).toEqual(wireState08(await nativeV08(cid)));
  return run;
}

const committed = async (cid: string): Promise<unknown> => findSurface((await s.handle.conversations.get(cid))!.ir, 'main')?.data.committed;

describe('agent card', () => {
  it('v1.0: streaming, the A2UI extension per served version with its catalogue, the bearer scheme', async () => {
    const res = await fetch(`${s.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(res.status).toBe(200);
    const card = await res.json() as Record<string, any>;
    expect(card.name).toBe(s.handle.conversations.app.name);
    expect(card.capabilities.streaming).toBe(true);
    expect(card.capabilities.extensions.map((e: { uri: string }) => e.uri)).toEqual([
      'https://a2ui.org/a2a-extension/a2ui/v0.9.1', 'https://a2ui.org/a2a-extension/a2ui/v0.9', 'https://a2ui.org/a2a-extension/a2ui/v0.8',
    ]);
    // The demo's own catalogue first (its PortraitCard), then the basic one.
    expect(card.capabilities.extensions[1].params).toEqual({ supportedCatalogIds: [DEMO_CATALOG_ID, 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json'], acceptsInlineCatalogs: false });
    expect(card.capabilities.extensions[2].params.supportedCatalogIds).toEqual([DEMO_CATALOG_ID, 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json']);
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    expect(card.supportedInterfaces).toEqual([
      { url: `${s.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${s.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.skills.length).toBeGreaterThan(1);
    // The SDK client reads it.
    const client = await a2aClient(s.url);
    expect(client.protocolVersion).toBe('1.0');
  });

  it('v0.3 (no A2A-Version): url, preferredTransport, OpenAPI-style bearer scheme', async () => {
    const card = await (await fetch(`${s.url}/.well-known/agent-card.json`)).json() as Record<string, any>;
    expect(card).toMatchObject({
      protocolVersion: '0.3.0', url: `${s.url}/a2a`, preferredTransport: 'JSONRPC', capabilities: { streaming: true },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, security: [{ bearer: [] }],
    });
    expect(card.capabilities.extensions).toHaveLength(3);
  });
});

describe('message/send (A2A v1.0)', () => {
  it('v0.9 capabilities: a turn answers with text and A2UI; the contextId is the conversation; an action as a data part is applied once', async () => {
    const client = await a2aClient(s.url);
    const task = await sendTask(client, userMessage([text('create a character card')], { metadata: CAPS_V09 }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const cid = task.contextId;
    const conversation = await s.handle.conversations.get(cid);
    expect(conversation?.ownerSessionId).toBe(ownerOfPrincipal(LOCAL_PRINCIPAL));
    expect(textOf(task.status?.message)).not.toBe('');
    const first = a2uiOf(task.status?.message);
    expect(first.mimes).toEqual([A2UI_MIME_LEGACY]);
    expect(first.mediaTypes).toEqual([A2UI_MIME_LEGACY]);
    expect(first.messages.every((m) => m.version === 'v0.9')).toBe(true);
    const received = [...first.messages];
    const run = await expectV09Agrees(received, cid);
    // The task names the conversation's own A2UI stream, with its token: the native view of the same UI.
    const stream = task.metadata?.a2uiStream as { url: string; token: string };
    expect(stream.url).toBe(`/a2ui/c/${cid}/stream`);
    const snapshot = await fetch(`${s.url}${stream.url.replace(/stream$/, 'snapshot.jsonl')}?v=0.9`, { headers: { Authorization: `Bearer ${stream.token}` } });
    expect(snapshot.status).toBe(200);
    expect((await snapshot.text()).trimEnd().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual(first.messages.filter((m) => !('deleteSurface' in m)));

    // The user fills the card in the renderer and presses submit: the action goes back as a data part.
    const action = fillAndSubmitV09(run.sim, 'main--e0', CHARACTER);
    const messageId = 'submit-1';
    const applied = await sendTask(client, userMessage([a2uiData([action])], { contextId: cid, metadata: CAPS_V09, messageId }));
    expect(applied.status?.state, JSON.stringify(errorOf(applied))).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(applied.contextId).toBe(cid);
    expect((await committed(cid) as { name?: unknown }).name).toBe(CHARACTER.name);
    const version = (await s.handle.conversations.get(cid))!.version;
    // The client held the surface at the action's rev: the answer is the update from there, not the surface again.
    const step = a2uiOf(applied.status?.message).messages;
    expect(step.length).toBeGreaterThan(0);
    expect(step.every((m) => m.version === 'v0.9' && !('createSurface' in m) && !('deleteSurface' in m))).toBe(true);
    received.push(...step);
    await expectV09Agrees(received, cid);

    // The same A2A message again (a client retry): answered, applied once.
    const again = await sendTask(client, userMessage([a2uiData([action])], { contextId: cid, metadata: CAPS_V09, messageId }));
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await s.handle.conversations.get(cid))!.version).toBe(version);

    // The same click in a new message: the nonce was used, the surface moved on → failed, stale, with the current UI.
    const stale = await sendTask(client, userMessage([a2uiData([action])], { contextId: cid, metadata: CAPS_V09 }));
    expect(stale.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(errorOf(stale)?.code).toBe('A2UI_C2S_SURFACE_STALE');
    expect((await s.handle.conversations.get(cid))!.version).toBe(version);
    const recovery = a2uiOf(stale.status?.message).messages;
    expect(recovery.length).toBeGreaterThan(0);
    await expectV09Agrees([...received, ...recovery], cid);
  });

  it('v0.9.1 activated: messages carry v0.9.1 and the application/a2ui+json MIME type', async () => {
    const client = await a2aClient(s.url);
    const task = await sendTask(client, userMessage([text('create a character card')], { metadata: CAPS_V091 }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const ui = a2uiOf(task.status?.message);
    expect(ui.mimes).toEqual([A2UI_MIME]);
    expect(ui.messages.length).toBeGreaterThan(0);
    expect(ui.messages.every((m) => m.version === 'v0.9.1')).toBe(true);
  });

  it('v0.8 capabilities: one v0.8 message per data part; the submit is applied', async () => {
    const client = await a2aClient(s.url);
    const task = await sendTask(client, userMessage([text('create a character card')], { metadata: CAPS_V08 }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const cid = task.contextId;
    const first = a2uiOf(task.status?.message);
    expect(first.messages.length).toBe(first.mimes.length);
    expect(first.messages.every((m) => !('version' in m))).toBe(true);
    const received = [...first.messages];
    const run = await expectV08Agrees(received, cid);
    const action = fillAndSubmit(run.sim, 'main--e0', CHARACTER);
    const applied = await sendTask(client, userMessage([a2uiData([action])], { contextId: cid, metadata: CAPS_V08 }));
    expect(applied.status?.state, JSON.stringify(errorOf(applied))).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await committed(cid) as { name?: unknown }).name).toBe(CHARACTER.name);
    const step = a2uiOf(applied.status?.message).messages;
    expect(step.length).toBeGreaterThan(0);
    expect(step.some((m) => 'beginRendering' in m || 'deleteSurface' in m)).toBe(false);
    received.push(...step);
    await expectV08Agrees(received, cid);
  });

  it('without A2UI capabilities: a text-only answer, no data part', async () => {
    const client = await a2aClient(s.url);
    const task = await sendTask(client, userMessage([text('create a character card')]));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).not.toBe('');
    expect(task.status?.message?.parts.every((p) => p.content?.$case === 'text')).toBe(true);
    // The turn happened all the same: the conversation has the card.
    expect(findSurface((await s.handle.conversations.get(task.contextId))!.ir, 'main')).toBeDefined();
  });

  it('a text message resent with the same messageId (its answer was lost): answered with the UI as it is, no second turn', async () => {
    const client = await a2aClient(s.url);
    const first = await sendTask(client, userMessage([text('create a character card')], { metadata: CAPS_V09 }));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const cid = first.contextId;
    const resend = userMessage([text('show me sample characters')], { contextId: cid, metadata: CAPS_V09, messageId: 'm-resent-1' });
    const answered = await sendTask(client, resend);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const after = await s.handle.conversations.get(cid);
    const again = await sendTask(client, resend);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(again.status?.message)).toContain('answered already');
    // No second turn: the log did not move, and the UI it carries is the conversation's as it is.
    const now = await s.handle.conversations.get(cid);
    expect(now!.version).toBe(after!.version);
    expect(now!.ir.transcript.filter((e) => e.role === 'user').length).toBe(2);
    await expectV09Agrees(a2uiOf(again.status?.message).messages, cid);
  });

  it('a contextId that is no conversation of this caller: not found, nothing created', async () => {
    const client = await a2aClient(s.url);
    await expect(sendTask(client, userMessage([text('hello')], { contextId: 'cNoSuchConversation1' }))).rejects.toThrow(/no such conversation/);
  });
});

describe('message/stream (A2A v1.0)', () => {
  it('task, working, then completed with the UI; the second turn continues the same conversation', async () => {
    const client = await a2aClient(s.url);
    const events = await collect(client.sendMessageStream({ tenant: '', message: userMessage([text('create a character card')], { metadata: CAPS_V09 }), configuration: undefined, metadata: undefined }));
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    const final = events.at(-1)!.payload;
    expect(final?.$case).toBe('statusUpdate');
    const update = final!.value as { status?: Task['status']; contextId: string };
    expect(update.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const received = a2uiOf(update.status?.message).messages;
    await expectV09Agrees(received, update.contextId);
    // Nothing of this file's requests made the server log an error.
    expect(s.errors).toEqual([]);
  });
});
