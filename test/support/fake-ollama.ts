import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeOllamaBehaviour =
  | { kind: 'reply'; content: string }
  | { kind: 'malformed' }
  | { kind: 'status'; status: number; error: string }
  | { kind: 'slow'; delayMs: number; content: string };

/** A fake Ollama that speaks just enough of `POST /api/chat`; it records every request body. */
export async function startFakeOllama(behave: () => FakeOllamaBehaviour) {
  const requests: Array<Record<string, unknown>> = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/api/chat') { res.writeHead(404).end('{"error":"not found"}'); return; }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    requests.push(body);
    const b = behave();
    const reply = (content: string) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        model: body.model, created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content },
        done: true, done_reason: 'stop', total_duration: 1, eval_count: 3,
      }));
    };
    if (b.kind === 'reply') reply(b.content);
    else if (b.kind === 'malformed') { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"message": {"content": '); }
    else if (b.kind === 'status') { res.writeHead(b.status, { 'content-type': 'application/json' }); res.end(JSON.stringify({ error: b.error })); }
    else {
      const t = setTimeout(() => { timers.delete(t); if (!res.destroyed) reply(b.content); }, b.delayMs);
      timers.add(t);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
