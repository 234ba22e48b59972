/**
 * The server the agent-door benches (bench/a2a.ts, bench/agui.ts) measure, in the bench's own
 * process or forked into a process of its own, so a client's CPU (the official SDK's client,
 * JSON parsing, ClientSim) is not spent on the server's event loop, as with every real client.
 * The native side's bookkeeping (a conversation's A2UI token, the hub's checkpoint) is asked
 * over IPC when forked; benches keep those questions out of their clocks.
 * Does nothing on import unless started with SURFACER_BENCH_AGENT_SERVER=1 (bench/run.ts imports
 * only files without a leading `_`).
 */
import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createDemoApp } from '../src/app/index.ts';
import { silentLogger } from '../src/conversation/index.ts';
import { createSurfacer, type Surfacer } from '../src/server/index.ts';

export const AGENT_BENCH_TOKEN = 'bench-agent-token-0123456789';

export interface AgentBenchServer {
  readonly url: string;
  /** Where the server runs: the bench's process, or its own. */
  readonly where: 'in-process' | 'own process';
  a2uiToken(cid: string): Promise<string>;
  /** The v0.9 hub's checkpoint id for `cid`: the last event a follower of its stream must reach. */
  checkpoint(cid: string): Promise<string>;
  close(): Promise<void>;
}

type Question = { id: number; ask: 'token' | 'checkpoint'; cid: string };

function surfacerForBench(): Surfacer {
  return createSurfacer({
    app: createDemoApp(), logger: silentLogger, sessionSecret: 'bench-agent-secret-0123456789', env: { SURFACER_API_TOKENS: AGENT_BENCH_TOKEN },
    hostLimits: { conversationCreatesPerMinute: 1_000_000, maxConversationsPerSession: 1_000_000 },
    serviceLimits: { maxCachedConversations: 100_000 },
  });
}

async function answer(surfacer: Surfacer, q: Question): Promise<string> {
  if (q.ask === 'token') return (await surfacer.conversations.get(q.cid))!.a2uiToken;
  return surfacer.a2ui.wire('0.9').hub.checkpoint(q.cid).id;
}

export async function startAgentServer(where: AgentBenchServer['where']): Promise<AgentBenchServer> {
  if (where === 'in-process') {
    const surfacer = surfacerForBench();
    const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
    return {
      url: server.url, where,
      a2uiToken: (cid) => answer(surfacer, { id: 0, ask: 'token', cid }),
      checkpoint: (cid) => answer(surfacer, { id: 0, ask: 'checkpoint', cid }),
      close: () => server.close(1000),
    };
  }
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx', '--import', pathToFileURL(fileURLToPath(new URL('./_exit-with-parent.mjs', import.meta.url))).href],
    env: { ...process.env, SURFACER_BENCH_AGENT_SERVER: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (value: string) => void>();
  let next = 0;
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`agent bench server exited (${code})`)));
    child.on('message', (m: { url?: string; id?: number; value?: string }) => {
      if (m.url !== undefined) resolve(m.url);
      else if (m.id !== undefined) { pending.get(m.id)?.(m.value!); pending.delete(m.id); }
    });
  });
  const ask = (q: Omit<Question, 'id'>): Promise<string> => new Promise((resolve) => {
    next += 1;
    pending.set(next, resolve);
    child.send({ ...q, id: next });
  });
  return {
    url, where,
    a2uiToken: (cid) => ask({ ask: 'token', cid }),
    checkpoint: (cid) => ask({ ask: 'checkpoint', cid }),
    close: () => new Promise<void>((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.disconnect();
    }),
  };
}

async function serveForParent(): Promise<void> {
  const surfacer = surfacerForBench();
  const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
  process.on('message', (q: Question) => {
    void answer(surfacer, q).then((value) => process.send!({ id: q.id, value }));
  });
  process.send!({ url: server.url });
}

// No top-level await: the benches import this module too.
if (process.env.SURFACER_BENCH_AGENT_SERVER === '1') void serveForParent();
