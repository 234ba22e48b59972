import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createIngress, createMemoryIdempotencyStore, type ActionRequest, type CommitRecord, type ConversationAccess, type IdempotencyStore,
  type IngressOutcome, type StoredOutcome,
} from '../../src/ingress/index.ts';
import { createSeededSource, type ConversationIr } from '../../src/ui-ir/index.ts';
import { buildIr, createTestActions, decodeSurfaceId, surfaceOf } from './fixtures.ts';

type Scheduler = fc.Scheduler;

/** Every read, commit and store access yields to the scheduler, which picks what runs next. */
function scheduledConversation(s: Scheduler, initial: ConversationIr) {
  let ir = initial;
  const commits: CommitRecord[] = [];
  const access: ConversationAccess = {
    id: initial.conversationId,
    async read() { await s.schedule(Promise.resolve(), `read ${initial.conversationId}`); return ir; },
    async commit(next, record) {
      await s.schedule(Promise.resolve(), `commit ${initial.conversationId}`);
      ir = next;
      commits.push(record);
    },
  };
  return { access, commits };
}

function scheduledStore(s: Scheduler): IdempotencyStore<StoredOutcome> {
  const inner = createMemoryIdempotencyStore<StoredOutcome>({ clock: () => 0 });
  return {
    async get(key) { await s.schedule(Promise.resolve(), 'store.get'); return inner.get(key); },
    async set(key, value) { await s.schedule(Promise.resolve(), 'store.set'); inner.set(key, value); },
  };
}

interface Submission { conversation: number; key: string | undefined; variant: number; rev: number }

type Expected = { kind: 'applied'; replayed: boolean; rev?: number } | { kind: 'rejected'; status: number };

/**
 * What one conversation must answer to its submissions, in the order they reached it: a used
 * key replays its first outcome to the same request and refuses any other; otherwise the
 * request is applied if it was rendered from the current rev, else it is stale.
 */
function model(arrivals: readonly Submission[]): Expected[] {
  let rev = 0;
  const bound = new Map<string, { variant: number; rev: number; appliedRev: number }>();
  return arrivals.map((sub) => {
    const first = sub.key === undefined ? undefined : bound.get(sub.key);
    if (first !== undefined) {
      return first.variant === sub.variant && first.rev === sub.rev
        ? { kind: 'applied', replayed: true, rev: first.appliedRev }
        : { kind: 'rejected', status: 422 };
    }
    if (sub.rev !== rev) return { kind: 'rejected', status: 409 };
    rev += 1;
    if (sub.key !== undefined) bound.set(sub.key, { variant: sub.variant, rev: sub.rev, appliedRev: rev });
    return { kind: 'applied', replayed: false, rev };
  });
}

describe('property: a key is applied at most once; a reuse for a different request is refused and applies nothing', () => {
  const submission = fc.record({
    conversation: fc.nat({ max: 1 }),
    key: fc.option(fc.constantFrom('k1', 'k2', 'k3'), { nil: undefined }),
    variant: fc.nat({ max: 2 }),
    rev: fc.nat({ max: 2 }),
  });

  it('whatever the interleaving of arrivals, reads, commits and store accesses (two conversations, one shared store)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(submission, { minLength: 1, maxLength: 12 }), fc.scheduler(), async (subs, s) => {
      const { registry, calls } = createTestActions();
      const ingress = createIngress({ actions: registry, decodeSurfaceId, source: createSeededSource('prop'), idempotency: scheduledStore(s) });
      const conversations = [0, 1].map((i) => scheduledConversation(s, { ...buildIr(), conversationId: `c${i}` }));
      const nonce = surfaceOf(buildIr()).nonce;
      const requests = subs.map((sub): ActionRequest => ({
        kind: 'action', transport: 'html', surfaceId: 'main', epoch: 0, nonce, rev: sub.rev, action: 'form.submit',
        // The variant travels in the value the handler records, so every application is traceable.
        context: { name: `v${sub.variant}` }, ...(sub.key === undefined ? {} : { idempotencyKey: sub.key }),
      }));

      const arrivals: number[] = [];
      const outcomes = new Map<number, IngressOutcome>();
      const tasks = requests.map((request, i) => s.schedule(Promise.resolve(), `arrive ${i}`).then(async () => {
        arrivals.push(i);
        outcomes.set(i, await ingress.handle(request, conversations[subs[i]!.conversation]!.access));
      }));
      await s.waitFor(Promise.all(tasks));

      for (const c of [0, 1]) {
        const order = arrivals.filter((i) => subs[i]!.conversation === c);
        const expected = model(order.map((i) => subs[i]!));
        const actual = order.map((i) => outcomes.get(i)!);
        actual.forEach((outcome, k) => {
          expect(outcome, `${s.report()}`).toMatchObject(expected[k]!);
          if (outcome.kind === 'rejected' && outcome.status === 422) expect(outcome.error.code).toBe('A2UI_C2S_IDEMPOTENCY_KEY_REUSED');
        });
        const { commits } = conversations[c]!;
        // Applied at most once per key, and only requests the model applied were committed.
        for (const key of ['k1', 'k2', 'k3']) expect(commits.filter((r) => r.request.idempotencyKey === key).length).toBeLessThanOrEqual(1);
        const appliedIndexes = order.filter((_, k) => expected[k]!.kind === 'applied' && !(expected[k] as { replayed: boolean }).replayed);
        expect(commits.map((r) => r.request)).toEqual(appliedIndexes.map((i) => requests[i]));
      }
      // A refused or replayed request never reached an action handler.
      const applied = [...outcomes.values()].filter((o) => o.kind === 'applied' && !o.replayed).length;
      expect(calls).toHaveLength(applied);
    }), { numRuns: 300 });
  });
});
