import { createHash } from 'node:crypto';
import { A2A_PROTOCOL_VERSION, Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type User } from '@a2a-js/sdk/server';
import { a2uiWireOfMessageVersion, type A2uiVersion } from '../compiler/index.ts';
import { answeredMessage, followTurn, StoreUnavailableError, type ConversationService, type Logger, type TurnStreamListener } from '../conversation/index.ts';
import type { IdempotencyStore } from '../ingress/index.ts';
import { makeError, type SurfacerError } from '../errors/index.ts';
import { asTheIrHeldIt, type A2uiServerMessage } from '../host-a2ui/index.ts';
import { namingBasicCatalog, type AppCatalogOffer, type CatalogChoice, type Principal, type RateLimiter } from '../hosting/index.ts';
import { addedTranscriptEntries, type ConversationIr } from '../ui-ir/index.ts';
import { A2UI_EXTENSION_URIS, chooseBasicCatalogId, chooseMessageCatalog, chooseWireVersion } from './capabilities.ts';
import { a2uiParts, jsonPart, readMessage, textPart } from './parts.ts';

/*
 * One A2A task per client message, over the conversation service: the message's text is a
 * planner turn, its A2UI data parts are actions through the one ingress (allowlist, nonce, epoch,
 * rev, limits, idempotency keyed by the A2A messageId). The task's states follow: working while
 * it runs, then completed (the answer's text, and the UI for clients that sent A2UI
 * capabilities), failed with the canonical error, or canceled by tasks/cancel.
 *
 * The UI an answer carries is a full re-initialisation of the conversation's surfaces in the
 * turn's wire version (`deleteSurface`s, then the snapshot), taken from the A2UI host's bridges:
 * compiled once per IR and version, whoever asks, and right whatever the client missed between
 * turns (other transports, other instances). A stale action fails, and its answer re-initialises.
 * The one exception: an accepted action proves its client held the surface at the action's
 * epoch and rev (the A2UI renderer keeps a surface until told to delete it), so its answer
 * carries just the update from there, in the action's own wire version, when that update is
 * the one the bridge published last.
 *
 * On `message/stream` a streamed turn (docs/streaming.md) is forwarded as it happens: the
 * answer's words as an `answer` artifact's text chunks (TaskArtifactUpdateEvent, `append`), and
 * the UI after each applied part as a working status whose message carries it (the same full
 * re-initialisation). The completed status still carries the whole answer and UI, as on
 * `message/send`, which forwards nothing before the end.
 */

/** `origin` recorded on changes made through this host. */
export const A2A_ORIGIN = 'a2a';

/** Where admission leaves the conversation's A2UI token for the executor (ServerCallContext.state). */
export const A2UI_STREAM_TOKEN = 'surfacer.a2uiToken';

/** Set (true) by the host on ServerCallContext.state for `message/stream`: forward the turn as it happens. */
export const A2A_STREAMING = 'surfacer.streaming';

/** The SDK's view of a principal (tasks are scoped by `userName`, so one principal never sees another's). */
export class PrincipalUser implements User {
  constructor(readonly principal: Principal) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.principal.id;
  }
}

export interface ExecutorDeps {
  service: ConversationService;
  /**
   * A2UI messages bringing a client of `version` from anything to the conversation's current
   * state, compiled with the catalogue its message advertised (catalog-choice.ts).
   */
  ui(cid: string, version: A2uiVersion, catalog: CatalogChoice): Promise<readonly A2uiServerMessage[]>;
  /**
   * The update a client of `version` holding IR surface `surfaceId` at (`epoch`, `rev`) needs,
   * when the conversation's last change was exactly that surface's step from there; else undefined.
   */
  step(cid: string, version: A2uiVersion, catalog: CatalogChoice, surfaceId: string, epoch: number, rev: number): Promise<readonly A2uiServerMessage[] | undefined>;
  /** The app catalogue, when the app has components: a message whose capabilities name it gets them. */
  appCatalog?: AppCatalogOffer;
  /** Epoch resets after client `error` reports (shared with the A2UI host's bucket). */
  resets: RateLimiter;
  /** Text messages already answered, by `<cid>\n<messageId>` (a client resending one runs no second turn); shared by every instance. */
  answered?: IdempotencyStore<{ messageId: string }>;
  logger: Logger;
  randomId(): string;
}

