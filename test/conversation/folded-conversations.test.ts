import { describe, expect, it } from 'vitest';
import {
  AppendConflictError, irHash, LogRewrittenError, type ActionResult, type ConversationEvent, type ConversationService, type ConversationStore, type LogEntry,
} from '../../src/conversation/index.ts';
import type { ActionRequest } from '../../src/ingress/index.ts';
import type { ConversationIr } from '../../src/ui-ir/index.ts';
import { formAction, makeService } from './fixtures/service.ts';

/**
 * One in-memory log shared by "instances" whose store says it has other writers: appends notify
 * every watcher (as Redis pub/sub does); a test can hold a read's answer (a slow network), make
 * one instance's reads fail (its connection is away) or drop the newest entries (a failover to
 * a replica that never got them).
 */
function sharedLog() {
  const logs = new Map<string, LogEntry[]>();
  const watchers = new Map<string, Set<() => void>>();
  const control = { hold: undefined as undefined | { release?: () => void }, failReads: 0, rewritten: false };
  /** `flaky`: this instance's reads fail while `control.failReads` lasts. */
  const store = (options: { flaky?: boolean } = {}): ConversationStore => ({
    writers: 'many',
    async append(cid, entry, version) {
      const log = logs.get(cid) ?? [];
      if (log.length !== version) throw new AppendConflictError(cid, version, log.length);
      logs.set(cid, [...log, structuredClone(entry)]);
      for (const w of watchers.get(cid) ?? []) w();
    },
    async read(cid, after = 0) {
      if (options.flaky && control.failReads > 0) {
        control.failReads -= 1;
        throw new Error('store away');
      }
      const entries = logs.get(cid)?.slice(after).map((e) => structuredClone(e)); // what the server executed now …
      const hold = control.hold;
      if (hold) {
        control.hold = undefined;
        await new Promise<void>((resolve) => { hold.release = resolve; }); // … answered later
      }
      // What the Redis store says when the entry it read last at `after` is gone.
      if (control.rewritten && after > 0) {
        control.rewritten = false;
        throw new LogRewrittenError(cid, after);
      }
      return entries;
    },
    // Nothing to wait for here (every entry is kept): a confirmation only takes its turn.
    confirm: async () => {},
    watch(cid, changed) {
      const set = watchers.get(cid) ?? new Set();
      set.add(changed);
      watchers.set(cid, set);
      return () => { set.delete(changed); };
    },
    countOwnedBy: async () => 0,
    close: async () => {},
  });
  return {
    store, control,
    lose: (cid: string, n: number) => logs.set(cid, logs.get(cid)!.slice(0, -n)),
    notify: (cid: string) => { for (const w of watchers.get(cid) ?? []) w(); },
  };
}

const CARD = { name: 'Aria', personality: 'Kind.' };

