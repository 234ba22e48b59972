import type { BaseEvent } from '@ag-ui/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSameStateV09 } from '../clientsim/v0_9/compare.ts';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.ts';
import { piecesOf } from '../support/fake-stream.ts';
import { AguiClient, startAgui, TOKEN_A, TOKEN_B, nativeHashesV09, type AguiStack } from './support.ts';

/*
 * Issue 20, AG-UI: a streamed turn reaches the official @ag-ui/client HttpAgent as it happens.
 * A fake Ollama writes the answer in small NDJSON pieces at a set pace (through the real
 * `ollama` client); the run's text arrives as several TEXT_MESSAGE_CONTENT deltas of one text
 * message long before RUN_FINISHED, and the form's a2ui-surface activity arrives before the model
 * sent its last piece. Every operation is accepted by the official v0.9 processor, ClientSim
 * agrees, and the client ends on the state of a fresh native snapshot.
 */

const FORM = { type: 'ui.show_form', payload: { template: 'persona', values: { display_name: 'Sam' } } };
const TEXT = 'Here is your persona form, with your name filled in. Change anything you like, then press save.';
const ANSWER = JSON.stringify({
  assistant_text: TEXT,
  directives: [FORM, { type: 'ui.toast', payload: { level: 'info', text: 'Change anything you like, then save. Your changes are kept as you go.' } }],
});

let fake: FakeOllama;
let s: AguiStack;
/** When the fake model wrote each piece of the answer it is writing now. */
let sentAt: number[] = [];
beforeAll(async () => {
  fake = await startFakeOllama(() => ({ kind: 'stream', pieces: piecesOf(ANSWER, 6), paceMs: 20, onPiece: (_i, at) => sentAt.push(at) }));
  s = await startAgui({
    planner: 'ollama',
    env: { SURFACER_API_TOKENS: `${TOKEN_A},${TOKEN_B}`, OLLAMA_HOST: fake.host, SURFACER_OLLAMA_MODEL: 'm', SURFACER_TOOL_MAX_STEPS: '0' },
  });
});
afterAll(async () => { await s.close(); await fake.close(); });


/** One run, each event stamped with the time the HttpAgent handed it over. */
async function timedRun(client: AguiClient): Promise<Array<{ event: BaseEvent; at: number }>> {
  const seen = client.events.length;
  const { error } = await client.run();
  const timed = client.events.slice(seen).map((event, i) => ({ event, at: client.receivedAt[seen + i]! }));
  expect(error).toBeUndefined();
  return timed;
}

