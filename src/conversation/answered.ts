import type { ConversationIr } from '../ui-ir/index.ts';
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
