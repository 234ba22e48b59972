import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer, type Surfacer } from '../../src/server/index.ts';
import { a2aClient, sendTask, text, textOf, userMessage } from './support.ts';
import { backendRefusingRecords } from '../support/refusing-records.ts';

/*
 * The shared record that an A2A message was answered is written after its turn is applied (with
 * Redis, a durable write that waits for a replica). When it cannot be kept, the task still
 * completes with the turn it applied (a warning, not a failed task); the message is then not known
 * as answered, so the same message sent again runs again, which the conversation shows.
 */
let surfacer: Surfacer;
let server: RunningServer;
const warnings: string[] = [];
let refuse = true;
beforeAll(async () => {
  surfacer = createSurfacer({
    app: createDemoApp(), sessionSecret: 'a2a-answered-test-secret-0123', env: {},
    backend: backendRefusingRecords('a2a-answered', () => refuse),
    logger: { info() {}, warn(message) { warnings.push(message); }, error(message) { warnings.push(`ERROR ${message}`); } },
  });
  server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
});
afterAll(async () => { await server?.close(1000); });

describe('A2A: a task whose "answered" record cannot be kept', () => {
  it('completes with the turn it applied; the record is missing, so the same message sent again runs again', async () => {
    const client = await a2aClient(server.url);
    const first = await sendTask(client, userMessage([text('create a character card')], { messageId: 'm-1' }));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(warnings.filter((w) => w.startsWith('A2A') || w.startsWith('ERROR'))).toEqual(['A2A: could not record the message as answered; a resend of it would run again']);
    const cid = first.contextId;
    expect((await surfacer.conversations.get(cid))!.turnCount).toBe(1);

    refuse = false;
    const resend = userMessage([text('create a character card')], { contextId: cid, messageId: 'm-1' });
    expect((await sendTask(client, resend)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await surfacer.conversations.get(cid))!.turnCount).toBe(2);
    // Kept this time: once more runs nothing.
    const again = await sendTask(client, resend);
    expect(textOf(again.status?.message)).toContain('answered already');
    expect((await surfacer.conversations.get(cid))!.turnCount).toBe(2);
  });
});
