import { randomUUID } from 'node:crypto';
import { AgentCard, A2A_VERSION_HEADER, Extensions, formatSSEErrorEvent, formatSSEEvent, HTTP_EXTENSION_HEADER, SSE_HEADERS, type SendMessageRequest, type StreamResponse } from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  defaultServerCallContextBuilder, DefaultRequestHandler, JsonRpcTransportHandler, validateVersion, type ServerCallContext,
} from '@a2a-js/sdk/server';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { a2uiWire, type A2uiVersion } from '../compiler/index.ts';
import { CONVERSATION_ID, silentLogger, type ConversationService, type Logger } from '../conversation/index.ts';
import { makeError } from '../errors/index.ts';
import { initMessages, type A2uiHost } from '../host-a2ui/index.ts';
import {
  appCatalogOffer, bodyTextOf, createHeldSurfaces, createRateLimiter, ownerOfPrincipal, principalOf, type CatalogChoice, type RateLimiter,
} from '../hosting/index.ts';
import { createMemoryIdempotencyStore, DEFAULT_IDEMPOTENCY_TTL_MS, type IdempotencyStore } from '../ingress/index.ts';
import { buildAgentCard, legacyAgentCardJson } from './card.ts';
import { A2A_STREAMING, A2UI_STREAM_TOKEN, PrincipalUser, SurfacerAgentExecutor } from './executor.ts';
import { readMessage } from './parts.ts';
import { createBoundedTaskStore } from './task-store.ts';

/*
 * The A2A host: the official @a2a-js/sdk request handler and its framework-agnostic JSON-RPC
 * transport handlers (A2A v1.0, and v0.3 through the SDK's compatibility layer) mounted in Hono,
 * over the same conversation service and ingress as the htmx and A2UI hosts. `contextId` is the
 * conversation: a message without one starts a conversation owned by the caller's principal;
 * another principal's conversation is not found, exactly like a missing one.
 *
 * The route does what the SDK's Express adapter does (version routing by the A2A-Version
 * header, JSON-RPC error envelopes, SSE framing) behind the door every agent endpoint shares
 * (agent-gate.ts): bearer authentication (401), JSON only (415), the body limit (413) and, with
 * no tokens configured, loopback callers only — the same canonical errors as AG-UI's.
 */

export const A2A_PATH = '/a2a';
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

export interface A2aHostOptions {
  service: ConversationService;
  /** The A2UI host whose bridges compile the UI an answer carries (one compile per IR and version). */
  a2ui: Pick<A2uiHost, 'wire'>;
  /** The agent door (agent-gate.ts) run before the route: caller, content type, body within the limit. */
  gate: MiddlewareHandler;
  logger?: Logger;
  rateLimiter?: (name: string, options: { perMinute: number; burst: number }) => RateLimiter;
  /** Text messages already answered (a resent message runs no second turn); shared by every instance. Default: this instance's memory. */
  answered?: IdempotencyStore<{ messageId: string }>;
  /** Conversations one principal may start per minute. Default 120. */
  conversationCreatesPerMinute?: number;
  /** Conversations one principal may own. Default 200. */
  maxConversationsPerOwner?: number;
  /** Epoch resets after client error reports, per surface (the A2UI host's bucket). Default 5. */
  clientResetsPerMinute?: number;
  /** Agent version on the card. Default "1.0.0". */
  version?: string;
  /** A2A tasks this instance remembers (tasks/get, tasks/cancel), oldest forgotten first. Default 10 000. */
  maxTasks?: number;
}

export interface A2aHost {
  mount(app: Hono<any>): void;
}

const legacyVersion = (c: Context): boolean => (c.req.header(A2A_VERSION_HEADER) || '0.3').startsWith('0.');

