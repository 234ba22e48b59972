import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Client } from '@modelcontextprotocol/client';
import { createDemoApp } from '../src/app/index.ts';
import { createClientSimV09 } from '../src/clientsim/index.ts';
import { silentLogger } from '../src/conversation/index.ts';
import { VIEW_ACTION_TOOL } from '../src/host-mcp/index.ts';
import { bearerTokenAuthenticator, ownerOfPrincipal } from '../src/hosting/index.ts';
import { createSurfacer } from '../src/server/index.ts';
import { call, mcpClient, type Era, type ToolResult } from '../test/host-mcp/support.ts';
import { HttpClient } from '../test/support/http-client.ts';
import { openSse, type SseConnection } from '../test/support/sse-client.ts';

/**
 * The MCP door (issue 30) vs the native A2UI v0.9 path, the same work on both, for the two
 * protocol eras the official client speaks (goal: MCP ≤ 1.3× native).
 *
 * - Directive ("create a character card" on an empty conversation): native = the htmx message
 *   POST timed until the conversation's open v0.9 stream (`GET /a2ui/c/{cid}/stream?v=0.9`) shows
 *   the card; MCP = one `tools/call` of `show_form` `{conversationId, payload: {template:
 *   'character_card'}}` by the official @modelcontextprotocol/client over Streamable HTTP, timed
 *   until its result (structuredContent holds the card's A2UI) has arrived.
 * - Action (Save on the card with a unique name, the click ClientSim v0.9 builds from the
 *   current snapshot): native = `POST /a2ui/c/{cid}/events` timed until the open stream shows
 *   the name; MCP = one `surfacer_view_action` call (what the MCP App view sends), timed until
 *   its result has arrived.
 *
 * MCP in both eras: 2026-07-28 (`versionNegotiation: {mode: {pin}}`: no handshake, no session)
 * and 2025-11-25 (the client's default handshake, the SDK's stateless fallback); one client
 * each, connected before timing. One process (server and clients share it alike), offline
 * planner, in-memory log, bearer token; each round runs the three paths in a rotating order.
 * Untimed: creating conversations, opening streams, building the action from the snapshot.
 * BENCH_MCP_ROUNDS (default 200) samples per path and kind, after 20 warm-up rounds.
 */
const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 200);
const WARMUP = 20;
const TOKEN = 'bench-mcp-token-0123456789';
const TURN = 'create a character card';
const CARD_TITLE = 'Character card';
const SAVE = 'main.a0-form_submit.Button';

type Path = 'native' | Era;
const PATHS: readonly Path[] = ['native', 'modern', 'legacy'];
const LABEL: Record<Era, string> = { modern: '2026-07-28', legacy: '2025-11-25' };

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Resolves once an event of `conn` from index `from` on holds `marker`. */
async function shows(conn: SseConnection, from: number, marker: string): Promise<void> {
  for (let i = from; ; ) {
    for (; i < conn.events.length; i += 1) if (conn.events[i]!.data.includes(marker)) return;
    await conn.next(10_000);
  }
}

