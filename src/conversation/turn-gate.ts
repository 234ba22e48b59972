/**
 * One running planner turn per conversation, and its cancellation, wherever the turn runs. The
 * local gate serves one process (its queue already keeps turns apart); a shared one (Redis) makes
 * a second instance wait for the turn and lets any instance cancel it.
 */
export interface TurnGate {
  /**
   * Claims `cid`'s turn for `controller`, waiting up to `waitMs` while another instance runs one;
   * undefined when it is still busy then. A cancel from anywhere aborts `controller` with
   * TURN_CANCELLED until the claim is released.
   */
  claim(cid: string, controller: AbortController, waitMs: number): Promise<TurnClaim | undefined>;
  /** Cancels `cid`'s running turn wherever it runs; false when none runs. */
  cancel(cid: string): Promise<boolean>;
  running(cid: string): boolean | Promise<boolean>;
}

export interface TurnClaim {
  release(): Promise<void>;
}

/** The abort reason of a cancelled turn (a timeout aborts with another). */
export const TURN_CANCELLED = 'cancelled';

export function createLocalTurnGate(): TurnGate {
  const running = new Map<string, AbortController>();
  return {
    async claim(cid, controller) {
      if (running.has(cid)) return undefined;
      running.set(cid, controller);
      return {
        async release() {
          if (running.get(cid) === controller) running.delete(cid);
        },
      };
    },
    async cancel(cid) {
      const controller = running.get(cid);
      if (controller === undefined) return false;
      controller.abort(TURN_CANCELLED);
      return true;
    },
    running: (cid) => running.has(cid),
  };
}
