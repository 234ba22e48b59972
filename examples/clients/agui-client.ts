/**
 * An AG-UI client of a Surfacer server, on the official `@ag-ui/client`: it asks for a character
 * card, reads the form from the `a2ui-surface` activity (A2UI v0.9 operations), fills it in and
 * presses its submit button by sending the button's action as the next run.
 *
 *   SURFACER_URL=http://127.0.0.1:8787 SURFACER_TOKEN=… npx tsx examples/clients/agui-client.ts
 *
 * Without SURFACER_TOKEN it calls without one, as a server without SURFACER_API_TOKENS expects
 * from a caller on the same machine. Exit status 0 when the card was saved.
 */
import { HttpAgent } from '@ag-ui/client';

type Json = Record<string, any>;

const url = process.env.SURFACER_URL || 'http://127.0.0.1:8787';
const token = process.env.SURFACER_TOKEN;
const agent = new HttpAgent({ url: `${url}/ag-ui`, headers: token ? { Authorization: `Bearer ${token}` } : {} });

/** The A2UI v0.9 operations of every surface, as the activities hold them (snapshots replace, deltas append). */
const activities = new Map<string, Json[]>();
const subscriber = {
  onEvent({ event }: { event: Json }) {
    if (event.type === 'TEXT_MESSAGE_CONTENT') process.stdout.write(`assistant: ${event.delta}\n`);
    if (event.type === 'ACTIVITY_SNAPSHOT' && event.activityType === 'a2ui-surface') activities.set(event.messageId, [...event.content.a2ui_operations]);
    if (event.type === 'ACTIVITY_DELTA' && event.activityType === 'a2ui-surface') {
      const ops = activities.get(event.messageId) ?? [];
      for (const patch of event.patch) if (patch.op === 'add') ops.push(patch.value);
      activities.set(event.messageId, ops);
    }
    if (event.type === 'RUN_ERROR') process.stdout.write(`run error: ${event.code} ${event.message}\n`);
  },
};

/** The surface's components and data model after its operations, in order. */
function surfaceState(ops: readonly Json[]): { surfaceId: string; components: Json[]; data: Json } {
  let surfaceId = '';
  const components = new Map<string, Json>();
  let data: Json = {};
  for (const op of ops) {
    if (op.createSurface) surfaceId = op.createSurface.surfaceId;
    for (const c of op.updateComponents?.components ?? []) components.set(c.id, c);
    if (op.updateDataModel) data = writeAt(data, op.updateDataModel.path ?? '/', op.updateDataModel.value);
  }
  return { surfaceId, components: [...components.values()], data };
}

function writeAt(root: Json, pointer: string, value: unknown): Json {
  const keys = pointer.split('/').slice(1).filter((k) => k !== '');
  if (keys.length === 0) return (value ?? {}) as Json;
  let node = root;
  for (const key of keys.slice(0, -1)) node = node[key] ??= {};
  node[keys.at(-1)!] = value;
  return root;
}

function readAt(root: Json, pointer: string): unknown {
  return pointer.split('/').slice(1).reduce<any>((node, key) => node?.[key], root);
}

agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'create a character card' });
await agent.runAgent({}, subscriber);

const [activityId, ops] = [...activities.entries()][0] ?? [];
if (activityId === undefined || ops === undefined) throw new Error('the run showed no surface');
const form = surfaceState(ops);
const submit = form.components.find((c) => c.component === 'Button' && c.action?.event?.name === 'form.submit');
if (submit === undefined) throw new Error('the surface has no submit button');
process.stdout.write(`surface ${form.surfaceId}: ${form.components.length} components, submit button ${submit.id}\n`);

// What a renderer does on a click: the action's context with every binding resolved against the
// data model, after the user typed into the fields (the bindings point at /draft/<field>).
const typed: Json = { name: 'Aria', personality: 'Brave and kind.' };
const context: Json = {};
for (const [key, value] of Object.entries(submit.action.event.context as Json)) {
  const path = typeof value === 'object' && value !== null && typeof value.path === 'string' ? value.path : undefined;
  context[key] = path === undefined ? value : typed[key] ?? readAt(form.data, path) ?? '';
}
const userAction = {
  name: submit.action.event.name, surfaceId: form.surfaceId, sourceComponentId: submit.id,
  timestamp: new Date().toISOString(), context,
};
await agent.runAgent({ runId: crypto.randomUUID(), forwardedProps: { a2uiAction: { userAction } } }, subscriber);

const saved = surfaceState(activities.get(activityId)!).data;
const committed = readAt(saved, '/committed') as Json | undefined;
process.stdout.write(`thread ${agent.threadId}\n`);
process.stdout.write(`saved: ${JSON.stringify(committed ?? {})}\n`);
if (committed?.name !== typed.name) process.exitCode = 1;
