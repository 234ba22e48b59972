import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { writeStream, type FakeStream } from './fake-stream.ts';

/**
 * A fake Ollama that speaks `POST /api/chat` as the Ollama API documents it: for `stream: false`
 * one JSON object `{model, created_at, message: {role, content, tool_calls?}, done: true,
 * done_reason, total_duration, prompt_eval_count, eval_count, …}`; a tool call is
 * `{function: {name, arguments: {…}}}` (arguments an object, no id); errors as `{"error": "..."}`
 * with the HTTP status. It records every request body, and whether the client went away before
 * the answer. With `stream: true` an answer is NDJSON as Ollama sends it: one
 * `{model, created_at, message: {role, content}, done: false}` line per piece, then a
 * `done: true` line with done_reason and the counts; an error mid-stream is an `{"error"}` line.
 */
export interface FakeOllamaToolCall { function: { name: string; arguments: Record<string, unknown> } }

export type FakeOllamaBehaviour =
  | { kind: 'reply'; content: string; doneReason?: string; toolCalls?: FakeOllamaToolCall[] }
  | { kind: 'malformed' }
  | { kind: 'status'; status: number; error: string; headers?: Record<string, string> }
  | { kind: 'slow'; delayMs: number; content: string }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | FakeStream;

export interface FakeOllama {
  host: string;
  requests: Array<Record<string, unknown>>;
  /** Parallel to `requests`: the client closed the connection before an answer was written. */
  aborted: boolean[];
  /** `behave` may be a function of the request body (e.g. answer a tool call only when tools were sent). */
  close(): Promise<void>;
}

/** `behave` is asked once per request; pass an array to script answers in order (the last repeats). */
export async function startFakeOllama(behave: ((body: Record<string, unknown>) => FakeOllamaBehaviour) | FakeOllamaBehaviour[]): Promise<FakeOllama> {
  const requests: Array<Record<string, unknown>> = [];
  const aborted: boolean[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const next = (body: Record<string, unknown>): FakeOllamaBehaviour => (typeof behave === 'function' ? behave(body) : behave[Math.min(requests.length - 1, behave.length - 1)]!);
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/api/chat') { res.writeHead(404).end('{"error":"not found"}'); return; }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    requests.push(body);
    const index = aborted.push(false) - 1;
    res.on('close', () => { if (!res.writableFinished) aborted[index] = true; });
    const b = next(body);
    const line = (content: string): string => `${JSON.stringify({ model: body.model, created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content }, done: false })}\n`;
    const doneLine = (content: string, doneReason = 'stop'): string => `${JSON.stringify({
      model: body.model, created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: '' },
      done: true, done_reason: doneReason, total_duration: 1, load_duration: 1,
      prompt_eval_count: Math.ceil(JSON.stringify(body.messages ?? []).length / 4), prompt_eval_duration: 1,
      eval_count: Math.max(1, Math.ceil(content.length / 4)), eval_duration: 1,
    })}\n`;
    const stream = (s: FakeStream): Promise<void> => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      return writeStream(res, req, s, { frame: line, done: () => doneLine(s.pieces.join('')), error: () => `${JSON.stringify({ error: 'model runner stopped' })}\n` }, timers);
    };
    const reply = (content: string, doneReason = 'stop', toolCalls?: FakeOllamaToolCall[]) => {
      if (body.stream === true && toolCalls === undefined) {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.end(`${content === '' ? '' : line(content)}${doneLine(content, doneReason)}`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        model: body.model, created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        done: true, done_reason: doneReason, total_duration: 1, load_duration: 1,
        prompt_eval_count: Math.ceil(JSON.stringify(body.messages ?? []).length / 4), prompt_eval_duration: 1,
        eval_count: Math.max(1, Math.ceil(content.length / 4)), eval_duration: 1,
      }));
    };
    switch (b.kind) {
      case 'reply': reply(b.content, b.doneReason, b.toolCalls); break;
      case 'stream': if (body.stream === true) await stream(b); else reply(b.pieces.join('')); break;
      case 'malformed': res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"message": {"content": '); break;
      case 'status': res.writeHead(b.status, { 'content-type': 'application/json', ...b.headers }); res.end(JSON.stringify({ error: b.error })); break;
      case 'reset': req.socket.destroy(); break;
      case 'hang': break;
      case 'slow': {
        const t = setTimeout(() => { timers.delete(t); if (!res.destroyed) reply(b.content); }, b.delayMs);
        timers.add(t);
      }
    }
  });
  server.on('connection', (socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `http://127.0.0.1:${port}`,
    requests,
    aborted,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
