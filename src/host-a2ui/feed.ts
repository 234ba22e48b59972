import type { A2uiHub } from './hub.ts';
import type { A2uiServerMessage } from './messages.ts';

/**
 * What the A2UI routes read for one wire version of the conversations they serve: a hub (its
 * channels and event ids are this version's alone) and the compiled state behind it. A host has
 * one feed per wire version (v0.8, v0.9, …), made when the first client of that version comes.
 */
export interface A2uiFeed {
  readonly hub: A2uiHub;
  /**
   * Called (after authorisation) before a stream subscribes or a snapshot is read: e.g. start
   * publishing the conversation's changes to the hub. A throw ends the request.
   */
  prepare?(cid: string, lastEventId?: string): void | Promise<void>;
  /** Re-opens the conversation's hub channel, synchronously, right before a stream subscribes. */
  open?(cid: string): void;
  /**
   * What a client that holds the conversation up to log version `since` needs to be current
   * (prepared by `prepare` from its Last-Event-ID); undefined → a full init. Synchronous, like `snapshot`.
   */
  catchUp?(cid: string, since: number): readonly A2uiServerMessage[] | undefined;
  /**
   * Full current state of every surface of the conversation (A2UI messages, in order).
   * Synchronous on purpose: it is taken in the same tick as the hub subscription (or
   * checkpoint), so it reflects exactly the batches published up to that point — none can land
   * in between and be lost or applied twice.
   */
  snapshot(cid: string): readonly A2uiServerMessage[];
  /**
   * A2UI surface ids a re-initialised client may hold beyond those the hub remembers (e.g. from
   * before a restart or a forgotten channel): they get a `deleteSurface` first.
   */
  surfaceIds?(cid: string): Iterable<string>;
  /** This version's `deleteSurface` message (a re-initialisation starts with them). */
  deleteSurface(surfaceId: string): A2uiServerMessage;
}
