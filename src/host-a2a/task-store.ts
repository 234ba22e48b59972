import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';

/*
 * The SDK's TaskStore contract over a bounded map: A2A tasks are this instance's record of the
 * answers it gave (the conversations themselves live in the shared log), so the oldest are
 * forgotten past `maxTasks` instead of growing without end as the SDK's InMemoryTaskStore
 * does. Tasks are scoped by the caller's principal (`userName`), as the SDK's store scopes them:
 * another principal's task is not found. Copies in and out, like the SDK's store.
 */

const DEFAULT_PAGE_SIZE = 50;

const scopeOf = (context: ServerCallContext): string => context.user?.userName || 'unknown';

export function createBoundedTaskStore(maxTasks = 10_000): TaskStore & { readonly size: number } {
  const tasks = new Map<string, { scope: string; task: Task }>();
  const keyOf = (scope: string, id: string): string => `${scope}\n${id}`;
  return {
    async load(taskId, context) {
      const entry = tasks.get(keyOf(scopeOf(context), taskId));
      return entry === undefined ? undefined : structuredClone(entry.task);
    },
    async save(task, context) {
      const scope = scopeOf(context);
      const key = keyOf(scope, task.id);
      // Re-inserted: the map's order is the order of last use, oldest first.
      tasks.delete(key);
      tasks.set(key, { scope, task: structuredClone(task) });
      while (tasks.size > maxTasks) tasks.delete(tasks.keys().next().value as string);
    },
    async list(params: ListTasksRequest, context): Promise<ListTasksResponse> {
      const scope = scopeOf(context);
      const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
      const after = params.statusTimestampAfter ? new Date(params.statusTimestampAfter).getTime() : undefined;
      let found = [...tasks.values()].filter((e) => e.scope === scope).map((e) => e.task)
        .filter((t) => !params.contextId || t.contextId === params.contextId)
        .filter((t) => params.status === undefined || params.status === 0 || t.status?.state === params.status)
        .filter((t) => after === undefined || (t.status?.timestamp !== undefined && new Date(t.status.timestamp).getTime() > after));
      // Newest first, as the SDK's store lists them.
      found.sort((a, b) => (b.status?.timestamp ?? '').localeCompare(a.status?.timestamp ?? '') || b.id.localeCompare(a.id));
      const totalSize = found.length;
      if (params.pageToken) {
        const [timestamp, ...id] = Buffer.from(params.pageToken, 'base64').toString('utf8').split('|');
        if (id.length === 0) throw new RequestMalformedError('Invalid page token format.');
        const at = found.findIndex((t) => (t.status?.timestamp ?? '') === timestamp && t.id === id.join('|'));
        found = at === -1 ? [] : found.slice(at + 1);
      }
      const page = found.slice(0, pageSize);
      const last = page.at(-1);
      return {
        tasks: page.map((t) => ({ ...structuredClone(t), ...(params.includeArtifacts ? {} : { artifacts: [] }) })),
        nextPageToken: last !== undefined && found.length > page.length ? Buffer.from(`${last.status?.timestamp ?? ''}|${last.id}`).toString('base64') : '',
        pageSize,
        totalSize,
      };
    },
    get size() {
      return tasks.size;
    },
  };
}
