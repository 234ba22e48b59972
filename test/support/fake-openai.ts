import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { checkOpenAiStrictSchema } from './openai-strict-subset.ts';
import { writeStream, type FakeStream } from './fake-stream.ts';

/**
 * A fake OpenAI-compatible server: `POST /v1/chat/completions`, non-streamed, faithful to the
 * documented wire format (chat.completion objects with id, created, model, choices[0].message
 * {role, content, refusal, tool_calls}, finish_reason, usage; error bodies
 * `{"error": {"message", "type", "param", "code"}}`; Retry-After headers). Like the real API it
 * refuses a strict `json_schema` outside OpenAI's subset and parameters a model does not take,
 * and checks tool messages as the API does: a `tool` message must answer a `tool_calls` id of the
 * assistant message before it, every call of such a message must be answered, and
 * `parallel_tool_calls` is only allowed with `tools` (each a 400 invalid_request_error). Every
 * request is recorded, with whether the client went away before the answer. With `stream: true`
 * an answer is SSE as the API sends it: `data: {chat.completion.chunk}` frames (the first with
 * the role, then content deltas, then one with finish_reason, then, with
 * `stream_options.include_usage`, a usage chunk with empty choices), then `data: [DONE]`; an
 * error mid-stream is a `data: {"error": {...}}` frame.
 */
export type FakeOpenAiBehaviour =
  | { kind: 'reply'; content: string | null; finishReason?: string; refusal?: string; toolCalls?: unknown[] }
  | { kind: 'status'; status: number; error: { message: string; type?: string; param?: string | null; code?: string | number | null }; headers?: Record<string, string> }
  | { kind: 'slow'; delayMs: number; then: FakeOpenAiBehaviour }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'malformed' }
  /** A 200 said to be JSON whose body is this text (a proxy passing the model's words through). */
  | { kind: 'raw'; body: string }
  | FakeStream;

export interface FakeOpenAiOptions {
  /** Answers in order; the last one repeats. A function sees the request body. */
  script: FakeOpenAiBehaviour[] | ((body: Record<string, unknown>, index: number) => FakeOpenAiBehaviour);
  apiKey?: string;
  /** Top-level request keys this "model" refuses with OpenAI's 400 unsupported_parameter. */
  unsupported?: string[];
}

export interface RecordedRequest {
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** The client closed the connection before an answer was written. */
  aborted: boolean;
}

const CREATED = 1_767_225_600; // 2026-01-01, fixed: the fake is deterministic

