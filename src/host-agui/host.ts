import { EventType, type BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { a2uiWire } from '../compiler/index.ts';
import {
  answeredMessage, AppendConflictError, followTurn, silentLogger, StoreUnavailableError, type Conversation, type ConversationService, type Logger, type TurnResult,
} from '../conversation/index.ts';
import { makeError, retryAfterOf, type SurfacerError } from '../errors/index.ts';
import type { A2uiBridges } from '../host-a2ui/index.ts';
import {
  appCatalogOffer, basicCatalogIdOf, bodyTextOf, chooseCatalog, clientAddress, createHeldSurfaces, createRateLimiter, namingBasicCatalog, ownerOfPrincipal, principalOf,
  type CatalogChoice, type RateLimiter,
} from '../hosting/index.ts';
import type { IdempotencyStore, IngressRequest } from '../ingress/index.ts';
import { addedTranscriptEntries, type ConversationIr } from '../ui-ir/index.ts';
import { conversationIdOfThread, parseRunInput, type RunIntent } from './run-input.ts';
import { liveSurfaceIds, liveSurfaces, surfaceDelta, unheldActivities } from './surfaces.ts';

/*
 * The AG-UI host: `POST /ag-ui` takes a RunAgentInput and answers with the run's AG-UI events
 * (text/event-stream, framed by the official @ag-ui/encoder). It is one more client of the
 * conversation service and its one ingress, like the htmx and A2UI hosts: a turn is
 * service.runTurn, an action is service.applyAction on the request the ingress parser made of
 * the client's A2UI v0.9 action, and the UI is the v0.9 bridge's snapshot. Everything that can
 * be refused before the stream starts (token, body, thread ownership, the action's envelope) is
 * an HTTP error with the canonical body; what the service decides during the run (stale UI,
 * busy conversation, a failed planner) is RUN_ERROR with the canonical code.
 *
 * A streamed turn (docs/streaming.md) is forwarded as it happens: the answer's words as one text
 * message's TEXT_MESSAGE_CONTENT deltas, and each applied part's surfaces as ACTIVITY_SNAPSHOTs
 * at once; the end of the run sends only what the client does not hold yet.
 */

export interface AguiHostOptions {
  service: ConversationService;
  /**
   * The v0.9 bridges of the A2UI host (its compiled, cached snapshots) for a catalogue:
   * `a2ui.wire('0.9', catalog).bridges`. A run's catalogue is the one its client advertised.
   */
  bridges: (catalog: CatalogChoice) => A2uiBridges;
  /** The agent door (agent-gate.ts) run before the route: caller, content type, body within the limit. */
  gate: MiddlewareHandler;
  /** User messages a thread has answered (clients resend their history), shared by every instance. */
  answered: IdempotencyStore<{ runId: string }>;
  logger?: Logger;
  /** New conversations per client address a minute (the htmx host's bucket), and per owner in all. */
  conversationCreatesPerMinute: number;
  maxConversationsPerOwner: number;
  rateLimiter?: (name: string, options: { perMinute: number; burst: number }) => RateLimiter;
  /** `: ping` comments while a turn runs, so idle proxies keep the stream. Default 15 000. */
  heartbeatMs?: number;
  path?: string;
}

export interface AguiHost {
  mount(app: Hono<any>): void;
  /** Ends every run in flight (their turns are cancelled like a client going away). */
  close(): void;
}

/** `origin` of the changes made through this host. */
export const AGUI_ORIGIN = 'ag-ui';
export const AGUI_PATH = '/ag-ui';

const V09 = a2uiWire('0.9');

/** A run's client: the catalogue its surfaces are compiled with, and the id it knows the basic one by. */
interface ClientCatalog { readonly choice: CatalogChoice; readonly basicId: string }

function failure(c: Context, error: SurfacerError, status: number, issues?: ReadonlyArray<{ pointer: string; message: string }>): Response {
  c.header('Cache-Control', 'no-store');
  const retryAfter = retryAfterOf(error.code);
  if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
  return c.json(issues && issues.length > 0 ? { ...error, issues } : error, status as 400);
}

/** The assistant's words a change added to the transcript. */
function newAssistantText(prev: ConversationIr, next: ConversationIr): Array<{ id: string; text: string }> {
  return addedTranscriptEntries(prev.transcript, next.transcript).filter((e) => e.role === 'assistant' && e.text !== '').map((e) => ({ id: e.id, text: e.text }));
}

export function createAguiHost(options: AguiHostOptions): AguiHost {
  const { service } = options;
  const logger = options.logger ?? silentLogger;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const perMinute = options.conversationCreatesPerMinute;
  const creations = options.rateLimiter?.('conversation-creates', { perMinute, burst: perMinute }) ?? createRateLimiter({ perMinute, burst: perMinute });
  const running = new Set<AbortController>();
  // Per thread: what this instance last sent its client of each surface (held-surfaces.ts).
  const heldSurfaces = createHeldSurfaces();
  const appCatalog = appCatalogOffer(options.service.app);
  /** Messages being answered on this instance now (the shared store learns of them once answered). */
  const inFlight = new Set<string>();
  const encoder = new EventEncoder();

  /** The caller's conversation of a thread, made on first use; undefined → 404 (someone else's). */
  async function conversationOf(c: Context, cid: string, owner: string, intent: RunIntent): Promise<Conversation | Response | undefined> {
    const existing = await service.get(cid);
    if (existing !== undefined) return existing.ownerSessionId === owner ? existing : undefined;
    // An action names a surface the thread showed: on a thread that does not exist it is nobody's.
    if (intent.kind === 'action') return undefined;
    if (!(await creations.take(clientAddress(c)))) {
      return failure(c, makeError('HTTP_TOO_MANY_CONVERSATIONS', `over ${perMinute} new conversations a minute from this address`), 429);
    }
    // A soft cap, as for browser sessions: racing requests may pass it by as many.
    const count = await service.countOwnedBy(owner);
    if (count >= options.maxConversationsPerOwner) return failure(c, makeError('HTTP_TOO_MANY_CONVERSATIONS', `${count} conversations`), 429);
    try {
      return await service.create(owner, { id: cid });
    } catch (error) {
      if (!(error instanceof AppendConflictError)) throw error;
      // Another run of the same thread (here or on another instance) created it first.
      const made = await service.get(cid);
      return made !== undefined && made.ownerSessionId === owner ? made : undefined;
    }
  }

  /**
   * `request`: the action a run carries, as the ingress parsed it (checked before the stream).
   * `catalog`: what the client's surfaces are compiled with, `basicId` the id its basic catalogue goes by.
   */
  async function run(
    cid: string, threadId: string, runId: string, intent: RunIntent, request: IngressRequest | undefined, catalog: ClientCatalog,
    emit: (event: BaseEvent) => void, signal: AbortSignal,
  ): Promise<void> {
    emit({ type: EventType.RUN_STARTED, threadId, runId } as BaseEvent);
    const bridges = options.bridges(catalog.choice);
    // What a client holds is compiled for its catalogue: a client of the other one is another client.
    const client = catalog.choice === 'app' ? `${cid}\u0000app` : cid;
    // Ids only: the surfaces are compiled at the end, if the run sends them whole.
    const shown = new Set(await liveSurfaceIds(bridges, cid));
    let error: SurfacerError | undefined;
    /** An accepted action's step, as operations to append to the activity its client holds. */
    let step: { a2uiSurfaceId: string; messages: readonly unknown[]; rev: number } | undefined;
    /** What this run sent of each surface (activity message id → content JSON). */
    const held = new Map<string, string>();
    /** The streamed answer's text message: open from its first delta until the turn's result. */
    let streamed: { messageId: string; text: string } | undefined;
    let surfacing: Promise<void> = Promise.resolve();
    const sendSurfaces = async (): Promise<void> => {
      if (signal.aborted) return;
      const live = await liveSurfaces(bridges, cid, catalog.basicId);
      for (const event of unheldActivities(live, shown, V09.deleteSurface, held)) emit(event);
      // Sent now, so deleted at the end if it is gone by then.
      for (const id of live.keys()) shown.add(id);
      await sentWhole();
    };
    /** The client now holds every live surface as the bridge published it last. */
    const sentWhole = async (): Promise<void> => {
      if (!(await bridges.prepare(cid))) return;
      for (const s of bridges.liveSurfaceStates(cid)) heldSurfaces.sent(client, s.id, s.epoch, s.rev);
    };
    /** Follows the turn this run runs (the service hands it that turn's events only): its words and applied parts. */
    const follow = followTurn({
      text(delta, turnIndex) {
        if (signal.aborted) return;
        if (streamed === undefined) {
          // One text message per turn; the transcript's id is not drawn until the text is applied.
          streamed = { messageId: `${runId}-answer-${turnIndex}`, text: '' };
          emit({ type: EventType.TEXT_MESSAGE_START, messageId: streamed.messageId, role: 'assistant' } as BaseEvent);
        }
        streamed.text += delta;
        emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: streamed.messageId, delta } as BaseEvent);
      },
      applied() {
        if (signal.aborted) return;
        surfacing = surfacing.then(sendSurfaces).catch((error: unknown) => {
          logger.warn('AG-UI: a streamed part\'s surfaces could not be sent (the end of the run sends them)', { cid, error });
        });
      },
    });
    /**
     * Ends the streamed text message with the answer's text as validated: a continuation of the
     * preview is sent as more content (the usual case: the same text). Returns the assistant's
     * entries it did not cover (a text that differs from the preview is a message of its own).
     */
    const closeStreamed = (entries: Array<{ id: string; text: string }>): Array<{ id: string; text: string }> => {
      const open = streamed;
      if (open === undefined) return entries;
      streamed = undefined;
      const same = entries.find((e) => e.text.startsWith(open.text));
      if (same !== undefined && same.text.length > open.text.length) {
        emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: open.messageId, delta: same.text.slice(open.text.length) } as BaseEvent);
      }
      emit({ type: EventType.TEXT_MESSAGE_END, messageId: open.messageId } as BaseEvent);
      return entries.filter((e) => e !== same);
    };
    const say = (entries: Array<{ id: string; text: string }>): void => {
      for (const { id, text } of entries) {
        emit({ type: EventType.TEXT_MESSAGE_START, messageId: id, role: 'assistant' } as BaseEvent);
        emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta: text } as BaseEvent);
        emit({ type: EventType.TEXT_MESSAGE_END, messageId: id } as BaseEvent);
      }
    };
    /** A turn's tool loop, as the calls AG-UI has events for (they ran on the server: results included). */
    const tools = (result: Extract<TurnResult, { ok: true }>): void => {
      for (const step of result.trace.tool_loop?.steps ?? []) {
        const toolCallId = `${result.trace.request_id}-tool-${step.index}`;
        emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: step.name } as BaseEvent);
        if (step.arguments !== '') emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: step.arguments } as BaseEvent);
        emit({ type: EventType.TOOL_CALL_END, toolCallId } as BaseEvent);
        emit({ type: EventType.TOOL_CALL_RESULT, messageId: `${toolCallId}-result`, toolCallId, content: step.result, role: 'tool' } as BaseEvent);
      }
    };
    /** `before`: the IR before the turn (a streamed turn's parts add its words before its own entry, whose `prev` follows them). */
    const turnDone = (result: TurnResult | undefined, before: ConversationIr | undefined): void => {
      if (result === undefined || !result.ok) {
        closeStreamed([]);
        if (result !== undefined && !result.ok) error = result.error;
        return;
      }
      const rest = closeStreamed(newAssistantText(before ?? result.prev, result.next));
      tools(result);
      say(rest);
      if (result.error !== undefined) error = result.error;
    };

    if (intent.kind === 'turn') {
      const key = `${cid}\n${intent.messageId}`;
      // Claimed before the first await: two runs of one resent history cannot both start the turn.
      if (!inFlight.has(key)) {
        inFlight.add(key);
        try {
          // Already answered: the history was resent; nothing runs again.
          if ((await options.answered.get(key)) === undefined) {
            const before = (await service.get(cid))?.ir;
            // An answered message is done, and so is one whose streamed directives were applied
            // before a cancel or failure (running it again would apply them twice). Otherwise the
            // client's retry sends the same history and the message runs again. Checked and
            // recorded under the conversation's turn gate: a resend that reached another instance
            // while the message ran waits for it, then finds it answered (MESSAGE_ALREADY_ANSWERED).
            // The turn is applied whatever happens to the record: a failure to keep it is not the run's.
            const message = answeredMessage(options.answered, key, { runId }, (error) => {
              logger.warn('AG-UI: could not record the message as answered; a resend of it would run again', { cid, error });
            });
            const result = await service.runTurn(cid, intent.text, signal, { origin: AGUI_ORIGIN, onStream: follow, message });
            await surfacing;
            // Answered meanwhile: nothing ran; the run sends the UI as it is.
            if (result.ok || result.error.code !== 'MESSAGE_ALREADY_ANSWERED') turnDone(result, before);
          }
        } finally {
          inFlight.delete(key);
        }
      }
    } else if (intent.kind === 'action' && request !== undefined) {
      shown.add(wireSurfaceId(intent.body));
      const result = await service.applyAction(cid, request, { origin: AGUI_ORIGIN, signal, onStream: follow });
      if (!result.ok) {
        error = result.error;
      } else if (result.kind === 'applied' && result.continuation === undefined && !result.replayed && request.kind === 'action') {
        // Accepted: the client held the surface at the action's epoch and rev (its nonce and rev
        // passed the ingress), so the change since then is what it needs, as the native stream
        // sends it. Only when that change is the one the bridge published last; else snapshots.
        // And only for a surface this client was sent at that rev by this instance (held-surfaces.ts).
        if (heldSurfaces.holds(client, request.surfaceId, request.epoch, request.rev) && await bridges.prepare(cid)) {
          step = bridges.lastStepOf(cid, request.surfaceId, request.epoch, request.rev);
          if (step !== undefined) heldSurfaces.sent(client, request.surfaceId, request.epoch, step.rev);
        }
      } else if (result.kind === 'applied' && result.continuation !== undefined) {
        // The action continues the conversation: its turn is a step of this run.
        const stepName = `continue:${result.action}`;
        emit({ type: EventType.STEP_STARTED, stepName } as BaseEvent);
        const onAbort = (): void => { void service.cancelTurn(cid).catch(() => false); };
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          const turn = await result.continuation;
          await surfacing;
          turnDone(turn, result.next);
        } finally {
          signal.removeEventListener('abort', onAbort);
        }
        emit({ type: EventType.STEP_FINISHED, stepName } as BaseEvent);
      }
    }
    if (signal.aborted) return;
    if (step !== undefined && error === undefined) {
      if (step.messages.length > 0) emit(surfaceDelta(step.a2uiSurfaceId, namingBasicCatalog(step.messages, catalog.basicId) as never));
      emit({ type: EventType.RUN_FINISHED, threadId, runId } as BaseEvent);
      return;
    }
    // The UI as it is now (re-initialising a client that acted on a stale one), then the end.
    closeStreamed([]);
    const after = await liveSurfaces(bridges, cid, catalog.basicId);
    for (const event of unheldActivities(after, shown, V09.deleteSurface, held)) emit(event);
    await sentWhole();
    if (error !== undefined) {
      emit({ type: EventType.RUN_ERROR, message: error.message, code: error.code } as BaseEvent);
    } else {
      emit({ type: EventType.RUN_FINISHED, threadId, runId } as BaseEvent);
    }
  }

  function mount(app: Hono<any>): void {
    app.post(options.path ?? AGUI_PATH, options.gate, async (c) => {
      // The gate let the caller in and read the JSON body within the limit.
      const principal = principalOf(c)!;
      const parsed = parseRunInput(bodyTextOf(c)!);
      if (!parsed.ok) return failure(c, parsed.error, parsed.status, parsed.issues);
      const { input, intent } = parsed;
      const cid = conversationIdOfThread(input.threadId);
      let conversation: Conversation | Response | undefined;
      try {
        conversation = await conversationOf(c, cid, ownerOfPrincipal(principal), intent);
      } catch (error) {
        if (error instanceof StoreUnavailableError) return failure(c, makeError('STORE_UNAVAILABLE', error.message), 503);
        throw error;
      }
      if (conversation instanceof Response) return conversation;
      // Someone else's thread looks exactly like a missing one.
      if (conversation === undefined) return failure(c, makeError('HTTP_NOT_FOUND', 'no such thread for this caller'), 404);
      let request: IngressRequest | undefined;
      if (intent.kind === 'action') {
        // The envelope is checked before the stream: a malformed action is a 4xx, like on /events.
        const parsedAction = service.ingress.parseA2ui(intent.body, { idempotencyKey: input.runId });
        if (!parsedAction.ok) return failure(c, parsedAction.error, parsedAction.status, parsedAction.issues);
        request = parsedAction.request;
      }
      const catalog = { choice: chooseCatalog(appCatalog, parsed.catalogs, '0.9'), basicId: basicCatalogIdOf(parsed.catalogs) };
      return stream(c, cid, input.threadId, input.runId, intent, request, catalog);
    });
  }

  function stream(
    c: Context, cid: string, threadId: string, runId: string, intent: RunIntent, request: IngressRequest | undefined, catalog: ClientCatalog,
  ): Response {
    const controller = new AbortController();
    running.add(controller);
    const abort = (): void => controller.abort();
    c.req.raw.signal.addEventListener('abort', abort, { once: true });
    const bytes = new TextEncoder();
    let timer: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(sink) {
        let open = true;
        // Events of one tick go out in one chunk (one socket write, not one per event).
        let pending = '';
        const flush = (): void => {
          const text = pending;
          pending = '';
          if (!open || text === '') return;
          try {
            sink.enqueue(bytes.encode(text));
          } catch {
            open = false;
          }
        };
        const write = (text: string): void => {
          if (pending === '') setImmediate(flush);
          pending += text;
        };
        timer = setInterval(() => write(': ping\n\n'), heartbeatMs);
        timer.unref?.();
        const emit = (event: BaseEvent): void => write(encoder.encodeSSE(event));
        void run(cid, threadId, runId, intent, request, catalog, emit, controller.signal).catch((error: unknown) => {
          const stored = error instanceof StoreUnavailableError;
          if (!stored) logger.error('AG-UI run failed', { cid, error });
          const e = stored ? makeError('STORE_UNAVAILABLE', (error as Error).message) : makeError('INTERNAL_ERROR', 'the run failed');
          emit({ type: EventType.RUN_ERROR, message: e.message, code: e.code } as BaseEvent);
        }).finally(() => {
          clearInterval(timer);
          running.delete(controller);
          c.req.raw.signal.removeEventListener('abort', abort);
          flush();
          if (!open) return;
          open = false;
          try {
            sink.close();
          } catch {
            // already cancelled by the client
          }
        });
      },
      // The client went away: its turn is cancelled (the service's signal), its events dropped.
      cancel() {
        clearInterval(timer);
        controller.abort();
      },
    });
    return new Response(body, {
      status: 200,
      headers: {
        'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  }

  return {
    mount,
    close() {
      for (const controller of running) controller.abort();
    },
  };
}

/** The A2UI surface id an action names (its client may hold that surface: a stale one is deleted). */
function wireSurfaceId(body: string): string {
  try {
    const id = (JSON.parse(body) as { action?: { surfaceId?: unknown } }).action?.surfaceId;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}

