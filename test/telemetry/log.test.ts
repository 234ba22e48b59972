import { Writable } from 'node:stream';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createMemoryStore, type ConversationStore } from '../../src/conversation/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer } from '../../src/server/index.ts';
import { createPinoLogger, logSettingsFromEnv, scrubFields } from '../../src/telemetry/log.ts';
import { openConversation, sendMessage } from '../host-html/support/page.ts';
import { HttpClient } from '../support/http-client.ts';
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
