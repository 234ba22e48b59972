import type { BaseEvent } from '@ag-ui/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AguiClient, startAgui, TOKEN_A, types, type AguiStack } from './support.ts';
import { backendRefusingRecords } from '../support/refusing-records.ts';

/*
 * The shared record that a message was answered is written after its turn is applied (with Redis,
 * a durable write that waits for a replica). When it cannot be kept, the run still reports the
 * turn it applied (logged as a warning, never RUN_ERROR); the message is then not known as
 * answered, so the same history sent again runs it again, which the log shows.
 */
let s: AguiStack;
const warnings: string[] = [];
let refuse = true;
beforeAll(async () => {
  s = await startAgui({
    backend: backendRefusingRecords('ag-ui-answered', () => refuse),
    logger: { info() {}, warn(message) { warnings.push(message); }, error(message) { warnings.push(`ERROR ${message}`); } },
  });
});
afterAll(async () => { await s?.close(); });

const turnsIn = async (cid: string): Promise<number> => (await s.surfacer.conversations.get(cid))!.turnCount;

describe('AG-UI: a run whose "answered" record cannot be kept', () => {
  it('finishes with the turn it applied; the record is missing, so the resent history runs the message again', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('create a character card', 'm-1');
    const first = await client.run();
    expect(first.error).toBeUndefined();
    expect(types(first.events).at(-1)).toBe('RUN_FINISHED');
    expect(first.events.some((e: BaseEvent) => e.type === 'RUN_ERROR')).toBe(false);
    expect(warnings).toEqual(['AG-UI: could not record the message as answered; a resend of it would run again']);
    expect(await turnsIn(client.threadId)).toBe(1);

    refuse = false;
    const again = await client.run();
    expect(types(again.events).at(-1)).toBe('RUN_FINISHED');
    expect(await turnsIn(client.threadId)).toBe(2);
    // Kept this time: the same history once more runs nothing.
    await client.run();
    expect(await turnsIn(client.threadId)).toBe(2);
  });
});
