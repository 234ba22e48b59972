import type { KeyedRecords } from '../../index.ts';
import { SavedCard, type CardLibrary } from './library.ts';

/**
 * The card library on a backend's shared records (`backend.records('card-library', …)`): with
 * Redis every instance saves into the same library, card ids come from one counter (`card-N`
 * never names two cards), and a save retried on another instance under the same key returns the
 * first card. Durable as the backend is (Redis: AOF, fsynced with appendfsync always).
 */
export function createRecordCardLibrary(records: KeyedRecords<SavedCard>, options: { clock?: () => number } = {}): CardLibrary {
  const clock = options.clock ?? Date.now;
  return {
    async save(request, signal) {
      signal?.throwIfAborted();
      return records.save(request.owner, request.key, (n) => ({
        v: 1, id: `card-${n}`, owner: request.owner, ...(request.key === undefined ? {} : { key: request.key }),
        conversation: request.conversation, saved_at: new Date(clock()).toISOString(), card: request.card,
      }));
    },
    async find(owner, query, limit) {
      const wanted = query.trim().toLowerCase();
      const found = (await records.list(owner)).filter((c) => (typeof c.card['name'] === 'string' ? c.card['name'].toLowerCase() : '').includes(wanted));
      return found.slice(0, limit);
    },
    async close() {},
  };
}

/** What `backend.records` needs to read saved cards back. */
export const parseSavedCard = (value: unknown): SavedCard => SavedCard.parse(value);
