import type { IdempotencyStore } from '../ingress/index.ts';
import type { ConversationIr } from '../ui-ir/index.ts';
import type { AnsweredMessage } from './service.ts';
import type { TurnResult } from './types.ts';

/**
 * Whether a client's message is answered once its turn returned: applied, or cancelled or failed
 * after streamed directives had changed the surfaces (running the message again would apply them
 * twice). `before` is the IR read before the turn: a streamed turn's result's `prev` already
 * holds its parts. Agent hosts keep answered messages so a resent one starts no turn.
 */
export function turnAnswered(before: ConversationIr | undefined, result: TurnResult): boolean {
  if (!result.ok) return false;
  if (result.outcome === 'applied') return true;
  return before !== undefined && JSON.stringify(before.surfaces) !== JSON.stringify(result.next.surfaces);
}

/**
 * A message an agent host answers, kept as `value` under `key` in `store` (shared by every
 * instance) once its turn answered it. `lost`: the record could not be kept (the turn stays
 * applied; a resend of the message would run again).
 */
export function answeredMessage<V>(store: IdempotencyStore<V>, key: string, value: V, lost: (error: unknown) => void): AnsweredMessage {
  return {
    answered: async () => (await store.get(key)) !== undefined,
    async settled(before, result) {
      if (!turnAnswered(before, result)) return;
      try {
        await store.set(key, value);
      } catch (error) {
        lost(error);
      }
    },
  };
}