function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function sendError(res: ServerResponse, status: number, error: ApiError, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${status}`, ...headers });
  res.end(JSON.stringify({ error: { message: error.message, type: error.type ?? 'invalid_request_error', param: error.param ?? null, code: error.code ?? null } }));
}

export async function startFakeOpenAi(options: FakeOpenAiOptions) {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let count = 0;
  const next = (body: Record<string, unknown>): FakeOpenAiBehaviour => {
    const index = count++;
    if (typeof options.script === 'function') return options.script(body, index);
    return options.script[Math.min(index, options.script.length - 1)]!;
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      sendError(res, 404, { message: `Unknown request URL: ${req.method} ${req.url}.`, code: 'unknown_url' });
      return;
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(res, 401, { message: 'Incorrect API key provided.', code: 'invalid_api_key' });
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      sendError(res, 400, { message: 'We could not parse the JSON body of your request.' });
      return;
    }
    const recorded: RecordedRequest = { body, headers: req.headers, aborted: false };
    requests.push(recorded);
    res.on('close', () => { if (!res.writableFinished) recorded.aborted = true; });
    const refused = (options.unsupported ?? []).find((key) => Object.hasOwn(body, key));
    if (refused !== undefined) {
      sendError(res, 400, { message: `Unsupported parameter: '${refused}' is not supported with this model.`, param: refused, code: 'unsupported_parameter' });
      return;
    }
    const toolProblem = checkToolMessages(body);
    if (toolProblem !== undefined) {
      sendError(res, 400, toolProblem);
      return;
    }
    const format = body.response_format as { type?: string; json_schema?: { name?: string; strict?: boolean; schema?: unknown } } | undefined;
    if (format?.type === 'json_schema' && format.json_schema?.strict === true) {
      const violations = checkOpenAiStrictSchema(format.json_schema.schema);
      if (violations.length > 0) {
        sendError(res, 400, { message: `Invalid schema for response_format '${format.json_schema.name}': ${violations[0]}`, param: 'response_format', code: 'invalid_json_schema' });
        return;
      }
    }
    const prompt = tokens(JSON.stringify(body.messages ?? []));
    const id = `chatcmpl-fake${requests.length}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}): string =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model: body.model, system_fingerprint: 'fp_fake',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;
    const streamEnd = (content: string, finish: string): string => {
      const completion = tokens(content);
      const usage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true
        ? `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model: body.model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })}\n\n`
        : '';
      return `${chunk({}, finish)}${usage}data: [DONE]\n\n`;
    };
    const stream = (s: FakeStream): Promise<void> => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': `req_${requests.length}` });
      res.write(chunk({ role: 'assistant', content: '' }, null));
      return writeStream(res, req, s, {
        frame: (piece) => chunk({ content: piece }, null), done: () => streamEnd(s.pieces.join(''), 'stop'),
        error: () => `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } })}\n\n`,
      }, timers);
    };
    const answer = (b: FakeOpenAiBehaviour): void => {
      if (res.destroyed) return;
      switch (b.kind) {
        case 'stream': if (body.stream === true) void stream(b); else answer({ kind: 'reply', content: b.pieces.join('') }); return;
        case 'reply': {
          if (body.stream === true && b.toolCalls === undefined && b.refusal === undefined) {
            res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': `req_${requests.length}` });
            res.write(chunk({ role: 'assistant', content: '' }, null));
            if (b.content) res.write(chunk({ content: b.content }, null));
            res.end(streamEnd(b.content ?? '', b.finishReason ?? 'stop'));
            return;
          }
          const message: Record<string, unknown> = { role: 'assistant', content: b.content, refusal: b.refusal ?? null };
          if (b.toolCalls) message.tool_calls = b.toolCalls;
          const completion = tokens(b.content ?? JSON.stringify(b.toolCalls ?? []));
          res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${requests.length}` });
          res.end(JSON.stringify({
            id: `chatcmpl-fake${requests.length}`, object: 'chat.completion', created: CREATED, model: body.model,
            system_fingerprint: 'fp_fake',
            choices: [{ index: 0, message, logprobs: null, finish_reason: b.finishReason ?? (b.toolCalls ? 'tool_calls' : 'stop') }],
            usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
          }));
          return;
        }
        case 'status': sendError(res, b.status, b.error, b.headers); return;
        case 'malformed': res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"id": "chatcmpl-x", "choices": ['); return;
        case 'raw': res.writeHead(200, { 'content-type': 'application/json' }); res.end(b.body); return;
        case 'reset': req.socket.destroy(); return;
        case 'hang': return;
        case 'slow': {
          const t = setTimeout(() => { timers.delete(t); answer(b.then); }, b.delayMs);
          timers.add(t);
        }
      }
    };
    answer(next(body));
  });
  server.on('connection', (socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type ApiError = { message: string; type?: string; param?: string | null; code?: string | number | null };

/** The checks the API runs on tool calling (error texts as it sends them). */
function checkToolMessages(body: Record<string, unknown>): ApiError | undefined {
  if (Object.hasOwn(body, 'parallel_tool_calls') && !Array.isArray(body.tools)) {
    return { message: "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.", param: 'parallel_tool_calls' };
  }
  const messages = Array.isArray(body.messages) ? body.messages as Array<Record<string, unknown>> : [];
  let open: Set<string> | undefined;
  let openAt = -1;
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : '';
      if (open === undefined || !open.has(id)) {
        return { message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: `messages.[${i}].role` };
      }
      open.delete(id);
      continue;
    }
    if (open !== undefined && open.size > 0) {
      return {
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
        param: `messages.[${openAt}].role`,
      };
    }
    open = undefined;
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      open = new Set((m.tool_calls as Array<{ id?: unknown }>).map((c) => String(c.id)));
      openAt = i;
    }
  }
  if (open !== undefined && open.size > 0) {
    return { message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`, param: `messages.[${openAt}].role` };
  }
  return undefined;
}
