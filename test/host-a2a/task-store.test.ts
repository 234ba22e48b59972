import { TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { PrincipalUser } from '../../src/host-a2a/index.ts';
import { createBoundedTaskStore } from '../../src/host-a2a/task-store.ts';

const as = (id: string) => new ServerCallContext({ user: new PrincipalUser({ id }) });
const task = (id: string, contextId: string, at: string, state = TaskState.TASK_STATE_COMPLETED): Task => ({
  id, contextId, artifacts: [], history: [], metadata: {}, status: { state, message: undefined, timestamp: at },
});
const list = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined };

/** The A2A task store: scoped by principal, bounded (oldest forgotten first), listed newest first in pages. */
describe('createBoundedTaskStore', () => {
  it('scopes tasks by principal and copies them in and out', async () => {
    const store = createBoundedTaskStore();
    const t = task('t1', 'c1', '2026-01-01T00:00:00Z');
    await store.save(t, as('alice'));
    t.contextId = 'changed';
    expect((await store.load('t1', as('alice')))?.contextId).toBe('c1');
    expect(await store.load('t1', as('bob'))).toBeUndefined();
    expect((await store.list(list, as('bob'))).tasks).toEqual([]);
  });

  it('forgets the least recently saved past its bound', async () => {
    const store = createBoundedTaskStore(3);
    for (const id of ['a', 'b', 'c']) await store.save(task(id, 'c', '2026-01-01T00:00:00Z'), as('p'));
    await store.save(task('a', 'c', '2026-01-01T00:00:01Z'), as('p'));
    await store.save(task('d', 'c', '2026-01-01T00:00:02Z'), as('p'));
    expect(store.size).toBe(3);
    expect(await store.load('b', as('p'))).toBeUndefined();
    expect(await store.load('a', as('p'))).toBeDefined();
  });

  it('lists newest first, filtered, in pages', async () => {
    const store = createBoundedTaskStore();
    for (let i = 0; i < 5; i += 1) await store.save(task(`t${i}`, i % 2 === 0 ? 'even' : 'odd', `2026-01-01T00:00:0${i}Z`), as('p'));
    const first = await store.list({ ...list, pageSize: 2 }, as('p'));
    expect(first.tasks.map((t) => t.id)).toEqual(['t4', 't3']);
    expect(first.totalSize).toBe(5);
    const second = await store.list({ ...list, pageSize: 2, pageToken: first.nextPageToken }, as('p'));
    expect(second.tasks.map((t) => t.id)).toEqual(['t2', 't1']);
    expect((await store.list({ ...list, contextId: 'even' }, as('p'))).tasks.map((t) => t.id)).toEqual(['t4', 't2', 't0']);
    await expect(store.list({ ...list, pageToken: 'x' }, as('p'))).rejects.toThrow(/page token/);
  });
});
