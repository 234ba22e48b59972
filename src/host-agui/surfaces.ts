import { EventType, type ActivityDeltaEvent, type ActivitySnapshotEvent } from '@ag-ui/core';
import type { A2uiBridges } from '../host-a2ui/index.ts';
import { surfaceIdOf, type A2uiServerMessage } from '../host-a2ui/index.ts';

/*
 * A conversation's surfaces as AG-UI activities, the way CopilotKit's A2UI middleware emits
 * them: one ACTIVITY_SNAPSHOT per surface, `messageId` `a2ui-surface-<surfaceId>`, content
 * `{ a2ui_operations: [A2UI v0.9 messages] }`, `replace: true`. The messages are the v0.9
 * bridge's snapshot (the same compiled, cached messages the native v0.9 stream sends), never a
 * compile of our own. Each snapshot is the whole surface, preceded by its `deleteSurface`: a
 * renderer that keeps one processor for the thread rebuilds the surface from it, one that makes
 * a processor per activity ignores the delete (deleting an unknown surface is allowed).
 */

export const A2UI_ACTIVITY_TYPE = 'a2ui-surface';
export const A2UI_OPERATIONS_KEY = 'a2ui_operations';

export const activityMessageId = (surfaceId: string): string => `a2ui-surface-${surfaceId}`;

/** Every live surface's init messages, by A2UI surface id, in the order the snapshot has them. */
export async function liveSurfaces(bridges: A2uiBridges, cid: string): Promise<Map<string, A2uiServerMessage[]>> {
  const surfaces = new Map<string, A2uiServerMessage[]>();
  if (!(await bridges.prepare(cid))) return surfaces;
  for (const message of bridges.snapshot(cid)) {
    const id = surfaceIdOf(message);
    if (id === undefined) continue;
    let list = surfaces.get(id);
    if (list === undefined) surfaces.set(id, list = []);
    list.push(message);
  }
  return surfaces;
}

/** The A2UI ids of every live surface (what a client of the thread may hold), compiling nothing. */
export async function liveSurfaceIds(bridges: A2uiBridges, cid: string): Promise<string[]> {
  return (await bridges.prepare(cid)) ? bridges.liveSurfaceIds(cid) : [];
}

export function surfaceActivity(surfaceId: string, operations: readonly A2uiServerMessage[]): ActivitySnapshotEvent {
  return {
    type: EventType.ACTIVITY_SNAPSHOT,
    messageId: activityMessageId(surfaceId),
    activityType: A2UI_ACTIVITY_TYPE,
    content: { [A2UI_OPERATIONS_KEY]: operations },
    replace: true,
  };
}

/**
 * Operations appended to a surface's activity the client holds (AG-UI applies the JSON patch to
 * the activity message's content): what changed since, never the whole surface again.
 */
export function surfaceDelta(surfaceId: string, operations: readonly A2uiServerMessage[]): ActivityDeltaEvent {
  return {
    type: EventType.ACTIVITY_DELTA,
    messageId: activityMessageId(surfaceId),
    activityType: A2UI_ACTIVITY_TYPE,
    patch: operations.map((value) => ({ op: 'add' as const, path: `/${A2UI_OPERATIONS_KEY}/-`, value })),
  };
}

/**
 * The activities that bring a client from `shown` (surface ids it may hold) to `live`: each live
 * surface whole, and a lone `deleteSurface` for every shown one that is gone (closed, or replaced
 * under a new epoch's id).
 */
export function surfaceActivities(
  live: ReadonlyMap<string, readonly A2uiServerMessage[]>, shown: Iterable<string>,
  deleteSurface: (surfaceId: string) => A2uiServerMessage,
): ActivitySnapshotEvent[] {
  const events: ActivitySnapshotEvent[] = [];
  for (const id of new Set(shown)) if (!live.has(id)) events.push(surfaceActivity(id, [deleteSurface(id)]));
  for (const [id, messages] of live) events.push(surfaceActivity(id, [deleteSurface(id), ...messages]));
  return events;
}

/**
 * The activities of `surfaceActivities` this client does not hold yet: `held` (surface id → the
 * operations last sent for it, as JSON) is what the run already sent, and is updated. A surface
 * sent mid-turn and unchanged since is not sent again at the end (a renderer would rebuild it,
 * losing what the person typed meanwhile); the client's state still equals a fresh snapshot.
 */
export function unheldActivities(
  live: ReadonlyMap<string, readonly A2uiServerMessage[]>, shown: Iterable<string>,
  deleteSurface: (surfaceId: string) => A2uiServerMessage, held: Map<string, string>,
): ActivitySnapshotEvent[] {
  const events: ActivitySnapshotEvent[] = [];
  for (const event of surfaceActivities(live, shown, deleteSurface)) {
    const key = JSON.stringify(event.content);
    if (held.get(event.messageId) === key) continue;
    held.set(event.messageId, key);
    events.push(event);
  }
  return events;
}
