import { afterAll, describe, expect, it } from 'vitest';
import { createRecordCardLibrary, parseSavedCard } from '../../src/app/index.ts';
import { startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import { silentLogger } from '../../src/conversation/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { formAction } from '../conversation/fixtures/service.ts';
import { redisForTestFile } from '../support/redis-server.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';

/*
 * The demo's card library in the backend (Redis): several instances save into one library, with
 * ids from one counter, so two saves at once never get the same `card-N`, and a save under an
 * (owner, key) already used returns the first card whichever instance it reaches. On a real
 * redis-server started for this file (test/support/redis-server.ts); each backend has its own
 * connections, as separate instances do.
 */
const r = redisForTestFile();
const card = (name: string) => ({ name, personality: 'Brave.' });
const request = (owner: string, key: string | undefined, name: string) => ({ owner, key, conversation: 'c1', card: card(name) });

describe('the card library on Redis records, several instances', () => {
  it('two instances saving at once: every card has its own id, and both see all of them', async () => {
    const a = createRecordCardLibrary(r.backend({ prefix: 'ids:' }).records('card-library', parseSavedCard));
    const b = createRecordCardLibrary(r.backend({ prefix: 'ids:' }).records('card-library', parseSavedCard));
    const saves = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).save(request('owner', `k${i}`, `Card ${i}`)));
    const saved = await Promise.all(saves);
    expect(new Set(saved.map((c) => c.id)).size).toBe(40);
    expect(saved.every((c) => /^card-\d+$/.test(c.id))).toBe(true);
    for (const library of [a, b]) {
      const found = await library.find('owner', 'card', 100);
      expect(found.map((c) => c.id).sort()).toEqual(saved.map((c) => c.id).sort());
    }
    expect(await a.find('someone else', '', 100)).toEqual([]);
  });

  it('the same (owner, key) saved on both instances at once is one card; another owner\'s key is another card', async () => {
    const a = createRecordCardLibrary(r.backend({ prefix: 'once:' }).records('card-library', parseSavedCard));
    const b = createRecordCardLibrary(r.backend({ prefix: 'once:' }).records('card-library', parseSavedCard));
    const [first, second, retry] = await Promise.all([
      a.save(request('owner', 'same-key', 'Aria')), b.save(request('owner', 'same-key', 'Aria')), b.save(request('owner', 'same-key', 'Aria')),
    ]);
    expect(second).toEqual(first);
    expect(retry).toEqual(first);
    const other = await a.save(request('other', 'same-key', 'Bea'));
    expect(other.id).not.toBe(first.id);
    expect(await b.find('owner', '', 10)).toEqual([first]);
    // No key: each save is its own card.
    const [x, y] = await Promise.all([a.save(request('owner', undefined, 'X')), b.save(request('owner', undefined, 'Y'))]);
    expect(x.id).not.toBe(y.id);
  });
});

describe('surfacer serve with --redis: the demo saves cards into one library', () => {
  const files = jsonlTestFiles('surfacer-cards-');
  const servers: ServeHandle[] = [];
  afterAll(async () => { await Promise.all(servers.map((s) => s.close())); });

  it('two instances submitting character cards at once give different card ids', async () => {
    const env = { SURFACER_SESSION_SECRET: 'card-library-test-secret-0123456789', SURFACER_REDIS_PREFIX: 'serve:' };
    for (let i = 0; i < 2; i += 1) {
      servers.push(await startServe({
        port: 0, hostname: '127.0.0.1', planner: 'offline', dataDir: files.tempDir(), redisUrl: r.redis().url, env, logger: silentLogger, fsync: false,
      }));
    }
    const submit = async (server: ServeHandle, owner: string, name: string): Promise<string> => {
      const c = await server.conversations.create(owner);
      const turn = await server.conversations.runTurn(c.id, 'create a character card');
      if (!turn.ok) throw new Error(turn.error.message);
      const result = await server.conversations.applyAction(c.id, formAction(turn.next, 'main', card(name), { idempotencyKey: `key-${owner}` }));
      if (!result.ok) throw new Error(JSON.stringify(result));
      const ir = (await server.conversations.get(c.id))!.ir;
      expect(findSurface(ir, 'main')!.data.committed).toMatchObject({ name });
      return ir.toasts.at(-1)!.text;
    };
    const toasts = await Promise.all([submit(servers[0]!, 'ann', 'Aria'), submit(servers[1]!, 'bob', 'Bea')]);
    const ids = toasts.map((t) => /as (card-\d+)$/.exec(t)?.[1]);
    expect(ids.every((id) => id !== undefined)).toBe(true);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