describe('folded conversations on a log with other writers', () => {
  it('a change notified while the conversation is still loading reaches the listeners', async () => {
    const { store, control } = sharedLog();
    const a = makeService(store(), { demo: true }).service;
    const b = makeService(store(), { demo: true }).service;
    const c = await a.create('o');
    const turn = await a.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error(turn.error.message);
    const seen: ConversationEvent[] = [];
    b.subscribe(c.id, (event) => seen.push(event)); // as the bridge and the htmx stream do: subscribe, then load
    const hold: { release?: () => void } = {};
    control.hold = hold;
    const loading = b.get(c.id); // B's read runs at version 2 …
    await expect.poll(() => hold.release !== undefined).toBe(true);
    expect(await a.applyAction(c.id, formAction(turn.next, 'main', CARD))).toMatchObject({ ok: true }); // … A appends 3, B is notified
    hold.release!(); // … then B's read answer (version 2) arrives
    expect((await loading)?.version).toBe(2);
    await expect.poll(() => seen.map((e) => e.version)).toEqual([3]);
  });

  it('a catch-up that fails is tried again while someone listens', async () => {
    const { store, control } = sharedLog();
    const a = makeService(store(), { demo: true }).service;
    const b = makeService(store({ flaky: true }), { demo: true }).service;
    const c = await a.create('o');
    await b.get(c.id);
    const seen: number[] = [];
    b.subscribe(c.id, (event) => seen.push(event.version));
    control.failReads = 2; // B's catch-ups after the notification fail twice (its connection is still away)
    expect(await a.runTurn(c.id, 'create a character card')).toMatchObject({ ok: true });
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual([2]);
    expect(control.failReads).toBe(0);
  });

  it('a log that lost entries this instance folded is reloaded at its next write, not fought over forever', async () => {
    const { store, lose } = sharedLog();
    const a = makeService(store(), { demo: true }).service;
    const c = await a.create('o');
    const first = await a.runTurn(c.id, 'create a character card');
    if (!first.ok) throw new Error(first.error.message);
    expect(await a.applyAction(c.id, formAction(first.next, 'main', CARD))).toMatchObject({ ok: true });
    lose(c.id, 1); // the save (version 3) is gone from the store
    // The next write conflicts with a shorter log: the fold is dropped and reloaded at version 2
    // and the turn is decided again there, instead of conflicting until CONVERSATION_BUSY.
    expect(await a.runTurn(c.id, 'hello')).toMatchObject({ ok: true, outcome: 'applied' });
    const now = (await a.get(c.id))!;
    expect(now.version).toBe(3);
    const fresh = makeService(store(), { demo: true }).service;
    expect((await fresh.get(c.id))!.ir).toEqual(now.ir);
  });

  it('the IRs of the last versions are the same on the writer, a late loader and a follower; older ones are not kept', async () => {
    const { store } = sharedLog();
    const a = makeService(store(), { demo: true }).service;
    const follower = makeService(store(), { demo: true }).service;
    const c = await a.create('o');
    await follower.get(c.id);
    const followed: number[] = [];
    follower.subscribe(c.id, (event) => followed.push(event.version));
    const turn = await a.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error(turn.error.message);
    const irs = new Map([[2, turn.next]]);
    for (let i = 0; i < 70; i += 1) {
      const now = (await a.get(c.id))!;
      expect(await a.applyAction(c.id, formAction(now.ir, 'main', { ...CARD, name: `Aria ${i}` }))).toMatchObject({ ok: true });
      const after = (await a.get(c.id))!;
      irs.set(after.version, after.ir);
    }
    const last = 72;
    await expect.poll(() => followed.at(-1), { timeout: 5_000 }).toBe(last);
    const loader = makeService(store(), { demo: true }).service;
    for (const service of [a, follower, loader]) {
      for (let v = last - 63; v <= last; v += 1) expect(await service.irAt(c.id, v)).toEqual(irs.get(v));
      expect(await service.irAt(c.id, last - 64)).toBeUndefined();
      expect(await service.irAt(c.id, last + 1)).toBeUndefined();
    }
  });

  /**
   * A card saved through `a` (key k1, version 3) and followed by `b`, with a listener. Then that
   * save is lost (never acknowledged), `meanwhile` may change the log, and a notice's catch-up on
   * `b` is held so that it finds the log rewritten only once `decide` has started on b's stale state.
   */
  async function savedThenLost(
    meanwhile: (store: () => ConversationStore, c: { id: string; turn: ConversationIr }) => Promise<void>,
    decide: (b: ConversationService, c: { id: string; save: ActionRequest; saved: ConversationIr }) => Promise<ActionResult>,
  ): Promise<{ b: ConversationService; store: () => ConversationStore; cid: string; decided: ActionResult }> {
    const { store, control, lose, notify } = sharedLog();
    const a = makeService(store(), { demo: true }).service;
    const b = makeService(store(), { demo: true }).service;
    const c = await a.create('o');
    const turn = await a.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error(turn.error.message);
    const save = formAction(turn.next, 'main', CARD, { idempotencyKey: 'k1' });
    const saved = await a.applyAction(c.id, save);
    if (!saved.ok) throw new Error(saved.error.message);
    expect((await b.get(c.id))?.version).toBe(3);
    const off = b.subscribe(c.id, () => {});
    try {
      lose(c.id, 1);
      await meanwhile(store, { id: c.id, turn: turn.next });
      const hold: { release?: () => void } = {};
      control.hold = hold;
      control.rewritten = true;
      notify(c.id);
      await expect.poll(() => hold.release !== undefined).toBe(true);
      const decision = decide(b, { id: c.id, save, saved: saved.next });
      await new Promise((resolve) => setTimeout(resolve, 20));
      hold.release!();
      return { b, store, cid: c.id, decided: await decision };
    } finally {
      off();
    }
  }

  it('a retry replayed from a state that a catch-up meanwhile found rewritten (and reloaded) is decided again on the log as it is, not acknowledged from the lost entry', async () => {
    // The client's retry reaches b, whose cached state still holds k1: a replay, were it not checked.
    const { b, cid, decided } = await savedThenLost(async () => {}, (on, c) => on.applyAction(c.id, c.save));
    expect(decided).toMatchObject({ ok: true, replayed: false });
    expect((await b.get(cid))?.version).toBe(3);
  });

  it('a decision taken on a state that a catch-up meanwhile found rewritten (and reloaded) is not appended on top of the log as it now is: taken again', async () => {
    const { b, store, cid } = await savedThenLost(
      // Another instance saved something else as version 3.
      async (storeOf, c) => {
        const other = makeService(storeOf(), { demo: true }).service;
        expect(await other.applyAction(c.id, formAction(c.turn, 'main', { ...CARD, name: 'Bea' }, { idempotencyKey: 'k3' }))).toMatchObject({ ok: true });
      },
      // A submit from b's renderer, which shows the lost save: decided on b's stale state.
      (on, c) => on.applyAction(c.id, formAction(c.saved, 'main', { ...CARD, name: 'Cleo' }, { idempotencyKey: 'k2' })),
    );
    // Whatever was decided, the log replays to what b holds: nothing was built on the lost save.
    const fresh = makeService(store(), { demo: true }).service;
    const [onB, replayed] = [await b.get(cid), await fresh.get(cid)];
    expect(onB?.version).toBe(replayed?.version);
    expect(irHash(onB!.ir)).toBe(irHash(replayed!.ir));
    expect(await fresh.divergences(cid)).toEqual([]);
  });
});
