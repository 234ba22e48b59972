import { z } from 'zod';
import { createToolRegistry, type ToolRegistry } from '../index.ts';
import type { CardLibrary } from './card-library/index.ts';

export const FIND_CARDS = 'find_cards';

export const FindCardsInput = z.object({
  query: z.string().max(80).describe('Part of the card\'s name, case ignored; "" lists the newest cards.'),
  limit: z.number().int().min(1).max(10).optional().describe('At most this many cards (default 5).'),
}).strict();

/** What find_cards answers per card (its library id, when it was saved, the saved values). */
export const FoundCard = z.object({ id: z.string(), saved_at: z.string(), card: z.record(z.string(), z.unknown()) });
export type FoundCard = z.infer<typeof FoundCard>;

/**
 * The demo's read-only tool: the user's saved character cards, from the card library that
 * form.submit saves them to. Scoped to the conversation's owner: a model sees only the cards of
 * the user it talks to.
 */
export function createCardTools(cards: CardLibrary): ToolRegistry {
  return createToolRegistry([{
    name: FIND_CARDS,
    description: 'Look up character cards the user saved to their card library, newest first, by (part of) their name. Read-only.',
    input: FindCardsInput,
    async handler(input: z.infer<typeof FindCardsInput>, { conversation }): Promise<FoundCard[]> {
      const found = await cards.find(conversation.owner ?? '', input.query, input.limit ?? 5);
      return found.map((c) => ({ id: c.id, saved_at: c.saved_at, card: c.card }));
    },
  }]);
}
