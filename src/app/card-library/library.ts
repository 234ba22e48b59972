import { z } from 'zod';
import { DataMapSchema } from '../../index.ts';

/**
 * The demo app's card library: character cards a user saved, outside the conversation log (the
 * "outside world" an action's effect writes to). Saves are keyed by the request's idempotency
 * key, per owner: a save retried with the same key (after a timeout, a crash between the save
 * and the log append, a double click) returns the card saved the first time and adds nothing.
 */
export const SavedCard = z.object({
  v: z.literal(1),
  id: z.string(),
  owner: z.string(),
  /** The idempotency key it was saved under (absent: the request carried none). */
  key: z.string().optional(),
  conversation: z.string(),
  saved_at: z.string(),
  card: DataMapSchema,
});
export type SavedCard = z.infer<typeof SavedCard>;

export interface SaveRequest {
  owner: string;
  key: string | undefined;
  conversation: string;
  card: SavedCard['card'];
}

export interface CardLibrary {
  /** Saves `card`, or returns what was saved under (owner, key) before. Resolves once durable. */
  save(request: SaveRequest, signal?: AbortSignal): Promise<SavedCard>;
  /** The owner's cards, newest first, whose name contains `query` (case ignored), at most `limit`. */
  find(owner: string, query: string, limit: number): Promise<SavedCard[]>;
  /** Waits for saves in flight and releases what the library holds open. */
  close(): Promise<void>;
}

/**
 * The in-memory index both libraries share: cards in save order, and (owner, key) → card.
 * `load` puts back what a file held; `next` says what a save would store (nothing, if the key
 * is known), and `add` records it once stored.
 */
export function createCardIndex(clock: () => number) {
  const cards: SavedCard[] = [];
  const byKey = new Map<string, SavedCard>();
  const keyOf = (owner: string, key: string): string => `${owner}\n${key}`;
  const add = (card: SavedCard): void => {
    cards.push(card);
    if (card.key !== undefined) byKey.set(keyOf(card.owner, card.key), card);
  };
  return {
    add,
    load(loaded: readonly SavedCard[]): void { for (const card of loaded) add(card); },
    next(request: SaveRequest): { known: SavedCard } | { fresh: SavedCard } {
      const known = request.key === undefined ? undefined : byKey.get(keyOf(request.owner, request.key));
      if (known !== undefined) return { known };
      return {
        fresh: {
          v: 1, id: `card-${cards.length + 1}`, owner: request.owner, ...(request.key === undefined ? {} : { key: request.key }),
          conversation: request.conversation, saved_at: new Date(clock()).toISOString(), card: request.card,
        },
      };
    },
    find(owner: string, query: string, limit: number): SavedCard[] {
      const wanted = query.trim().toLowerCase();
      const out: SavedCard[] = [];
      for (let i = cards.length - 1; i >= 0 && out.length < limit; i--) {
        const card = cards[i]!;
        const name = typeof card.card['name'] === 'string' ? card.card['name'].toLowerCase() : '';
        if (card.owner === owner && name.includes(wanted)) out.push(card);
      }
      return out;
    },
  };
}

/** A library in this process only (tests, and `createDemoApp()` without a file). */
export function createMemoryCardLibrary(options: { clock?: () => number } = {}): CardLibrary & { readonly cards: number } {
  const index = createCardIndex(options.clock ?? Date.now);
  let count = 0;
  return {
    get cards() { return count; },
    async save(request) {
      const next = index.next(request);
      if ('known' in next) return next.known;
      index.add(next.fresh);
      count += 1;
      return next.fresh;
    },
    async find(owner, query, limit) {
      return index.find(owner, query, limit);
    },
    async close() {},
  };
}
