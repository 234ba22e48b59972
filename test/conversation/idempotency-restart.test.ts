import { describe, expect, it } from 'vitest';
import { createSeededSource, findSurface } from '../../src/ui-ir/index.ts';
import { formAction, makeService } from './fixtures/service.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';

const { tempDir, jsonlStore } = jsonlTestFiles('surfacer-idem-restart-');

describe('idempotency keys rebuilt from the log keep their request fingerprint', () => {
  it('after a restart a used key still replays its own request and refuses any other (422, nothing logged)', async () => {
    const dir = tempDir();
    const live = makeService(jsonlStore({ dir }), { demo: true, entropy: createSeededSource('live') }).service;
    const c = await live.create('owner');
    const turn = await live.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const values = { name: 'Aria', personality: 'Kind.' };
    const submit = formAction(turn.next, 'main', values, { idempotencyKey: 'k1' });
    const saved = await live.applyAction(c.id, submit);
    expect(saved).toMatchObject({ ok: true, kind: 'applied', replayed: false });

    // The log entry holds no fingerprint: it is recomputed from the logged request. (`effect` is
    // the card library's answer to saving the card: form.submit's side effect.)
    const logged = (await jsonlStore({ dir }).read(c.id))!;
    const action = logged.find((e) => e.type === 'action')!;
    expect(Object.keys(action).sort()).toEqual(['at', 'draw', 'effect', 'irHash', 'request', 'type', 'v']);

    const restarted = makeService(jsonlStore({ dir }), { demo: true, entropy: createSeededSource('other') }).service;
    const before = (await restarted.get(c.id))!;
    const rev = findSurface(before.ir, 'main')!.rev;
    for (const other of [
      formAction(turn.next, 'main', { ...values, name: 'Brin' }, { idempotencyKey: 'k1' }),
      { ...submit, nonce: 'not-the-nonce' },
      { ...submit, rev: submit.rev + 1 },
      formAction(turn.next, 'main', {}, { idempotencyKey: 'k1', action: 'form.submit' }),
    ]) {
      expect(await restarted.applyAction(c.id, other)).toMatchObject({
        ok: false, status: 422, error: { code: 'A2UI_C2S_IDEMPOTENCY_KEY_REUSED', retryable: false },
      });
    }
    const duplicate = await restarted.applyAction(c.id, JSON.parse(JSON.stringify(submit)) as typeof submit);
    expect(duplicate).toMatchObject({ ok: true, kind: 'applied', replayed: true });
    const after = (await restarted.get(c.id))!;
    expect(after.version).toBe(before.version);
    expect(findSurface(after.ir, 'main')!.rev).toBe(rev);
    expect(findSurface(after.ir, 'main')!.data.committed).toMatchObject({ name: 'Aria' });
    expect((await jsonlStore({ dir }).read(c.id))!).toHaveLength(logged.length);
  });
});
