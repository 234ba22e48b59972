import {
  AppendConflictError, StoreUnavailableError, type ActionResult, type ConversationService, type ConversationStore, type TurnResult,
} from '../conversation/index.ts';
import { secondsSince, type SurfacerMetrics } from '../telemetry/metrics.ts';

/*
 * Metrics around the service's ports, as decorators: the service and the store stay as they are
 * (no metrics code in the functional core), and what is counted is what their callers see — the
 * same results the hosts answer with. The planner's is src/telemetry/instrument.ts.
 */

/** The service, counting turns (outcome, repairs) and actions (outcome, code) as the hosts get them. */
export function instrumentService(service: ConversationService, metrics: SurfacerMetrics): ConversationService {
  const turnEnded = (result: TurnResult, startedAt: number): void => {
    if (!result.ok) {
      metrics.turn({ outcome: 'refused', errorType: result.error.code, repairs: 0, repairsExhausted: false, seconds: secondsSince(startedAt) });
      return;
    }
    const repair = result.trace.repair;
    metrics.turn({
      outcome: result.outcome, ...(result.error ? { errorType: result.error.code } : {}),
      repairs: repair?.used ?? 0, repairsExhausted: repair?.exhausted ?? false, seconds: secondsSince(startedAt),
    });
  };
  const actionEnded = (result: ActionResult): void => {
    if (!result.ok) metrics.action('rejected', result.error.code);
    else if (result.replayed) metrics.action('replayed');
    else if (result.kind === 'recover') metrics.action('recover', result.error.code);
    else metrics.action('applied');
  };
  return {
    ...service,
    // Methods the service defines on its object: spread copies them, but getters would not be.
    planner: service.planner, app: service.app, ingress: service.ingress,
    async runTurn(cid, text, signal, options) {
      const startedAt = performance.now();
      const result = await service.runTurn(cid, text, signal, options);
      turnEnded(result, startedAt);
      return result;
    },
    async applyAction(cid, request, options) {
      const result = await service.applyAction(cid, request, options);
      actionEnded(result);
      if (result.ok && result.kind === 'applied' && result.continuation !== undefined) {
        // The action's own continuation turn: counted as a turn when it ends (it never rejects).
        const startedAt = performance.now();
        const continuation = result.continuation.then((turn) => {
          if (turn !== undefined) turnEnded(turn, startedAt);
          return turn;
        });
        return { ...result, continuation };
      }
      return result;
    },
  };
}

/** The store, counting appends by how they ended (a conflict is the compare-and-append working, not a failure). */
export function instrumentStore(store: ConversationStore, metrics: SurfacerMetrics): ConversationStore {
  return {
    writers: store.writers,
    async append(cid, entry, version) {
      try {
        await store.append(cid, entry, version);
        metrics.logAppend('ok', entry.type);
      } catch (error) {
        metrics.logAppend(
          error instanceof AppendConflictError ? 'conflict' : error instanceof StoreUnavailableError ? 'unavailable' : 'failed', entry.type,
        );
        throw error;
      }
    },
    read: (cid, after) => store.read(cid, after),
    ...(store.watch ? { watch: (cid: string, changed: () => void) => store.watch!(cid, changed) } : {}),
    ...(store.confirm ? { confirm: (cid: string, version: number) => store.confirm!(cid, version) } : {}),
    ...(store.checkpoints ? { checkpoints: store.checkpoints } : {}),
    countOwnedBy: (owner) => store.countOwnedBy(owner),
    close: () => store.close(),
  };
}
