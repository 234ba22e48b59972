/// <reference lib="dom" />
/*
 * A React page fed from POST /ag-ui, as a CopilotKit-style frontend is: the official
 * @ag-ui/client HttpAgent runs the thread; every `a2ui-surface` activity's operations go, in
 * order, to the official web_core v0.9 MessageProcessor; the official @a2ui/react renderer
 * (A2uiSurface, basicCatalog, markdown through @a2ui/markdown-it) draws each surface; an action the processor dispatches is the next
 * run, with forwardedProps.a2uiAction.userAction. Activities are replayed as CopilotKit replays
 * them (take() below). Bundled by the test with esbuild.
 * Query: ?token=…&thread=…&say=… (a first message to send); &catalog=<app catalogue id>: the page
 * loads the app catalogue (GET /a2ui/catalog/v0.9.json), holds it with Surfacer's React Table (examples/clients/react-a2ui-table.ts) and
 * advertises it in every run's forwardedProps.a2uiClientCapabilities, so tables come as `Table`.
 */
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, Message } from '@ag-ui/core';
import { renderMarkdown } from '@a2ui/markdown-it';
import { A2uiSurface, basicCatalog, MarkdownContext, type ReactComponentImplementation } from '@a2ui/react/v0_9';
import { MessageProcessor, type A2uiMessage, type SurfaceModel } from '@a2ui/web_core/v0_9';
import { createElement, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { withSurfacerTable } from '../../../examples/clients/react-a2ui-table.ts';

interface RunRecord { kind: 'message' | 'action' | 'resume'; events: string[]; error?: { code?: string; message: string } }
const runs: RunRecord[] = [];
(window as unknown as { __agui: { runs: RunRecord[] } }).__agui = { runs };

const query = new URLSearchParams(location.search);
const agent = new HttpAgent({
  url: '/ag-ui', threadId: query.get('thread') ?? undefined,
  headers: { Authorization: `Bearer ${query.get('token') ?? ''}` },
});

type Surface = SurfaceModel<ReactComponentImplementation>;
let setSurfaces: (surfaces: Surface[]) => void = () => {};
const appCatalogId = query.get('catalog');
// The app catalogue as the server publishes it (its Table entry's schema checks each Table).
const catalogs = appCatalogId === null ? [basicCatalog]
  : [basicCatalog, withSurfacerTable(await (await fetch('/a2ui/catalog/v0.9.json')).json())];
/** What every run advertises: the app catalogue (first) when the page holds it. */
const capabilities = appCatalogId === null ? {} : { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [appCatalogId, basicCatalog.id] } } };
const processor = new MessageProcessor<ReactComponentImplementation>(catalogs, (action) => {
  void run('action', { forwardedProps: { a2uiAction: { userAction: JSON.parse(JSON.stringify(action)) as unknown } } });
});
const current = (): Surface[] => [...processor.model.surfacesMap.values()];
processor.onSurfaceCreated(() => setSurfaces(current()));
processor.onSurfaceDeleted(() => setSurfaces(current()));

/** What each a2ui-surface activity holds (messageId → its operations), as the client patches it. */
const activities = new Map<string, A2uiMessage[]>();

function take(event: BaseEvent): void {
  const activity = event as BaseEvent & { messageId?: string; activityType?: string; content?: { a2ui_operations?: unknown[] }; patch?: Array<{ op: string; path: string; value?: unknown }> };
  if (activity.activityType !== 'a2ui-surface' || activity.messageId === undefined) return;
  if (event.type === 'ACTIVITY_SNAPSHOT') activities.set(activity.messageId, [...(activity.content?.a2ui_operations ?? [])] as A2uiMessage[]);
  else if (event.type === 'ACTIVITY_DELTA') {
    const list = activities.get(activity.messageId) ?? [];
    activities.set(activity.messageId, list);
    list.push(...(activity.patch ?? []).filter((p) => p.op === 'add' && p.path === '/a2ui_operations/-').map((p) => p.value) as A2uiMessage[]);
  } else return;
  // As CopilotKit's renderer does: the activity's whole list whenever it changes, createSurface
  // left out for a surface the processor holds; applied whole before React paints.
  const held = (m: A2uiMessage): boolean => 'createSurface' in m && processor.model.getSurface(m.createSurface.surfaceId) !== undefined;
  processor.processMessages(activities.get(activity.messageId)!.filter((m) => !held(m)));
}

let queue = Promise.resolve();
function run(kind: RunRecord['kind'], params: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<void> {
  // One run at a time per thread, as the protocol expects.
  queue = queue.then(async () => {
    const record: RunRecord = { kind, events: [] };
    try {
      await agent.runAgent({ ...params, forwardedProps: { ...capabilities, ...params.forwardedProps } }, {
        onEvent: ({ event }) => {
          record.events.push(event.type);
          if (event.type === 'RUN_ERROR') record.error = { code: (event as { code?: string }).code, message: (event as unknown as { message: string }).message };
          take(event);
        },
      });
    } catch (error) {
      record.error ??= { message: String(error) };
    }
    runs.push(record);
  });
  return queue;
}

function App(): ReturnType<typeof createElement> {
  const [surfaces, set] = useState<Surface[]>(current());
  useEffect(() => { setSurfaces = set; set(current()); }, []);
  return createElement('main', { className: 'thread' }, surfaces.map((surface) =>
    createElement('section', { key: surface.id, className: 'surface', 'data-surface-id': surface.id }, createElement(A2uiSurface, { surface }))));
}

// Text renders markdown through the official markdown-it renderer, as the Lit page's does.
createRoot(document.getElementById('root')!).render(createElement(MarkdownContext.Provider, { value: renderMarkdown }, createElement(App)));
const say = query.get('say');
if (say !== null) {
  agent.addMessage({ id: `u-${Date.now()}`, role: 'user', content: say } as Message);
  void run('message');
} else {
  void run('resume');
}
