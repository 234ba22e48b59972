import type { TurnStreamListener } from './turn-stream.ts';

/*
 * The turn a call runs, as it happens (the `onStream` of ConversationService.runTurn or of
 * applyAction for an action's continuation): its words, and each part applied. Transport-neutral
 * on purpose: each agent host (AG-UI, A2A) decides what its client gets of it.
 */

export interface TurnProgress {
  /** The assistant's words grew by `delta` (a preview of the text validated with the answer). */
  text(delta: string, turnIndex: number): void;
  /** Whole directives were applied and logged: the UI changed. */
  applied(): void;
}

/**
 * The listener to hand to the call whose turn `progress` follows. The service gives it that
 * turn's events only, so another client's turn queued before this one never reaches it.
 */
export function followTurn(progress: TurnProgress): TurnStreamListener {
  return (event) => {
    if (event.kind === 'text' && event.delta !== '') progress.text(event.delta, event.turnIndex);
    else if (event.kind === 'applied') progress.applied();
  };
}
