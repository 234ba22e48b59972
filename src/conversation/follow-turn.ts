import type { ConversationService } from './service.ts';

/*
 * The turn a task waits for, as it happens (ConversationService.subscribeStream, local to the
 * instance running it): its words, and each part applied. Transport-neutral on purpose: each
 * agent host (AG-UI, A2A) decides what its client gets of it.
 */

export interface TurnProgress {
  /** The assistant's words grew by `delta` (a preview of the text validated with the answer). */
  text(delta: string, turnIndex: number): void;
  /** Whole directives were applied and logged: the UI changed. */
  applied(): void;
}

/**
 * Follows the first turn of `cid` it hears of (the service runs one turn at a time per
 * conversation, and the caller subscribes just before asking for its own); returns the
 * unsubscribe.
 */
export function followTurn(service: Pick<ConversationService, 'subscribeStream'>, cid: string, progress: TurnProgress): () => void {
  let turnIndex: number | undefined;
  return service.subscribeStream(cid, (event) => {
    turnIndex ??= event.turnIndex;
    if (event.turnIndex !== turnIndex) return;
    if (event.kind === 'text' && event.delta !== '') progress.text(event.delta, event.turnIndex);
    else if (event.kind === 'applied') progress.applied();
  });
}
