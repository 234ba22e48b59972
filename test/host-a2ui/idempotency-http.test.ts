import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import { createClientSim, type UserActionMessage } from '../../src/clientsim/index.ts';
import type { Logger } from '../../src/conversation/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { HttpClient } from '../support/http-client.ts';

// POST /a2ui/c/{cid}/events with an Idempotency-Key, over real HTTP against the product as
// `npm start` composes it (JSONL log on disk), restarted on the same data directory.
const dir = mkdtempSync(join(tmpdir(), 'surfacer-idem-a2ui-'));
const errors: string[] = [];
const logger: Logger = { info() {}, warn() {}, error(message, fields) { errors.push(`${message} ${JSON.stringify(fields ?? {})}`); } };
let server: ServeHandle;

const serve = (): Promise<ServeHandle> => startServe({
  port: 0, hostname: '127.0.0.1', planner: 'offline', dataDir: dir, logger, fsync: false,
  env: { SURFACER_SESSION_SECRET: 'idem-session-secret-0123456789' }, a2ui: { heartbeatMs: 60_000 },
});

beforeAll(async () => { server = await serve(); });
afterAll(async () => {
  await server.close(1000);
  rmSync(dir, { recursive: true, force: true });
});

interface Opened { cid: string; token: string }

/** A conversation with the character card open, as its owner creates it in the htmx page. */
async function openCard(): Promise<Opened> {
  const client = new HttpClient(server.url);
  const base = (await client.get('/')).headers.get('location')!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await client.get(base)).text())![1]!;
  expect((await client.post(`${base}/messages`, { _csrf: csrf, text: 'create a character card' }, { as: 'json' })).status).toBe(200);
  const cid = base.slice(3);
  return { cid, token: (await server.conversations.get(cid))!.a2uiToken };
}

/** What a renderer sends after typing `values` into the card and pressing Save (from the snapshot). */
async function submitCard(c: Opened, values: Record<string, string>): Promise<UserActionMessage> {
  const snapshot = await fetch(`${server.url}/a2ui/c/${c.cid}/snapshot.jsonl`, { headers: { Authorization: `Bearer ${c.token}` } });
  const sim = createClientSim();
  sim.applyAll((await snapshot.text()).trimEnd().split('\n').map((line) => JSON.parse(line) as unknown));
  for (const [name, value] of Object.entries(values)) expect(sim.input('main--e0', `main.f-${name}.TextField`, value)).toEqual([]);
  const click = sim.click('main--e0', 'main.a0-form_submit.Button');
  if (!click.ok) throw new Error(click.violation.detail);
  return click.message;
}

async function post(c: Opened, body: unknown, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/a2ui/c/${c.cid}/events`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
  });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

const loggedActions = (cid: string): number =>
  readFileSync(join(dir, `${cid}.jsonl`), 'utf8').split('\n').filter((line) => line.includes('"type":"action"')).length;

async function mainRev(cid: string): Promise<number | undefined> {
  return findSurface((await server.conversations.get(cid))!.ir, 'main')?.rev;
}

function withName(message: UserActionMessage, name: string): UserActionMessage {
  return { userAction: { ...message.userAction, context: { ...message.userAction.context, name } } };
}

describe('A2UI events: an Idempotency-Key is bound to its request', () => {
  const REUSED = {
    code: 'A2UI_C2S_IDEMPOTENCY_KEY_REUSED', category: 'a2ui_c2s', severity: 'warning', recovery_path: 'fix_request', retryable: false,
    message: 'This was already submitted with different values, so nothing was changed. Please check the form and submit it again.',
  };

  it('the same body answers the first answer; another body under the key is 422 and changes nothing, before and after a restart', async () => {
    const c = await openCard();
    const action = await submitCard(c, { name: 'Aria', personality: 'Brave and kind.' });
    const first = await post(c, action, 'key-1');
    expect(first).toMatchObject({ status: 200, body: { ok: true, replayed: false, action: 'form.submit', surface: { id: 'main', rev: 1 } } });
    const logged = loggedActions(c.cid);

    const again = await post(c, action, 'key-1');
    expect(again).toEqual({ status: 200, body: { ...first.body, replayed: true } });
    // A retry whose client clock moved on is the same request.
    const later = { userAction: { ...action.userAction, timestamp: '2030-01-01T00:00:00Z' } };
    expect(await post(c, later, 'key-1')).toEqual({ status: 200, body: { ...first.body, replayed: true } });

    const refusals = [
      withName(action, 'Brin'),
      { userAction: { ...action.userAction, context: { ...action.userAction.context, nonce: 'forged-nonce' } } },
    ];
    for (const body of refusals) {
      const refused = await post(c, body, 'key-1');
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject(REUSED);
    }
    expect(await mainRev(c.cid)).toBe(1);
    expect(loggedActions(c.cid)).toBe(logged);

    // Restart on the same log: the key and its fingerprint are rebuilt from the logged request.
    await server.close(1000);
    server = await serve();
    const refused = await post(c, withName(action, 'Brin'), 'key-1');
    expect(refused).toMatchObject({ status: 422, body: REUSED });
    expect(await post(c, action, 'key-1')).toEqual({ status: 200, body: { ...first.body, replayed: true } });
    expect(await mainRev(c.cid)).toBe(1);
    expect(loggedActions(c.cid)).toBe(logged);
    const committed = findSurface((await server.conversations.get(c.cid))!.ir, 'main')!.data.committed;
    expect(committed).toMatchObject({ name: 'Aria' });
    expect(errors).toEqual([]);
  });

  it('a client error report under a used key with another code is 422; the same report is answered as before', async () => {
    const c = await openCard();
    const report = (code: string) => ({ error: { code, surfaceId: 'main--e0', message: 'could not render' } });
    const first = await post(c, report('VALIDATION_FAILED'), 'report-1');
    expect(first).toMatchObject({ status: 202, body: { ok: true, replayed: false } });
    expect(await post(c, report('RENDER_FAILED'), 'report-1')).toMatchObject({ status: 422, body: { code: 'A2UI_C2S_IDEMPOTENCY_KEY_REUSED' } });
    expect(await post(c, report('VALIDATION_FAILED'), 'report-1')).toMatchObject({ status: 202, body: { ok: true, replayed: true } });
  });
});