export function createA2aHost(options: A2aHostOptions): A2aHost {
  const { service } = options;
  const logger = options.logger ?? silentLogger;
  const perMinute = options.conversationCreatesPerMinute ?? 120;
  const maxOwned = options.maxConversationsPerOwner ?? 200;
  const resetsPerMinute = options.clientResetsPerMinute ?? 5;
  const limiter = (name: string, o: { perMinute: number; burst: number }): RateLimiter => options.rateLimiter?.(name, o) ?? createRateLimiter(o);
  const creations = limiter('a2a-conversation-creates', { perMinute, burst: perMinute });
  const version = options.version ?? '1.0.0';

  // A context's client, per wire version and catalogue: what this instance last sent it (held-surfaces.ts).
  const held = createHeldSurfaces();
  const clientOf = (cid: string, wireVersion: A2uiVersion, catalog: CatalogChoice): string => `${cid}\u0000${wireVersion}\u0000${catalog}`;
  const appCatalog = appCatalogOffer(service.app);

  async function ui(cid: string, wireVersion: A2uiVersion, catalog: CatalogChoice) {
    const { bridges } = options.a2ui.wire(wireVersion, catalog);
    if (!(await bridges.prepare(cid))) return [];
    const messages = initMessages(bridges.snapshot(cid), bridges.surfaceIds(cid), a2uiWire(wireVersion).deleteSurface);
    for (const s of bridges.liveSurfaceStates(cid)) held.sent(clientOf(cid, wireVersion, catalog), s.id, s.epoch, s.rev);
    return messages;
  }

  async function step(cid: string, wireVersion: A2uiVersion, catalog: CatalogChoice, surfaceId: string, epoch: number, rev: number) {
    if (!held.holds(clientOf(cid, wireVersion, catalog), surfaceId, epoch, rev)) return undefined;
    const { bridges } = options.a2ui.wire(wireVersion, catalog);
    if (!(await bridges.prepare(cid))) return undefined;
    const found = bridges.lastStepOf(cid, surfaceId, epoch, rev);
    if (found !== undefined) held.sent(clientOf(cid, wireVersion, catalog), surfaceId, epoch, found.rev);
    return found?.messages;
  }

  const executor = new SurfacerAgentExecutor({
    service, ui, step, logger, randomId: randomUUID, ...(appCatalog === undefined ? {} : { appCatalog }),
    answered: options.answered ?? createMemoryIdempotencyStore({ ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
    resets: limiter('a2ui-client-resets', { perMinute: resetsPerMinute, burst: resetsPerMinute }),
  });

  /** Before the SDK builds a task: the conversation the message belongs to, owned by the caller (or a new one). */
  async function admit(params: SendMessageRequest, context: ServerCallContext): Promise<void> {
    const principal = (context.user as PrincipalUser | undefined)?.principal;
    const message = params.message;
    if (principal === undefined || message === undefined) return;
    if (message.taskId) {
      throw new UnsupportedOperationError({ message: 'every message starts a task of its own: continue a conversation with its contextId, without taskId', metadata: { code: 'HTTP_BAD_REQUEST' } });
    }
    const owner = ownerOfPrincipal(principal);
    if (message.contextId) {
      const conversation = CONVERSATION_ID.test(message.contextId) ? await service.get(message.contextId) : undefined;
      if (conversation === undefined || conversation.ownerSessionId !== owner) {
        throw new TaskNotFoundError({ message: 'no such conversation (contextId) for this caller', metadata: { code: 'HTTP_NOT_FOUND' } });
      }
      context.state.set(A2UI_STREAM_TOKEN, conversation.a2uiToken);
      return;
    }
    // Only typed text starts a conversation (an action or an empty message has nothing to act on).
    if (readMessage(message.parts).text === '') {
      throw new RequestMalformedError({ message: 'a message without contextId starts a conversation: it needs text', metadata: { code: 'HTTP_BAD_REQUEST' } });
    }
    if (!(await creations.take(principal.id)) || (await service.countOwnedBy(owner)) >= maxOwned) {
      const error = makeError('HTTP_TOO_MANY_CONVERSATIONS', `over ${perMinute} new conversations a minute or ${maxOwned} in all`);
      throw new UnsupportedOperationError({ message: error.message, metadata: { code: error.code } });
    }
    const created = await service.create(owner);
    message.contextId = created.id;
    context.state.set(A2UI_STREAM_TOKEN, created.a2uiToken);
  }

  // The card the handler holds only decides protocol versions and extensions (its URL is not served).
  const handlerCard = buildAgentCard({ app: service.app, endpoint: `http://localhost${A2A_PATH}`, version });
  const requestHandler = new (class extends DefaultRequestHandler {
    override async sendMessage(params: SendMessageRequest, context: ServerCallContext) {
      await admit(params, context);
      return super.sendMessage(params, context);
    }
    override async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
      await admit(params, context);
      context.state.set(A2A_STREAMING, true);
      yield* super.sendMessageStream(params, context);
    }
  })(handlerCard, createBoundedTaskStore(options.maxTasks ?? 10_000), executor);
  const v1 = new JsonRpcTransportHandler(requestHandler);
  const v03 = new LegacyJsonRpcTransportHandler(requestHandler);

  async function rpc(c: Context): Promise<Response> {
    // The gate let the caller in and read the JSON body within the limit.
    const principal = principalOf(c)!;
    const text = bodyTextOf(c)!;
    const legacy = legacyVersion(c);
    const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return c.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload.' } }, 400);
    }
    const id = idOf(body);
    const context = defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(legacy ? c.req.header(LEGACY_HTTP_EXTENSION_HEADER) ?? c.req.header(HTTP_EXTENSION_HEADER) : c.req.header(HTTP_EXTENSION_HEADER)),
      user: new PrincipalUser(principal),
      // Not the request's headers: the context's state may be logged or stored, the bearer token must not.
      headers: {},
      requestedVersion: c.req.header(A2A_VERSION_HEADER) || undefined,
    });
    let result: unknown;
    try {
      validateVersion(context.requestedVersion, await requestHandler.getAgentCard(), 'JSONRPC');
      // Anything but an object is the handlers' to refuse (invalid request), with the right envelope.
      const request = body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : text;
      result = await (legacy ? v03 : v1).handle(request, context);
    } catch (error) {
      return c.json({ jsonrpc: '2.0', id, error: mapError(error) }, 200);
    }
    // The A2UI extension the executor used for the answer, named back to the client.
    const headers = (): Record<string, string> => {
      const activated = context.activatedExtensions ?? [];
      return { 'Cache-Control': 'no-store', ...(activated.length > 0 ? { [legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER]: activated.join(', ') } : {}) };
    };
    if (!isAsyncIterable(result)) return c.json(result as object, 200, headers());
    // Peek the first event before committing to SSE, so an early failure is a plain JSON-RPC error.
    const iterator = result[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await iterator.next();
    } catch (error) {
      return c.json({ jsonrpc: '2.0', id, error: mapError(error) }, 200, headers());
    }
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        if (first.done) controller.close();
        else controller.enqueue(encoder.encode(formatSSEEvent(first.value)));
      },
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
        } catch (error) {
          logger.warn('A2A stream failed', { error });
          controller.enqueue(encoder.encode(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(error) } as never)));
          controller.close();
        }
      },
      async cancel() {
        await iterator.return?.(undefined);
      },
    });
    // Headers after the first event: by then the executor has chosen the extension.
    return new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...headers() } });
  }

  return {
    mount(app) {
      app.get(AGENT_CARD_PATH, (c) => {
        const input = { app: service.app, endpoint: new URL(A2A_PATH, c.req.url).href, version };
        const card = legacyVersion(c) ? legacyAgentCardJson(input) : AgentCard.toJSON(buildAgentCard(input));
        return c.json(card as object, 200, { Vary: A2A_VERSION_HEADER, 'Cache-Control': 'no-cache' });
      });
      app.post(A2A_PATH, options.gate, async (c) => {
        try {
          return await rpc(c);
        } catch (error) {
          logger.error('A2A request failed', { error });
          return c.json(makeError('INTERNAL_ERROR', 'the A2A request failed'), 500);
        }
      });
    },
  };
}

function idOf(body: unknown): string | number | null {
  const id = body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}
