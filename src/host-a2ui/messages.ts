/**
 * One A2UI server→client message as produced by a compiler: exactly one top-level key in v0.8,
 * that key beside `version` in v0.9.
 */
export type A2uiServerMessage = Readonly<Record<string, unknown>>;

/**
 * The surface a message belongs to: the `surfaceId` of its (single) top-level object value. The hub and
 * the init builder only need this much structure; validating the message is the compiler's job.
 */
export function surfaceIdOf(message: A2uiServerMessage): string | undefined {
  for (const key of Object.keys(message)) {
    const body = message[key];
    if (body !== null && typeof body === 'object' && Object.hasOwn(body, 'surfaceId')) {
      const id = (body as { surfaceId: unknown }).surfaceId;
      return typeof id === 'string' ? id : undefined;
    }
  }
  return undefined;
}

/**
 * A full (re)initialisation: `deleteSurface` for every surface the client may hold (ids the
 * stream has carried, and the snapshot's own), then the snapshot. For a fresh client the
 * deletes are no-ops (the spec allows deleting an unknown surface); for a reconnecting client
 * whose gap is too old they drop surfaces that were closed while it was away, and data keys
 * removed by a tombstone rebuild, which a replace-only update could never remove.
 */
export function initMessages(
  snapshot: readonly A2uiServerMessage[],
  knownSurfaceIds: Iterable<string>,
  deleteSurface: (surfaceId: string) => A2uiServerMessage,
): A2uiServerMessage[] {
  const ids = new Set<string>(knownSurfaceIds);
  for (const message of snapshot) {
    const id = surfaceIdOf(message);
    if (id !== undefined) ids.add(id);
  }
  const deletes = [...ids].map(deleteSurface);
  return [...deletes, ...snapshot];
}