/** A tool call that must succeed and whose A2UI must hold `marker`; its time from sending to the result. */
async function timedCall(client: Client, tool: string, args: Record<string, unknown>, marker: string): Promise<number> {
  const t0 = performance.now();
  const result: ToolResult = await call(client, tool, args);
  const ms = performance.now() - t0;
  if (result.isError === true || !JSON.stringify(result.structuredContent?.a2ui ?? null).includes(marker)) {
    throw new Error(`${tool} answered without ${marker}: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return ms;
}

export async function run(): Promise<void> {
  const surfacer = createSurfacer({
    app: createDemoApp(), logger: silentLogger, sessionSecret: 'bench-mcp-session-secret-0123', env: { SURFACER_API_TOKENS: TOKEN },
    hostLimits: { conversationCreatesPerMinute: 1_000_000, maxConversationsPerSession: 1_000_000 },
    serviceLimits: { maxCachedConversations: 100_000 },
  });
  const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
  const turns: Record<Path, number[]> = { native: [], modern: [], legacy: [] };
  const actions: Record<Path, number[]> = { native: [], modern: [], legacy: [] };
  try {
    const base = server.url;
    const clients: Record<Era, Client> = { modern: await mcpClient(base, TOKEN, { era: 'modern', name: 'bench' }), legacy: await mcpClient(base, TOKEN, { era: 'legacy', name: 'bench' }) };
    // The MCP principal's conversations are made for its owner directly (an empty one per directive sample).
    const principal = await bearerTokenAuthenticator([TOKEN])(new Request(base, { headers: { Authorization: `Bearer ${TOKEN}` } }));
    const owner = ownerOfPrincipal(principal!);
    const tokenOf = async (cid: string): Promise<string> => (await surfacer.conversations.get(cid))!.a2uiToken;

    // One browser session for the native side (GET / makes a conversation per call).
    const browser = new HttpClient(base);
    interface Native { cid: string; path: string; csrf: string; token: string; stream: SseConnection }
    async function nativeConversation(): Promise<Native> {
      const path = (await browser.get('/')).headers.get('location')!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await browser.get(path)).text())![1]!;
      const cid = path.slice(3);
      const token = await tokenOf(cid);
      return { cid, path, csrf, token, stream: await openSse(`${base}/a2ui/c/${cid}/stream?v=0.9`, { headers: { Authorization: `Bearer ${token}` } }) };
    }
    async function nativeTurn(c: Native): Promise<number> {
      const from = c.stream.events.length;
      const t0 = performance.now();
      const posted = await browser.post(`${c.path}/messages`, { _csrf: c.csrf, text: TURN }, { as: 'json' });
      await posted.arrayBuffer();
      if (posted.status !== 200) throw new Error(`native turn answered ${posted.status}`);
      await shows(c.stream, from, CARD_TITLE);
      return performance.now() - t0;
    }
    async function mcpTurn(era: Era): Promise<{ ms: number; cid: string }> {
      const cid = (await surfacer.conversations.create(owner)).id;
      const ms = await timedCall(clients[era], 'show_form', { conversationId: cid, payload: { template: 'character_card' } }, CARD_TITLE);
      return { ms, cid };
    }
    /** The Save click on the card as it is now, with `name` typed in (ClientSim v0.9 over the v0.9 snapshot). */
    async function saveClick(cid: string, name: string): Promise<unknown> {
      const snapshot = await fetch(`${base}/a2ui/c/${cid}/snapshot.jsonl?v=0.9`, { headers: { Authorization: `Bearer ${await tokenOf(cid)}` } });
      const sim = createClientSimV09();
      sim.applyAll((await snapshot.text()).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown));
      const surface = [...sim.state().surfaces.keys()].find((id) => id.startsWith('main--'))!;
      const typed = [...sim.input(surface, 'main.f-name.TextField', name), ...sim.input(surface, 'main.f-personality.TextField', 'Brave.')];
      const click = sim.click(surface, SAVE);
      if (typed.length > 0 || !click.ok) throw new Error(`Save on ${cid} failed: ${JSON.stringify(typed[0] ?? click)}`);
      return click.message;
    }

    const order = (round: number): Path[] => PATHS.map((_, k) => PATHS[(round + k) % PATHS.length]!);

    for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
      for (const path of order(round)) {
        let ms: number;
        if (path === 'native') {
          const c = await nativeConversation();
          ms = await nativeTurn(c);
          c.stream.close();
        } else {
          ms = (await mcpTurn(path)).ms;
        }
        if (round >= WARMUP) turns[path].push(ms);
      }
    }

    // One conversation a path with the card on screen, saved again and again with a new name.
    const native = await nativeConversation();
    await nativeTurn(native);
    const cards: Record<Era, string> = { modern: (await mcpTurn('modern')).cid, legacy: (await mcpTurn('legacy')).cid };
    for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
      for (const path of order(round)) {
        const name = `Bench${round}x${randomUUID().slice(0, 8)}`;
        let ms: number;
        if (path === 'native') {
          const body = JSON.stringify(await saveClick(native.cid, name));
          const from = native.stream.events.length;
          const t0 = performance.now();
          const posted = await fetch(`${base}/a2ui/c/${native.cid}/events`, {
            method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${native.token}`, 'Idempotency-Key': randomUUID() }, body,
          });
          await posted.arrayBuffer();
          if (posted.status !== 200) throw new Error(`native action answered ${posted.status}`);
          await shows(native.stream, from, name);
          ms = performance.now() - t0;
        } else {
          const message = await saveClick(cards[path], name);
          ms = await timedCall(clients[path], VIEW_ACTION_TOOL, { conversationId: cards[path], message, idempotencyKey: randomUUID() }, name);
        }
        if (round >= WARMUP) actions[path].push(ms);
      }
    }
    native.stream.close();
    await clients.modern.close();
    await clients.legacy.close();
  } finally {
    await server.close(1000);
  }

  const row = (work: string, era: Era, samples: Record<Path, number[]>): string => {
    const [n50, n99, m50, m99] = [quantile(samples.native, 0.5), quantile(samples.native, 0.99), quantile(samples[era], 0.5), quantile(samples[era], 0.99)];
    return `| ${work} | ${LABEL[era]} | ${n50.toFixed(2)} | ${n99.toFixed(2)} | ${m50.toFixed(2)} | ${m99.toFixed(2)} | ${(m50 / n50).toFixed(2)}× | ${(m99 / n99).toFixed(2)}× |`;
  };
  process.stdout.write([
    `MCP door vs native A2UI v0.9 (${ROUNDS} samples each after ${WARMUP} warm-up rounds, ms; offline planner, in-memory log, one process, node ${process.version})`,
    '',
    '| work | MCP protocol | native p50 | native p99 | MCP p50 | MCP p99 | p50 ratio | p99 ratio |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...(['modern', 'legacy'] as const).map((era) => row('directive (show_form character_card)', era, turns)),
    ...(['modern', 'legacy'] as const).map((era) => row('action (Save, surfacer_view_action)', era, actions)),
    '',
    'Goal: MCP ≤ 1.3× native.',
    '',
  ].join('\n'));
}
