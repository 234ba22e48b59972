import { EventType, type ActivityDeltaEvent, type ActivitySnapshotEvent } from '@ag-ui/core';
import type { A2uiBridges } from '../host-a2ui/index.ts';
import { surfaceIdOf, type A2uiServerMessage } from '../host-a2ui/index.ts';
import { namingBasicCatalog } from '../hosting/index.ts';

/*
 * A conversation's surfaces as AG-UI activities, the way CopilotKit's A2UI middleware emits
 * them: one ACTIVITY_SNAPSHOT per surface, `messageId` `a2ui-surface-<surfaceId>`, content
 * `{ a2ui_operations: [A2UI v0.9 messages] }`, `replace: true`. The messages are the v0.9
 * bridge's snapshot (the same compiled, cached messages the native v0.9 stream sends), never a
 * compile of our own.
 *
 * How renderers replay them decides their shape. CopilotKit (react-core 1.74
 * `SurfaceMessageProcessor`) keeps one processor per activity and surface, and on every change of
 * the activity's content feeds it the whole list again, leaving out createSurface once the
 * surface exists. So a list must be replayable onto a processor that already holds its surface:
 * a snapshot is createSurface, every component and the whole data model (each a write that
 * replaces what it names), never a deleteSurface (replayed, it would remove the surface and fail
 * the next update); a delta appends the step's updates, which replay the same way. A surface
 * that is gone is the lone deleteSurface of its activity. A renderer that keeps one processor for
 * the thread does the same: createSurface only for a surface it does not hold.
 */

export const A2UI_ACTIVITY_TYPE = 'a2ui-surface';
export const A2UI_OPERATIONS_KEY = 'a2ui_operations';

export const activityMessageId = (surfaceId: string): string => `a2ui-surface-${surfaceId}`;

/**
 * A snapshot's messages (every live surface's init, as the bridge compiled them) by A2UI surface
 * id, in order, without deleteSurface (a surface that failed is re-initialised by one in the
 * native stream), the basic catalogue named `basicId` (the id its client named).
 */
export function surfacesOfSnapshot(snapshot: readonly A2uiServerMessage[], basicId: string): Map<string, A2uiServerMessage[]> {
  const surfaces = new Map<string, A2uiServerMessage[]>();
  for (const message of namingBasicCatalog(snapshot, basicId)) {
    const id = surfaceIdOf(message);
    if (id === undefined || 'deleteSurface' in message) continue;
    let list = surfaces.get(id);
    if (list === undefined) surfaces.set(id, list = []);
    list.push(message);
  }
  return surfaces;
}

/** Every live surface's init messages (surfacesOfSnapshot of the conversation's v0.9 snapshot). */
export async function liveSurfaces(bridges: A2uiBridges, cid: string, basicId: string): Promise<Map<string, A2uiServerMessage[]>> {
  return (await bridges.prepare(cid)) ? surfacesOfSnapshot(bridges.snapshot(cid), basicId) : new Map();
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
 * surface whole (replacing its activity's list), and a lone `deleteSurface` for every shown one
 * that is gone (closed, or replaced under a new epoch's id).
 */
export function surfaceActivities(
  live: ReadonlyMap<string, readonly A2uiServerMessage[]>, shown: Iterable<string>,
  deleteSurface: (surfaceId: string) => A2uiServerMessage,
): ActivitySnapshotEvent[] {
  const events: ActivitySnapshotEvent[] = [];
  for (const id of new Set(shown)) if (!live.has(id)) events.push(surfaceActivity(id, [deleteSurface(id)]));
  for (const [id, messages] of live) events.push(surfaceActivity(id, messages));
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
