import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createMemoryStore, type ConversationStore } from '../../src/conversation/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer } from '../../src/server/index.ts';
import { makeError } from '../../src/errors/index.ts';
import { PlannerError } from '../../src/llm/index.ts';
import { createPinoLogger, logSettingsFromEnv, scrubFields } from '../../src/telemetry/log.ts';
import { openConversation, sendMessage } from '../host-html/support/page.ts';
import { HttpClient } from '../support/http-client.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';
import { recordSpansForTestFile } from './support.ts';

/*
 * The process's structured log (src/telemetry/log.ts): one JSON line per event, with the active
 * span's ids and the conversation id, and never a secret or — unless configured — a person's
 * words. Lines are captured in memory.
 */

// The SDK as `surfacer serve` registers it, spans kept in memory.
const spans = recordSpansForTestFile();

function memoryLogger(options: { logContent?: boolean; format?: 'json' | 'pretty' } = {}) {
  const lines: string[] = [];
  // A real Writable, as the process's stderr is (pino-pretty pipes into it).
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const logger = createPinoLogger({ ...options, destination });
  return { logger, lines, json: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('log lines', () => {
  it('one JSON line per event: level, time, msg, conversation_id; secrets always and content by default replaced', () => {
    const { logger, json } = memoryLogger();
    logger.warn('something happened', {
      cid: 'c-123', code: 'X_CODE', token: 'tok-SECRET', text: 'my private words',
      nested: { a2uiToken: 'a2ui-SECRET', Authorization: 'Bearer hdr-SECRET', values: { name: 'Aria' } },
      error: 'upstream said: Authorization: Bearer err-SECRET failed',
    });
    logger.info('plain');
    const [first, second] = json();
    expect(first).toMatchObject({ level: 'warn', msg: 'something happened', conversation_id: 'c-123', code: 'X_CODE', token: '[redacted]', text: '[redacted]' });
    expect(first!.nested).toEqual({ a2uiToken: '[redacted]', Authorization: '[redacted]', values: '[redacted]' });
    expect(first!.error).toBe('upstream said: Authorization: Bearer [redacted] failed');
    expect(typeof first!.time).toBe('string');
    expect(first).not.toHaveProperty('trace_id');
    expect(second).toMatchObject({ level: 'info', msg: 'plain' });
    expect(JSON.stringify(json())).not.toMatch(/SECRET|private words|Aria/);
  });

  it('SURFACER_LOG_CONTENT=1 keeps what people wrote, never the secrets', () => {
    expect(scrubFields({ text: 'hello', prompt: 'p', cookie: 'c' }, true)).toEqual({ text: 'hello', prompt: 'p', cookie: '[redacted]' });
    expect(logSettingsFromEnv({ SURFACER_LOG_CONTENT: '1' }, false)).toEqual({ format: 'json', level: 'info', logContent: true });
  });

  it('settings: pretty on a terminal, JSON on a pipe, either when asked; bad values are refused', () => {
    expect(logSettingsFromEnv({}, true)).toMatchObject({ format: 'pretty' });
    expect(logSettingsFromEnv({}, false)).toMatchObject({ format: 'json' });
    expect(logSettingsFromEnv({ SURFACER_LOG_FORMAT: 'json' }, true)).toMatchObject({ format: 'json' });
    expect(logSettingsFromEnv({ SURFACER_LOG_FORMAT: 'pretty', SURFACER_LOG_LEVEL: 'warn' }, false)).toMatchObject({ format: 'pretty', level: 'warn' });
    expect(logSettingsFromEnv({ SURFACER_LOG_FORMAT: 'xml' }, false)).toHaveProperty('error');
    expect(logSettingsFromEnv({ SURFACER_LOG_LEVEL: 'loud' }, false)).toHaveProperty('error');
  });

  it("an error handed over as it is: its name, canonical code and frames; its message (which may quote the model) only with content logging", () => {
    const refusal = new PlannerError(makeError('LLM_RESPONSE_REFUSED', 'Zanzibar-refusal: I will not do that.'));
    const unparseable = ((): Error => { try { JSON.parse('Zanzibar! Here is your card.'); } catch (error) { return error as Error; } throw new Error('parsed'); })();
    const { logger, json } = memoryLogger();
    logger.error('planner failed', { cid: 'c-1', error: refusal });
    logger.error('reply unreadable', { cid: 'c-1', error: unparseable });
    const [first, second] = json();
    expect(first!.error).toEqual({ name: 'Error', code: 'LLM_RESPONSE_REFUSED', stack: expect.stringMatching(/^at /) });
    expect(second!.error).toEqual({ name: 'SyntaxError', stack: expect.stringMatching(/^at /) });
    expect(String((second!.error as { stack: string }).stack).split('\n').every((line) => line.startsWith('at '))).toBe(true);
    expect(JSON.stringify(json())).not.toContain('Zanzibar');

    const withContent = memoryLogger({ logContent: true });
    withContent.logger.error('planner failed', { error: refusal });
    expect(withContent.json()[0]!.error).toMatchObject({ name: 'Error', code: 'LLM_RESPONSE_REFUSED', message: expect.stringContaining('Zanzibar-refusal') });
  });

  it("a canonical error's technical_detail is content (it quotes what was refused); its code is not", () => {
    const error = makeError('LLM_RESPONSE_REFUSED', 'Zanzibar-refusal: I will not do that.');
    expect(scrubFields({ error }, false)).toEqual({ error: { ...error, technical_detail: '[redacted]' } });
    expect(scrubFields({ error }, true)).toEqual({ error });
  });

  it('pretty: readable lines, still without the secrets', () => {
    const { logger, lines } = memoryLogger({ format: 'pretty' });
    logger.error('append failed', { cid: 'c-9', token: 'tok-SECRET' });
    const text = lines.join('\n');
    expect(text).toMatch(/ERROR.*append failed/);
    expect(text).toContain('conversation_id: "c-9"');
    expect(text).not.toContain('tok-SECRET');
    expect(() => JSON.parse(lines[0]!)).toThrow();
  });
});

describe('a request over HTTP', () => {
  let server: RunningServer;
  const captured = memoryLogger();
  const SESSION_SECRET = 'session-SECRET-0123456789abcdef';
  const API_TOKEN = 'api-token-SECRET-0123456789';

  beforeAll(async () => {
    // The turn's append fails (a disk error): the service logs it, inside the request.
    const memory = createMemoryStore();
    const failing: ConversationStore = {
      writers: memory.writers,
      append: (cid, entry, version) => (entry.type === 'turn' ? Promise.reject(new Error('disk full')) : memory.append(cid, entry, version)),
      read: (cid, after) => memory.read(cid, after),
      countOwnedBy: (owner) => memory.countOwnedBy(owner),
      close: () => memory.close(),
    };
    const surfacer = createSurfacer({
      app: createDemoApp(), store: failing, sessionSecret: SESSION_SECRET, env: { SURFACER_API_TOKENS: API_TOKEN }, logger: captured.logger,
    });
    server = await surfacer.listen({ port: 0 });
  });
  afterAll(async () => { await server.close(1000); });

  it("the request's log line carries its trace and span ids and the conversation id; no secret, cookie or the person's words", async () => {
    const client = new HttpClient(server.url);
    const c = await openConversation(client);
    const words = 'my very private diary entry';
    const response = await sendMessage(client, c, words);
    expect(response.status).toBe(503);
    const line = captured.json().find((l) => l.msg === 'conversation log append failed');
    expect(line).toMatchObject({ level: 'error', conversation_id: c.cid, error: 'Error: disk full' });
    // The product's own SERVER span of that request (src/telemetry/http-span.ts), and the span
    // active when the line was written: one of that request's trace.
    const request = spans.spans().find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /c/:cid/messages')!;
    expect(request).toBeDefined();
    expect(line!.trace_id).toBe(request.spanContext().traceId);
    const inTrace = spans.spans().filter((s) => s.spanContext().traceId === line!.trace_id).map((s) => s.spanContext().spanId);
    expect(inTrace).toContain(line!.span_id);
    const all = captured.lines.join('\n');
    for (const secret of [SESSION_SECRET, API_TOKEN, words, c.csrf, ...client.cookies.values()]) expect(all).not.toContain(secret);
  });
});

describe('a request failing on a corrupt conversation log', () => {
  const files = jsonlTestFiles('surfacer-log-corrupt-');
  const SESSION_SECRET = 'session-secret-for-the-corrupt-log-test';

  it("the 'request failed' line says which error and where, not the log line the parser quoted", async () => {
    const dir = files.tempDir();
    const first = await createSurfacer({ app: createDemoApp(), store: files.jsonlStore({ dir, fsync: false }), sessionSecret: SESSION_SECRET }).listen({ port: 0 });
    const client = new HttpClient(first.url);
    const c = await openConversation(client);
    await first.close(1000);
    // A line that is not JSON, holding what the person typed: JSON.parse quotes its start.
    appendFileSync(join(dir, `${c.cid}.jsonl`), 'Zanzibar is my private note\n');

    const captured = memoryLogger();
    const second = await createSurfacer({ app: createDemoApp(), store: files.jsonlStore({ dir, fsync: false }), sessionSecret: SESSION_SECRET, logger: captured.logger }).listen({ port: 0 });
    try {
      const again = new HttpClient(second.url);
      for (const [name, value] of client.cookies) again.cookies.set(name, value);
      const response = await again.get(c.base);
      expect(response.status).toBe(500);
      const line = captured.json().find((l) => l.msg === 'request failed');
      expect(line).toMatchObject({ level: 'error', path: c.base, error: { name: 'Error', stack: expect.stringMatching(/^at /) } });
      expect(captured.lines.join('\n')).not.toContain('Zanzibar');
    } finally {
      await second.close(1000);
    }
  });
});

describe('a conversation log that does not replay exactly', () => {
  it('the warning names each entry, its type and why; a fold step\'s own words only with content logging', async () => {
    const SESSION_SECRET = 'session-secret-for-the-replay-test';
    const store = createMemoryStore();
    const first = await createSurfacer({ app: createDemoApp(), store, sessionSecret: SESSION_SECRET }).listen({ port: 0 });
    const client = new HttpClient(first.url);
    const c = await openConversation(client);
    expect((await sendMessage(client, c, 'create a character card')).status).toBe(200);
    await first.close(1000);
    // The turn's logged text changed afterwards: its entry no longer folds to the IR it recorded.
    const tampered = createMemoryStore();
    for (const [i, entry] of (await store.read(c.cid))!.entries()) {
      await tampered.append(c.cid, entry.type === 'turn' ? { ...entry, text: 'Zanzibar wrote something else' } : entry, i);
    }
    const captured = memoryLogger();
    const second = await createSurfacer({ app: createDemoApp(), store: tampered, sessionSecret: SESSION_SECRET, logger: captured.logger }).listen({ port: 0 });
    try {
      const again = new HttpClient(second.url);
      for (const [name, value] of client.cookies) again.cookies.set(name, value);
      expect((await again.get(c.base)).status).toBe(200);
      const line = captured.json().find((l) => l.msg === 'conversation log did not replay exactly');
      expect(line).toMatchObject({ conversation_id: c.cid, divergences: [{ entry: 2, type: 'turn', reason: 'ir_hash_differs' }] });
      expect(captured.lines.join('\n')).not.toContain('Zanzibar');
    } finally {
      await second.close(1000);
    }
  });
});
