import { createEnvelopeStreamReader, type EnvelopeStreamReader, type StreamEvent } from '../directives/index.ts';
import type { DirectiveRegistry } from '../directives/registry.ts';
import type { ValidDirective } from '../directives/validate.ts';
import type { PlannerStream } from '../planner/types.ts';
import type { DirectivesMode } from './turn.ts';
import type { TraceIssue } from './trace.ts';

/**
 * What a streamed turn tells whoever watches it, as it happens (transport-neutral: the htmx
 * host turns it into SSE fragments, an agent host into its text-delta / state events). Local
 * to the instance running the turn; the applied directives also reach every instance through
 * the log (ConversationEvent with `cause.streamed`).
 */
export type TurnStreamEvent =
  /** The assistant's text grew (a preview: the transcript gets the text validated with the answer). */
  | { kind: 'text'; cid: string; turnIndex: number; delta: string; offset: number }
  /** Whole directives were applied and logged (a `turn_part` entry at `version`). */
  | {
    kind: 'applied'; cid: string; turnIndex: number; version: number; textApplied: boolean;
    directives: Array<{ index: number; type: string; offset: number }>;
  }
  /** A directive closed but failed validation: it is not applied (the repair follow-up may ask again). */
  | { kind: 'rejected'; cid: string; turnIndex: number; index: number; offset: number; codes: string[] }
  /** The turn ended (its own entry is logged, or it failed or was cancelled). */
  | { kind: 'end'; cid: string; turnIndex: number; outcome: 'applied' | 'planner_failed' | 'cancelled' };

export type TurnStreamListener = (event: TurnStreamEvent) => void;

type Unplaced<T> = T extends unknown ? Omit<T, 'cid' | 'turnIndex'> : never;
/** A session's event before the service says which conversation and turn it belongs to. */
export type SessionEvent = Unplaced<Extract<TurnStreamEvent, { kind: 'text' | 'applied' | 'rejected' }>>;

export interface StreamPart {
  directives: ValidDirective[];
  /** Offsets where each directive closed in the answer, by directive index. */
  offsets: Map<number, number>;
  /** The envelope's assistant_text, with the first part that can carry it. */
  assistantText?: string;
  first: boolean;
}

export interface StreamedSoFar {
  /** turn_part entries appended. */
  parts: number;
  /** Directive positions decided by the appended parts (applied or rejected): the rest starts here. */
  through: number;
  textApplied: boolean;
  applied: Array<{ index: number; type: string; offset: number }>;
  /** What applying the parts reported (pointers address the answer's directives), for the turn's trace. */
  warnings: TraceIssue[];
  errors: TraceIssue[];
}

/** What appending one part came to. */
export interface AppendedPart {
  version: number;
  warnings: TraceIssue[];
  errors: TraceIssue[];
}

export interface TurnStreamSession {
  readonly sink: PlannerStream;
  readonly reader: EnvelopeStreamReader;
  /** Waits for the parts queued so far, then accepts no more. */
  settle(): Promise<StreamedSoFar>;
  readonly soFar: StreamedSoFar;
}

export interface TurnStreamOptions {
  registry: DirectiveRegistry;
  mode: DirectivesMode;
  mapText?: (text: string) => string;
  /** Appends one part (turn_part entry) and applies it; resolves with its log version, or undefined when it could not. */
  appendPart(part: StreamPart): Promise<AppendedPart | undefined>;
  emit(event: SessionEvent): void;
  onError(error: unknown): void;
  /** The turn's signal: once it aborts (cancel, timeout), nothing more is applied. */
  signal?: AbortSignal;
}

/**
 * The reading side of one streamed answer: the planner's raw deltas go through the incremental
 * envelope reader; text is handed on at once, and in best-effort mode each complete, valid
 * directive is appended as a part (one at a time, in order; those that closed while an append
 * was running go together in the next). Strict mode applies nothing before the whole answer
 * passed: it only previews the text.
 */
export function createTurnStreamSession(options: TurnStreamOptions): TurnStreamSession {
  const reader = createEnvelopeStreamReader(options.registry, { mode: 'best_effort', ...(options.mapText ? { mapText: options.mapText } : {}) });
  const soFar: StreamedSoFar = { parts: 0, through: 0, textApplied: false, applied: [], warnings: [], errors: [] };
  const waiting: ValidDirective[] = [];
  const offsets = new Map<number, number>();
  let decided = 0;
  let chain: Promise<void> = Promise.resolve();
  let open = true;
  let broken = false;

  function appendNext(): Promise<void> {
    if (waiting.length === 0 || broken || options.signal?.aborted === true) return Promise.resolve();
    const directives = waiting.splice(0);
    const through = decided;
    const text = soFar.textApplied ? undefined : reader.appliedText;
    const part: StreamPart = { directives, offsets, first: soFar.parts === 0, ...(text === undefined ? {} : { assistantText: text }) };
    return options.appendPart(part).then((done) => {
      if (done === undefined) { broken = true; return; }
      const { version } = done;
      // The part's pointers address its own envelope: say which directive of the answer they mean.
      const place = (issue: TraceIssue): TraceIssue => {
        const match = /^\/directives\/(\d+)(.*)$/.exec(issue.pointer ?? '');
        const index = match === null ? undefined : directives[Number(match[1])]?.index;
        return index === undefined ? issue : { ...issue, pointer: `/directives/${index}${match![2]}` };
      };
      soFar.warnings.push(...done.warnings.map(place));
      soFar.errors.push(...done.errors.map(place));
      soFar.parts += 1;
      soFar.through = through;
      if (text !== undefined) soFar.textApplied = true;
      const applied = directives.map((d) => ({ index: d.index, type: d.type, offset: offsets.get(d.index) ?? 0 }));
      soFar.applied.push(...applied);
      options.emit({ kind: 'applied', version, textApplied: text !== undefined, directives: applied });
    }, (error: unknown) => { broken = true; options.onError(error); });
  }

  function handle(events: StreamEvent[]): void {
    for (const event of events) {
      if (event.kind === 'text') { options.emit({ kind: 'text', delta: event.delta, offset: event.offset }); continue; }
      if (event.kind === 'rejected') {
        decided = event.index + 1;
        options.emit({ kind: 'rejected', index: event.index, offset: event.offset, codes: event.errors.map((e) => e.code) });
        continue;
      }
      decided = event.directive.index + 1;
      offsets.set(event.directive.index, event.offset);
      if (options.mode !== 'best-effort' || !open || options.signal?.aborted === true) continue;
      waiting.push(event.directive);
      chain = chain.then(appendNext);
    }
  }

  return {
    reader,
    soFar,
    sink: { text: (delta) => { if (open) handle(reader.push(delta)); } },
    async settle() {
      open = false;
      await chain;
      return soFar;
    },
  };
}