type Outcome =
  | { kind: 'completed'; prev: ConversationIr; next: ConversationIr; notes: string[]; step?: readonly A2uiServerMessage[] }
  | { kind: 'failed'; error: SurfacerError; issues?: ReadonlyArray<{ pointer: string; message: string }> }
  | { kind: 'canceled' };

interface Running {
  readonly cid: string;
  readonly controller: AbortController;
  /** A terminal status was published: nothing more goes on the bus. */
  done: boolean;
}

export class SurfacerAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, Running>();
  /** Text messages being answered on this instance now (claimed before the first await). */
  private readonly answering = new Set<string>();

  constructor(private readonly deps: ExecutorDeps) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId: cid } = ctx;
    const message = ctx.userMessage;
    const running: Running = { cid, controller: new AbortController(), done: false };
    this.running.set(taskId, running);
    const activated = [...(ctx.context.requestedExtensions ?? []), ...(message.extensions ?? [])];
    const version = chooseWireVersion(message.metadata, activated, this.deps.appCatalog?.id);
    if (version !== undefined) ctx.context.addActivatedExtension(A2UI_EXTENSION_URIS[version]);
    // Like the wire version, the catalogue is the message's: each answer is compiled for its client.
    const catalog = version === undefined ? 'basic' : chooseMessageCatalog(message.metadata, version, this.deps.appCatalog);
    /** The UI as it is now, for this message's client (its version, catalogue, and the id it knows the basic one by). */
    const currentUi = async (v: A2uiVersion): Promise<readonly A2uiServerMessage[]> =>
      namingBasicCatalog(await this.deps.ui(cid, v, catalog), chooseBasicCatalogId(message.metadata, v));
    // The v0.3 shape has no list-valued DataPart: one A2UI message per part there.
    const onePerPart = ctx.context.requestedVersion !== A2A_PROTOCOL_VERSION;
    const status = (state: TaskState, parts?: Part[], metadata?: Record<string, unknown>): void => {
      if (running.done) return;
      if (state !== TaskState.TASK_STATE_WORKING) running.done = true;
      bus.publish(AgentEvent.statusUpdate({
        taskId, contextId: cid, metadata: {},
        status: { state, timestamp: new Date().toISOString(), message: parts === undefined ? undefined : this.agentMessage(cid, taskId, parts, metadata) },
      }));
    };
    /** The streamed answer's text sent so far as the `answer` artifact. */
    let streamedText = '';
    let surfacing: Promise<void> = Promise.resolve();
    const artifactId = `${taskId}-answer`;
    const chunk = (text: string, append: boolean, lastChunk: boolean): void => {
      if (running.done) return;
      bus.publish(AgentEvent.artifactUpdate({
        taskId, contextId: cid, append, lastChunk, metadata: undefined,
        artifact: { artifactId, name: 'answer', description: 'the assistant\'s words as they are written', parts: [textPart(text)], metadata: undefined, extensions: [] },
      }));
    };
    const follow = ctx.context.state.get(A2A_STREAMING) !== true ? undefined : followTurn({
      text: (delta) => {
        chunk(delta, streamedText !== '', false);
        streamedText += delta;
      },
      applied: () => {
        if (version === undefined) return;
        surfacing = surfacing.then(async () => {
          if (running.done) return;
          const parts = a2uiParts(await currentUi(version), version, onePerPart);
          if (parts.length > 0) status(TaskState.TASK_STATE_WORKING, parts);
        }).catch((error: unknown) => this.deps.logger.warn('A2A: a streamed part\'s UI could not be sent (the answer carries it)', { cid, taskId, error }));
      },
    });
    /** Ends the `answer` artifact: the rest of the validated text when it continues the preview. */
    const endText = async (final: string): Promise<void> => {
      await surfacing;
      if (streamedText === '') return;
      chunk(final.startsWith(streamedText) ? final.slice(streamedText.length) : '', true, true);
      streamedText = '';
    };
    try {
      // The conversation's own A2UI stream, for its owner: the same UI live, whoever changes it
      // (other transports, other instances), as the htmx page offers its session.
      const token = ctx.context.state.get(A2UI_STREAM_TOKEN);
      const stream = typeof token === 'string' ? { a2uiStream: { url: `/a2ui/c/${cid}/stream`, token } } : {};
      bus.publish(AgentEvent.task({
        id: taskId, contextId: cid, artifacts: [], history: [message], metadata: stream,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
      }));
      const principal = (ctx.context.user as PrincipalUser | undefined)?.principal;
      const outcome = principal === undefined
        ? { kind: 'failed' as const, error: makeError('HTTP_NOT_FOUND', 'no principal') }
        : await this.run(cid, message, version, catalog, running.controller.signal, follow);
      const ui = async (): Promise<Part[]> => (version === undefined ? [] : a2uiParts(await currentUi(version), version, onePerPart));
      await endText(outcome.kind === 'completed' ? replyText(outcome) : '');
      if (outcome.kind === 'completed') {
        const step = version !== undefined && outcome.step !== undefined ? a2uiParts(outcome.step, version, onePerPart) : undefined;
        status(TaskState.TASK_STATE_COMPLETED, [textPart(replyText(outcome)), ...(step ?? await ui())]);
      } else if (outcome.kind === 'canceled') {
        status(TaskState.TASK_STATE_CANCELED, [textPart(makeError('PLANNER_CANCELLED', 'cancelled').message)]);
      } else {
        const error = outcome.issues && outcome.issues.length > 0 ? { ...outcome.error, issues: outcome.issues } : outcome.error;
        // A refusal whose way out is a fresh rendering (stale surface, unknown item or action)
        // comes with the current UI, so the renderer recovers without another round trip.
        const recover = error.recovery_path === 'regenerate' ? await ui() : [];
        status(TaskState.TASK_STATE_FAILED, [textPart(error.message), jsonPart(error), ...recover], { error });
      }
    } catch (thrown) {
      const error = thrown instanceof StoreUnavailableError
        ? makeError('STORE_UNAVAILABLE', thrown.message)
        : makeError('INTERNAL_ERROR', 'the A2A task failed');
      if (!(thrown instanceof StoreUnavailableError)) this.deps.logger.error('A2A task failed', { cid, taskId, error: thrown });
      status(TaskState.TASK_STATE_FAILED, [textPart(error.message), jsonPart(error)], { error });
    } finally {
      this.running.delete(taskId);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const running = this.running.get(taskId);
    if (running === undefined || running.done) return;
    running.controller.abort();
    running.done = true;
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId: running.cid, metadata: {},
      status: {
        state: TaskState.TASK_STATE_CANCELED, timestamp: new Date().toISOString(),
        message: this.agentMessage(running.cid, taskId, [textPart(makeError('PLANNER_CANCELLED', 'cancelled by tasks/cancel').message)]),
      },
    }));
  };

  private agentMessage(cid: string, taskId: string, parts: Part[], metadata?: Record<string, unknown>): Message {
    return {
      messageId: this.deps.randomId(), contextId: cid, taskId, role: Role.ROLE_AGENT, parts,
      metadata, extensions: [], referenceTaskIds: [],
    };
  }

  /** `follow`: on message/stream, hears the turn this task runs. */
  private async run(
    cid: string, message: Message, version: A2uiVersion | undefined, catalog: CatalogChoice, signal: AbortSignal, follow?: TurnStreamListener,
  ): Promise<Outcome> {
    const read = readMessage(message.parts);
    if (read.a2ui.length > 0) return this.actions(cid, read.a2ui, message.messageId, version, catalog, signal, follow);
    if (read.text === '') return { kind: 'failed', error: makeError('HTTP_BAD_REQUEST', 'the message holds neither text nor an A2UI action') };
    // A message resent (its answer was lost on the way): answered with the UI as it is, no second turn.
    const key = `${cid}\n${message.messageId}`;
    const answeredAlready = async (): Promise<Outcome> => {
      const current = (await this.deps.service.get(cid))?.ir;
      if (current === undefined) return { kind: 'failed', error: makeError('HTTP_NOT_FOUND', 'no such conversation') };
      return { kind: 'completed', prev: current, next: current, notes: ['This message was answered already.'] };
    };
    if (this.answering.has(key) || (await this.deps.answered?.get(key)) !== undefined) return answeredAlready();
    this.answering.add(key);
    // The IR before the turn: a streamed turn's parts add the words before its own entry (whose `prev` follows them).
    let before: ConversationIr | undefined;
    let turn;
    try {
      before = (await this.deps.service.get(cid))?.ir;
      // Checked and recorded under the conversation's turn gate: a resend that reached another
      // instance while the message ran waits for it, then finds it answered. The turn is applied
      // whatever happens to the record: a failure to keep it is not the task's.
      const answered = this.deps.answered === undefined ? undefined : answeredMessage(this.deps.answered, key, { messageId: message.messageId }, (error) => {
        this.deps.logger.warn('A2A: could not record the message as answered; a resend of it would run again', { cid, error });
      });
      turn = await this.deps.service.runTurn(cid, read.text, signal, { origin: A2A_ORIGIN, ...(follow ? { onStream: follow } : {}), ...(answered ? { message: answered } : {}) });
    } finally {
      this.answering.delete(key);
    }
    if (!turn.ok && turn.error.code === 'MESSAGE_ALREADY_ANSWERED') return answeredAlready();
    if (!turn.ok) return { kind: 'failed', error: turn.error };
    if (turn.outcome === 'cancelled' || signal.aborted) return { kind: 'canceled' };
    if (turn.outcome === 'planner_failed') return { kind: 'failed', error: turn.error ?? makeError('PLANNER_FAILED', 'planner failed') };
    return { kind: 'completed', prev: before ?? turn.prev, next: turn.next, notes: [] };
  }

  /**
   * Each A2UI client message of the A2A message, in order, through the same parser and
   * service call as `POST /a2ui/c/{cid}/events`. The idempotency key comes from the A2A
   * messageId (a client resending a message applies it once).
   */
  private async actions(
    cid: string, messages: readonly unknown[], messageId: string, version: A2uiVersion | undefined, catalog: CatalogChoice,
    signal: AbortSignal, follow?: TurnStreamListener,
  ): Promise<Outcome> {
    const { service } = this.deps;
    const notes: string[] = [];
    // The IR before the first change and after the last, as the service answered them (no extra reads).
    let prev: ConversationIr | undefined;
    let next: ConversationIr | undefined;
    for (const [index, raw] of messages.entries()) {
      const idempotencyKey = `a2a-${createHash('sha256').update(`${messageId}\n${index}`).digest('base64url').slice(0, 32)}`;
      const parsed = service.ingress.parseA2ui(JSON.stringify(raw) ?? 'null', { idempotencyKey });
      if (!parsed.ok) return { kind: 'failed', error: parsed.error, ...(parsed.issues ? { issues: parsed.issues } : {}) };
      const wire = a2uiWireOfMessageVersion(parsed.dialect === 'v0.8' ? undefined : parsed.dialect)!;
      const request = asTheIrHeldIt(parsed.request, wire);
      const result = await service.applyAction(cid, request, { origin: A2A_ORIGIN, signal, ...(follow ? { onStream: follow } : {}) });
      if (!result.ok) return { kind: 'failed', error: result.error, ...(result.issues ? { issues: result.issues } : {}) };
      // One accepted action, answered in the version it was sent in: the step from what its client held.
      if (messages.length === 1 && result.kind === 'applied' && !result.replayed && result.continuation === undefined
        && request.kind === 'action' && wire.version === version) {
        const step = await this.deps.step(cid, version, catalog, request.surfaceId, request.epoch, request.rev);
        const notes = result.toast ? [result.toast.text] : [];
        return { kind: 'completed', prev: result.prev, next: result.next, notes, ...(step !== undefined ? { step } : {}) };
      }
      prev ??= result.prev;
      next = result.next;
      if (result.kind === 'recover') {
        // As the A2UI host does: a renderer that could not show a surface gets it rebuilt under
        // a new epoch, once per reported epoch, within the shared per-surface budget.
        const stillBroken = result.next.surfaces.find((s) => s.id === result.surfaceId)?.epoch === result.epoch;
        if (result.recovery === 'epoch_reset' && (!result.replayed || stillBroken) && await this.deps.resets.take(`${cid}\n${result.surfaceId}`)) {
          const reset = await service.resetSurfaceEpoch(cid, result.surfaceId, { reason: 'a2ui_client_error', origin: A2A_ORIGIN, ifEpoch: result.epoch });
          if (reset.ok) next = reset.next;
        }
        continue;
      }
      if (result.toast) notes.push(result.toast.text);
      if (result.continuation) {
        const turn = await result.continuation;
        if (turn !== undefined && !turn.ok) return { kind: 'failed', error: turn.error };
        if (turn !== undefined) next = turn.next;
      }
    }
    return { kind: 'completed', prev: prev!, next: next!, notes };
  }
}

/** What the assistant said in this task: its new transcript entries and the action's toasts. */
function replyText(outcome: { prev: ConversationIr; next: ConversationIr; notes: string[] }): string {
  const said = addedTranscriptEntries(outcome.prev.transcript, outcome.next.transcript)
    .filter((entry) => entry.role !== 'user')
    .map((entry) => entry.text);
  const text = [...said, ...outcome.notes].join('\n').trim();
  return text === '' ? 'Done.' : text;
}