describe('a streamed turn over POST /ag-ui', () => {
  it('text deltas of one message long before RUN_FINISHED, the form\'s activity before the model\'s last piece', async () => {
    sentAt = [];
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('set up my persona', 'm1');
    const timed = await timedRun(client);
    const at = (type: string) => timed.filter((t) => t.event.type === type).map((t) => t.at);
    const lastPiece = sentAt.at(-1)!;
    expect(sentAt.length).toBe(piecesOf(ANSWER, 6).length);

    const contents = timed.filter((t) => t.event.type === 'TEXT_MESSAGE_CONTENT');
    expect(contents.length).toBeGreaterThan(3);
    const finished = at('RUN_FINISHED')[0]!;
    expect(timed.at(-1)!.event.type).toBe('RUN_FINISHED');
    // The first words arrive while the model is still writing, well before the run ends.
    expect(contents[0]!.at).toBeLessThan(lastPiece);
    expect(finished - contents[0]!.at).toBeGreaterThan(200);
    // The form's surface arrives before the model's last piece and before the text message ends.
    const firstActivity = at('ACTIVITY_SNAPSHOT')[0]!;
    expect(firstActivity).toBeLessThan(lastPiece);
    expect(firstActivity).toBeLessThan(at('TEXT_MESSAGE_END')[0]!);
    expect(firstActivity).toBeGreaterThan(contents[0]!.at);

    // One text message for the turn: one START, deltas and END under its id, its text the transcript's.
    expect(at('TEXT_MESSAGE_START')).toHaveLength(1);
    expect(at('TEXT_MESSAGE_END')).toHaveLength(1);
    const ids = new Set(timed.filter((t) => t.event.type.startsWith('TEXT_MESSAGE')).map((t) => (t.event as BaseEvent & { messageId: string }).messageId));
    expect(ids.size).toBe(1);
    const assistant = client.agent.messages.filter((m) => m.role === 'assistant');
    expect(assistant).toHaveLength(1);
    expect(assistant[0]!.content).toBe(TEXT);
    const conversation = await s.surfacer.conversations.get(client.threadId);
    expect(conversation!.ir.transcript.filter((e) => e.role === 'assistant').map((e) => e.text)).toEqual([TEXT]);

    // Everything received is accepted by the official processor; ClientSim agrees; both equal a fresh snapshot.
    expect(client.invalidEvents).toEqual([]);
    expect(client.refused).toEqual([]);
    expect(client.violations).toEqual([]);
    expectSameStateV09(client.sim, client.oracle);
    const native = await nativeHashesV09(s, client.threadId);
    expect(client.sim.hashes()).toEqual(native);
    const replayed = client.replayActivities();
    expect(replayed.refused).toEqual([]);
    expect(replayed.violations).toEqual([]);
    expect(replayed.sim.hashes()).toEqual(native);
    expect(s.errors).toEqual([]);
  });

  it('going away mid-stream cancels the turn at once; the same history sent again answers it whole', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('set up my persona', 'm1');
    const requests = fake.requests.length;
    const running = client.run();
    // Leave as soon as the first words arrived (the model is still writing).
    for (let i = 0; i < 500 && !client.events.some((e) => e.type === 'TEXT_MESSAGE_CONTENT'); i++) await new Promise((r) => setTimeout(r, 5));
    expect(client.events.some((e) => e.type === 'TEXT_MESSAGE_CONTENT')).toBe(true);
    client.agent.abortRun();
    await running;
    expect(client.events.some((e) => e.type === 'RUN_FINISHED')).toBe(false);
    // The provider request was aborted, and the conversation is free again.
    for (let i = 0; i < 200 && !(fake.aborted[requests] === true && (await s.surfacer.conversations.get(client.threadId))?.busy === false); i++) await new Promise((r) => setTimeout(r, 10));
    expect(fake.aborted[requests]).toBe(true);
    expect((await s.surfacer.conversations.get(client.threadId))?.busy).toBe(false);
    const again = new AguiClient(s.url, TOKEN_A, client.threadId);
    again.say('set up my persona', 'm1');
    const timed = await timedRun(again);
    expect(timed.at(-1)!.event.type).toBe('RUN_FINISHED');
    expect(again.agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([TEXT]);
    expect(again.invalidEvents).toEqual([]);
    expect(again.refused).toEqual([]);
    expect(again.violations).toEqual([]);
    expect(again.sim.hashes()).toEqual(await nativeHashesV09(s, again.threadId));
    expect(s.errors).toEqual([]);
  });

  it('going away after a directive was applied mid-stream: what was applied stays, and the same history sent again applies nothing twice', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('set up my persona', 'm1');
    const requests = fake.requests.length;
    const running = client.run();
    // Leave once the form's activity arrived: the form is applied, the model still writes the toast.
    for (let i = 0; i < 500 && !client.events.some((e) => e.type === 'ACTIVITY_SNAPSHOT'); i++) await new Promise((r) => setTimeout(r, 5));
    expect(client.events.some((e) => e.type === 'ACTIVITY_SNAPSHOT')).toBe(true);
    client.agent.abortRun();
    await running;
    for (let i = 0; i < 200 && (await s.surfacer.conversations.get(client.threadId))?.busy !== false; i++) await new Promise((r) => setTimeout(r, 10));
    const after = await s.surfacer.conversations.get(client.threadId);
    const persona = after!.ir.surfaces.filter((surface) => surface.lifecycle !== 'deleted');
    expect(persona.length).toBe(1);
    const again = new AguiClient(s.url, TOKEN_A, client.threadId);
    again.say('set up my persona', 'm1');
    const timed = await timedRun(again);
    expect(timed.at(-1)!.event.type).toBe('RUN_FINISHED');
    // No second turn: the model was asked once, and the conversation is as the cancelled turn left it.
    expect(fake.requests.length).toBe(requests + 1);
    expect((await s.surfacer.conversations.get(client.threadId))!.version).toBe(after!.version);
    expect(again.sim.hashes()).toEqual(await nativeHashesV09(s, again.threadId));
    expect(again.violations).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  it('a second streamed turn on the same thread: a new text message, the surfaces still agree', async () => {
    const client = new AguiClient(s.url, TOKEN_B);
    client.say('set up my persona', 'm1');
    await timedRun(client);
    client.say('again please', 'm2');
    sentAt = [];
    const timed = await timedRun(client);
    expect(timed.filter((t) => t.event.type === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(3);
    expect(client.agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([TEXT, TEXT]);
    expect(new Set(client.agent.messages.map((m) => m.id)).size).toBe(client.agent.messages.length);
    expect(client.invalidEvents).toEqual([]);
    expect(client.refused).toEqual([]);
    expect(client.violations).toEqual([]);
    expectSameStateV09(client.sim, client.oracle);
    expect(client.sim.hashes()).toEqual(await nativeHashesV09(s, client.threadId));
    expect(s.errors).toEqual([]);
  });
});
