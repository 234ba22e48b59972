import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { A2UI_EXTENSION_URIS, A2UI_MIME_LEGACY } from '../../src/host-a2a/index.ts';
import { errorIndexes, runBothV09 } from '../clientsim/v0_9/compare.ts';
import { startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { feed, newOracle, renderedTree } from '../support/a2ui-v0_9-oracle.ts';
import { a2aClient, a2uiOf, sendTask, text, userMessage } from './support.ts';

/*
 * Issue 35 item 5: the official A2UI sample shell (a2ui-project/a2ui samples/client/lit/shell,
 * its middleware/a2a.ts) activates the A2UI extension with the X-A2A-Extensions header and
 * sends a plain v0.3 `message/send`, no a2uiClientCapabilities. It asked for A2UI: it gets the
 * surfaces of that version, in the basic catalogue (all a client that names none can render).
 */
let s: E2eServer;
beforeAll(async () => { s = await startE2e(); });
afterAll(async () => { await s.close(); });

interface V03Part { kind: string; text?: string; data?: unknown; metadata?: { mimeType?: string } }

/** The sample's request, byte for byte in shape: JSON-RPC 2.0, v0.3 `message/send`, one text part. */
async function sampleSend(say: string, extension: string): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${s.url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-A2A-Extensions': extension },
    body: JSON.stringify({
      jsonrpc: '2.0', id: randomUUID(), method: 'message/send',
      params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: say }] } },
    }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** The A2UI messages of a v0.3 status message's data parts, in order. */
function a2uiOfV03(parts: readonly V03Part[]): unknown[] {
  return parts.filter((p) => p.kind === 'data' && p.metadata?.mimeType === A2UI_MIME_LEGACY).flatMap((p) => (Array.isArray(p.data) ? p.data : [p.data]));
}

describe('A2A: the official A2UI sample shell\'s request (extension header, no capabilities)', () => {
  it('v0.9 activated by X-A2A-Extensions: the card as v0.9 data parts the official processor renders', async () => {
    const { status, headers, body } = await sampleSend('create a character card', A2UI_EXTENSION_URIS['0.9']);
    expect(status).toBe(200);
    expect(body.error).toBeUndefined();
    const task = body.result as { kind: string; status: { state: string; message: { parts: V03Part[] } } };
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    // The extension used is named back in the header the client sent it in.
    expect(headers.get('X-A2A-Extensions')).toBe(A2UI_EXTENSION_URIS['0.9']);
    const messages = a2uiOfV03(task.status.message.parts);
    const kinds = messages.map((m) => Object.keys(m as object).find((k) => k !== 'version'));
    // A whole surface, as every A2A answer sends it: a client that holds it replaces it.
    expect(kinds).toEqual(['deleteSurface', 'createSurface', 'updateComponents', 'updateDataModel']);
    const create = messages[1] as { createSurface: { surfaceId: string; catalogId: string } };
    expect(create.createSurface.catalogId).toBe(BASIC_CATALOG_ID);
    expect(messages.every((m) => (m as { version: string }).version === 'v0.9')).toBe(true);
    // The official v0.9 processor takes every message and draws the card's form.
    const oracle = newOracle();
    feed(oracle, messages, 'sample shell');
    expect(JSON.stringify(renderedTree(oracle, create.createSurface.surfaceId))).toContain('TextField');
    const run = runBothV09(messages);
    expect(run.refused).toEqual([]);
    expect(errorIndexes(run.violations)).toEqual([]);
  });

  it('the official SDK\'s v0.3 client with only the header: the same answer; the message\'s own extensions activate it too', async () => {
    const withHeader: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('X-A2A-Extensions', A2UI_EXTENSION_URIS['0.9']);
      return fetch(input, { ...init, headers });
    };
    const client = await a2aClient(s.url, { legacy: true, fetchImpl: withHeader });
    const task = await sendTask(client, userMessage([text('create a character card')]));
    expect(a2uiOf(task.status?.message).messages.map((m) => Object.keys(m).find((k) => k !== 'version')))
      .toEqual(['deleteSurface', 'createSurface', 'updateComponents', 'updateDataModel']);

    const plain = await a2aClient(s.url, { legacy: true });
    const byMessage = await sendTask(plain, { ...userMessage([text('create a character card')]), extensions: [A2UI_EXTENSION_URIS['0.8']] });
    const v08 = a2uiOf(byMessage.status?.message).messages;
    expect(v08.length).toBeGreaterThan(0);
    expect(v08.some((m) => 'beginRendering' in m)).toBe(true);
  });

  it('no extension and no capabilities: text only, as before', async () => {
    const { body } = await sampleSend('create a character card', 'https://example.com/another-extension/v1');
    const parts = (body.result as { status: { message: { parts: V03Part[] } } }).status.message.parts;
    expect(a2uiOfV03(parts)).toEqual([]);
    expect(parts.some((p) => p.kind === 'text' && (p.text ?? '') !== '')).toBe(true);
  });
});
