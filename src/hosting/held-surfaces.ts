/**
 * What one instance last sent each agent client of a conversation, surface by surface: an
 * accepted action proves its sender knew the surface's nonce and rev, not that this client holds
 * the surface (the same owner's other clients know them too). An agent host answers an action
 * with only the change since when the client's own earlier answer carried that very (epoch,
 * rev); otherwise it sends the surface whole. In memory, per instance: a client whose earlier
 * answer came from another instance gets the whole surface, which is always correct.
 */
export interface HeldSurfaces {
  /** `client` was sent IR surface `surfaceId` at (`epoch`, `rev`). */
  sent(client: string, surfaceId: string, epoch: number, rev: number): void;
  /** Whether the last thing `client` was sent of `surfaceId` is (`epoch`, `rev`). */
  holds(client: string, surfaceId: string, epoch: number, rev: number): boolean;
}

/** Remembers the `max` most recently sent (client, surface) pairs; older ones are forgotten (whole surfaces again). */
export function createHeldSurfaces(max = 10_000): HeldSurfaces {
  const held = new Map<string, string>();
  const keyOf = (client: string, surfaceId: string): string => `${client}\u0000${surfaceId}`;
  return {
    sent(client, surfaceId, epoch, rev) {
      const key = keyOf(client, surfaceId);
      held.delete(key);
      held.set(key, `${epoch}:${rev}`);
      if (held.size > max) held.delete(held.keys().next().value!);
    },
    holds(client, surfaceId, epoch, rev) {
      return held.get(keyOf(client, surfaceId)) === `${epoch}:${rev}`;
    },
  };
}
