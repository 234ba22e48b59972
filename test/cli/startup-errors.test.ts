import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/serve.ts';
import { memoryIo } from '../support/cli-io.ts';

/*
 * Issue 33, item 2: start-up errors a person can act on. Each refusal names what the person set
 * (the flag, or the variable when that is what they set) and what it may be, on stderr, exit 2,
 * without a stack; an agent door open without tokens says so in the listening line and refuses a
 * token it would otherwise have let pass.
 */
const dirs: string[] = [];
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });

const SECRET = { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests' };

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'surfacer-startup-'));
  dirs.push(dir);
  return dir;
}

async function refused(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const memory = memoryIo({ env: { ...SECRET, ...env } });
  const exit = await run(['--data', dataDir(), ...args], memory);
  expect(exit, memory.err()).toBe(2);
  expect(memory.out()).not.toMatch(/listening on/);
  // Words, not a Node stack.
  expect(memory.err()).not.toMatch(/\n\s+at /);
  return memory.err();
}

describe('surfacer serve: start-up errors', () => {
  it('a port in use names the address and how to pick another', async () => {
    const taken: Server = createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)));
    try {
      const err = await refused(['--port', String(port)]);
      expect(err).toContain(`127.0.0.1:${port} is already in use`);
      expect(err).toContain('--port N or PORT=N (0 picks a free one)');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a bad value names the variable the person set, or the flag, and what it may be', async () => {
    expect(await refused(['--port', '0'], { SURFACER_PLANNER: 'nonsense' })).toContain('SURFACER_PLANNER is "nonsense"; it must be one of offline, ollama, openai, replay');
    expect(await refused(['--port', '0', '--planner', 'gpt'])).toContain('--planner is "gpt"; it must be one of');
    expect(await refused([], { PORT: 'eighty' })).toContain('PORT is "eighty"; it must be a whole number from 0 to 65535');
    expect(await refused(['--port', '0'], { SURFACER_REDIS_URL: 'http://x' })).toContain('SURFACER_REDIS_URL is "http://x"');
    expect(await refused(['--port', '0'], { SURFACER_PLANNER: 'ollama', SURFACER_STREAM: 'maybe' })).toContain('SURFACER_STREAM is "maybe"');
    expect(await refused(['--port', '0'], { SURFACER_AGENTS: 'ag-ui,soap' })).toContain('SURFACER_AGENTS is "ag-ui,soap"; it must list ag-ui, a2a and mcp');
  });

  it('refuses a wider --host without tokens, and says how to turn the agent endpoints off', async () => {
    const err = await refused(['--port', '0', '--host', '0.0.0.0']);
    expect(err).toMatch(/agent endpoints \(AG-UI, A2A, MCP\) need SURFACER_API_TOKENS/);
    expect(err).toContain('SURFACER_AGENTS=none');
  });
});

describe('surfacer serve: agent endpoints without tokens', () => {
  it('says so when it starts, answers a caller without a token, and refuses one that sends a token', async () => {
    const memory = memoryIo({ env: SECRET });
    const stop = new AbortController();
    const exit = run(['--port', '0', '--data', dataDir()], memory, stop.signal);
    for (let i = 0; i < 200 && !/listening on/.test(memory.out()); i += 1) await new Promise((r) => setTimeout(r, 20));
    try {
      expect(memory.out()).toContain('agent endpoints open to this machine without tokens');
      const url = /listening on (http:\/\/\S+)/.exec(memory.out())![1]!;
      const card = (token?: string) => fetch(`${url}/.well-known/agent-card.json`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
      const agui = (token?: string) => fetch(`${url}/ag-ui`, {
        method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) }, body: '{}',
      });
      // No token: let in (the body is then refused for what it is, not for who sent it).
      expect((await agui()).status).not.toBe(401);
      const withToken = await agui('anything-goes');
      expect(withToken.status).toBe(401);
      expect(await withToken.json()).toMatchObject({ code: 'HTTP_UNAUTHORIZED', technical_detail: expect.stringContaining('no tokens are configured') });
      expect((await card()).status).toBe(200);
    } finally {
      stop.abort();
      expect(await exit).toBe(0);
    }
  });

  it('SURFACER_AGENTS=none serves no agent endpoint', async () => {
    const memory = memoryIo({ env: { ...SECRET, SURFACER_AGENTS: 'none' } });
    const stop = new AbortController();
    const exit = run(['--port', '0', '--data', dataDir()], memory, stop.signal);
    for (let i = 0; i < 200 && !/listening on/.test(memory.out()); i += 1) await new Promise((r) => setTimeout(r, 20));
    try {
      expect(memory.out()).not.toContain('without tokens');
      const url = /listening on (http:\/\/\S+)/.exec(memory.out())![1]!;
      for (const path of ['/ag-ui', '/a2a', '/mcp']) {
        const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(res.status, path).toBe(404);
      }
    } finally {
      stop.abort();
      expect(await exit).toBe(0);
    }
  });
});
