import { registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { CLIENT_INFO_META_KEY, McpServer, type CallToolResult, type ServerContext, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { BASIC_CATALOG_ID } from '../a2ui-v0_9-protocol/catalog.ts';
import { decodeA2uiSurfaceId } from '../compiler/index.ts';
import {
  AppendConflictError, hostAnswerRefused, silentLogger, StoreUnavailableError, type Conversation, type ConversationService, type Logger,
} from '../conversation/index.ts';
import type { TraceIssue } from '../conversation/trace.ts';
import type { DirectiveDefinition } from '../directives/index.ts';
import { makeError, type SurfacerError } from '../errors/index.ts';
import type { A2uiBridges, A2uiServerMessage } from '../host-a2ui/index.ts';
import { surfacesOfSnapshot } from '../host-agui/surfaces.ts';
import type { RateLimiter } from '../hosting/index.ts';
import type { IngressRequest } from '../ingress/index.ts';
import type { ConversationIr } from '../ui-ir/index.ts';
import {
  changedSurfaceIds, directiveToolName, directiveToolSchema, DirectiveToolArgs, MESSAGE_TOOL, MessageToolArgs, READ_TOOL, ReadToolArgs,
  refusalText, screenText, VIEW_ACTION_TOOL, ViewActionToolArgs,
} from './tools.ts';
import { MCP_VIEW_URI } from './view-html.ts';

/*
 * One MCP server instance (McpServer of the official SDK) over the conversation service: a tool
 * per directive (the host's model is the planner: its call is applied as the planner's answer
 * is, service.applyHostAnswer), a read tool, a tool that runs the app's own planner, the view's
 * action tool (app-only: the model never clicks for the person) through the one ingress, and
 * the view itself (view-html.ts) as the `ui://` resource every UI tool names. Built per HTTP
 * request (the 2026-07-28 protocol is stateless) or per stdio connection, for one caller.
 */

/** `origin` of the changes made through the MCP door. */
export const MCP_ORIGIN = 'mcp';


export interface McpDoorDeps {
  service: ConversationService;
  /** The A2UI host's v0.9 bridges with the basic catalogue (what the view renders). */
  bridges: () => A2uiBridges;
  /** The view's HTML (view-html.ts), built once. */
  viewHtml: () => Promise<string>;
  logger?: Logger;
  serverInfo: { name: string; version: string };
  /** New conversations per caller address a minute, and per owner in all (the other doors' limits). */
  creations: RateLimiter;
  conversationCreatesPerMinute: number;
  maxConversationsPerOwner: number;
  /**
   * The origin where the view can reach this server (`mcpViewStreamOrigin`,
   * SURFACER_MCP_VIEW_ORIGIN): the view's resource declares it, and every UI result names the
   * conversation's native A2UI v0.9 stream there. Absent: the view makes no request of its own.
   */
  viewStreamOrigin?: string;
}

/** Who calls, for one server instance. */
export interface McpCaller {
  /** The conversation owner the caller acts as (ownerOfPrincipal). */
  owner: string;
  /** The rate limiter's key (the peer address; 'stdio' for a local connection). */
  address: string;
  /**
   * A connection that lasts (stdio): the conversation a call without `conversationId` works on,
   * made on first use. Absent (HTTP: no sessions in the protocol): such a call starts a new one.
   */
  connection?: { conversationId?: string };
}

/**
 * A schema the SDK advertises but never enforces: the arguments reach our handlers as sent, so
 * a mistake is answered with the canonical code and pointer the host's model can correct (the
 * directive runner's aliases and normalisers see them first), never an SDK protocol error.
 */
function advertised(schema: z.ZodType): StandardSchemaWithJSON<Record<string, unknown>> {
  const known = advertisedSchemas.get(schema);
  if (known !== undefined) return known;
  const made = advertise(schema);
  advertisedSchemas.set(schema, made);
  return made;
}

/** Converted once per schema: a server instance is built per request, its tools' schemas are not. */
const advertisedSchemas = new WeakMap<z.ZodType, StandardSchemaWithJSON<Record<string, unknown>>>();
const directiveSchemas = new WeakMap<DirectiveDefinition, z.ZodType>();

function directiveInput(definition: DirectiveDefinition): StandardSchemaWithJSON<Record<string, unknown>> {
  let schema = directiveSchemas.get(definition);
  if (schema === undefined) directiveSchemas.set(definition, schema = directiveToolSchema(definition));
  return advertised(schema);
}

function advertise(schema: z.ZodType): StandardSchemaWithJSON<Record<string, unknown>> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    '~standard': {
      version: 1, vendor: 'surfacer',
      validate: (value: unknown) => (value !== null && typeof value === 'object' && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'the arguments must be an object' }] }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/** The UI tools' structured result (the view reads it; view/main.ts has the same contract). */
interface SurfacesContent {
  conversationId: string;
  a2ui: { version: 'v0.9'; messages: A2uiServerMessage[] };
  liveSurfaceIds: string[];
  outcome?: 'applied' | 'replayed' | 'stale' | 'refused' | 'shown';
  notice?: string;
  tellModel?: { kind: 'context' | 'message'; text: string };
  error?: { code: string; pointer?: string };
  /** The conversation's native A2UI v0.9 stream, with its token (only with `viewStreamOrigin`). */
  stream?: { url: string };
}

/** A call refused before it reached the service (not the caller's conversation, too many new ones). */
class Refused {
  constructor(readonly result: CallToolResult) {}
}

function refused(error: SurfacerError): Refused {
  return new Refused(errorResult(error));
}

function errorResult(error: SurfacerError, text?: string, conversationId?: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: text ?? `${error.code}: ${error.message}${error.technical_detail ? ` (${error.technical_detail})` : ''}` }],
    structuredContent: { ...(conversationId ? { conversationId } : {}), error: { code: error.code, ...(error.pointer ? { pointer: error.pointer } : {}) } },
  };
}

/** Zod issues of the tool's own arguments as the runner's issues are quoted (pointer into the arguments). */
function argumentIssues(error: z.ZodError): TraceIssue[] {
  return error.issues.map((i) => ({ code: 'DIRECTIVE_PAYLOAD_INVALID', message: i.message, pointer: `/${i.path.join('/')}`, detail: i.message }));
}

function invalidArguments(error: z.ZodError): CallToolResult {
  const problems = argumentIssues(error);
  return errorResult(makeError('DIRECTIVE_PAYLOAD_INVALID', problems[0]?.message ?? 'invalid arguments', { pointer: problems[0]?.pointer ?? '' }), refusalText(problems));
}

/** Who wrote a directive call, as the trace and the planner badge say: the MCP client's name. */
function clientLabel(ctx: ServerContext, server: McpServer): string {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = (envelope?.[CLIENT_INFO_META_KEY] ?? server.server.getClientVersion()) as { name?: unknown; title?: unknown } | undefined;
  const name = typeof info?.title === 'string' && info.title !== '' ? info.title : typeof info?.name === 'string' ? info.name : '';
  return `${name.slice(0, 80) || 'MCP host'} (MCP)`;
}

/**
 * The view's `_meta.ui`: no domain at all by default (the spec's default CSP is enough), the
 * stream's origin when there is one (`connect-src`, for a host that honours it).
 */
function viewResourceMeta(viewStreamOrigin: string | undefined): { ui: { csp: { connectDomains?: string[] }; prefersBorder: false } } {
  return { ui: { csp: viewStreamOrigin === undefined ? {} : { connectDomains: [viewStreamOrigin] }, prefersBorder: false } };
}

/** The conversation's A2UI v0.9 stream at `origin`, as an EventSource follows it: its bearer token in the URL. */
function viewStreamUrl(origin: string, conversation: Pick<Conversation, 'id' | 'a2uiToken'>): string {
  const url = new URL(`/a2ui/c/${encodeURIComponent(conversation.id)}/stream`, origin);
  url.searchParams.set('v', '0.9');
  url.searchParams.set('token', conversation.a2uiToken);
  return url.href;
}

export function createMcpDoorServer(deps: McpDoorDeps, caller: McpCaller): McpServer {
  const { service } = deps;
  const logger = deps.logger ?? silentLogger;
  const app = service.app;
  const server = new McpServer(deps.serverInfo, {
    capabilities: { tools: {}, resources: {} },
    instructions: instructionsOf(app.name, app.texts?.description, app.directives.definitions.map((d) => directiveToolName(d.type))),
  });
  const ui = { ui: { resourceUri: MCP_VIEW_URI } };

  /** The caller's conversation: `cid` when it is theirs (else not found), or a new one (or the connection's). */
  async function conversationOf(cid: string | undefined, create: boolean): Promise<Conversation | Refused> {
    const wanted = cid ?? caller.connection?.conversationId;
    if (wanted !== undefined) {
      const existing = await service.get(wanted);
      // Someone else's conversation looks exactly like a missing one.
      if (existing !== undefined && existing.ownerSessionId === caller.owner) return existing;
      if (cid !== undefined || !create) return refused(makeError('HTTP_NOT_FOUND', `no conversation ${wanted} for this caller`));
    }
    if (!create) return refused(makeError('HTTP_BAD_REQUEST', 'conversationId is required'));
    if (!(await deps.creations.take(caller.address))) {
      return refused(makeError('HTTP_TOO_MANY_CONVERSATIONS', `over ${deps.conversationCreatesPerMinute} new conversations a minute from this caller`));
    }
    const count = await service.countOwnedBy(caller.owner);
    if (count >= deps.maxConversationsPerOwner) return refused(makeError('HTTP_TOO_MANY_CONVERSATIONS', `${count} conversations`));
    const made = await service.create(caller.owner);
    if (caller.connection) caller.connection.conversationId = made.id;
    return made;
  }

  /** The live surfaces' init messages (v0.9, basic catalogue), those of `only` when given, and every live A2UI id. */
  async function surfacesOf(cid: string, only?: ReadonlySet<string>): Promise<{ messages: A2uiServerMessage[]; liveSurfaceIds: string[] }> {
    const bridges = deps.bridges();
    if (!(await bridges.prepare(cid))) return { messages: [], liveSurfaceIds: [] };
    const live = surfacesOfSnapshot(bridges.snapshot(cid), BASIC_CATALOG_ID);
    const messages: A2uiServerMessage[] = [];
    for (const [a2uiId, list] of live) {
      const irId = decodeA2uiSurfaceId(a2uiId)?.id;
      if (only === undefined || (irId !== undefined && only.has(irId))) messages.push(...list);
    }
    return { messages, liveSurfaceIds: [...live.keys()] };
  }

  /**
   * A UI tool's result: `text` for the model, and for the view (structuredContent) the init
   * messages of the live surfaces (`only` those when given) or `surfaces` already chosen. `forHosts`:
   * the same messages as an embedded resource too, for hosts that render A2UI themselves (the
   * model-facing tools; the view's own action tool needs none).
   */
  async function surfacesResult(
    conversation: Pick<Conversation, 'id' | 'a2uiToken'>, text: string, content: Omit<SurfacesContent, 'conversationId' | 'a2ui' | 'liveSurfaceIds' | 'stream'>,
    choice: { only?: ReadonlySet<string>; surfaces?: { messages: A2uiServerMessage[]; liveSurfaceIds: string[] }; forHosts?: boolean } = {},
  ): Promise<CallToolResult> {
    const cid = conversation.id;
    const { messages, liveSurfaceIds } = choice.surfaces ?? await surfacesOf(cid, choice.only);
    const structured: SurfacesContent = {
      conversationId: cid, a2ui: { version: 'v0.9', messages }, liveSurfaceIds, ...content,
      ...(deps.viewStreamOrigin === undefined ? {} : { stream: { url: viewStreamUrl(deps.viewStreamOrigin, conversation) } }),
    };
    return {
      content: [
        { type: 'text', text },
        ...(choice.forHosts === false ? [] : [{
          type: 'resource' as const,
          resource: { uri: `a2ui://surfacer/${cid}`, mimeType: 'application/a2ui+json', text: JSON.stringify(messages) },
          annotations: { audience: ['user' as const] },
        }]),
      ],
      structuredContent: structured as unknown as Record<string, unknown>,
    };
  }

  /**
   * What the view needs after its accepted action: the view held the surface at the action's
   * epoch and rev (the ingress checked both), so the update from there, as the native stream
   * sent it, when that change is the one the bridge published last; undefined otherwise.
   */
  async function stepAfter(cid: string, request: IngressRequest): Promise<{ messages: A2uiServerMessage[]; liveSurfaceIds: string[] } | undefined> {
    if (request.kind !== 'action') return undefined;
    const bridges = deps.bridges();
    if (!(await bridges.prepare(cid))) return undefined;
    const step = bridges.lastStepOf(cid, request.surfaceId, request.epoch, request.rev);
    return step === undefined ? undefined : { messages: [...step.messages], liveSurfaceIds: bridges.liveSurfaceIds(cid) };
  }

  /** Store trouble and races are the caller's to retry; anything else is a bug, logged. */
  async function guarded(tool: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof StoreUnavailableError) return errorResult(makeError('STORE_UNAVAILABLE', error.message));
      if (error instanceof AppendConflictError) return errorResult(makeError('CONVERSATION_BUSY', 'the conversation changed meanwhile; call again'));
      logger.error('MCP tool failed', { tool, error });
      return errorResult(makeError('INTERNAL_ERROR', 'the tool failed'));
    }
  }

  for (const definition of app.directives.definitions) registerDirectiveTool(definition);

  function registerDirectiveTool(definition: DirectiveDefinition): void {
    const name = directiveToolName(definition.type);
    registerAppTool(server, name, {
      title: definition.type,
      description: `${definition.description} Shows the result to the person in the conversation's view. The person's input comes back to you when they act on it.`,
      inputSchema: directiveInput(definition),
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
      _meta: ui,
    }, (args: Record<string, unknown>, ctx: ServerContext) => guarded(name, async () => {
      const parsed = DirectiveToolArgs.safeParse(args);
      if (!parsed.success) return invalidArguments(parsed.error);
      if (!Object.hasOwn(args, 'payload')) return errorResult(makeError('DIRECTIVE_PAYLOAD_INVALID', 'payload is required', { pointer: '/payload' }), refusalText([{ code: 'DIRECTIVE_PAYLOAD_INVALID', message: 'payload is required', pointer: '/payload' }]));
      const envelope = {
        directives: [{ type: definition.type, payload: args['payload'] }],
        ...(parsed.data.assistant_text === undefined ? {} : { assistant_text: parsed.data.assistant_text }),
      };
      // A call that would start a conversation starts none when it could not apply to it.
      if (parsed.data.conversationId === undefined && caller.connection?.conversationId === undefined) {
        const problems = service.checkHostAnswer(JSON.stringify(envelope));
        if (problems.length > 0) return errorResult(hostAnswerRefused(problems).error, refusalText(problems));
      }
      const conversation = await conversationOf(parsed.data.conversationId, true);
      if (conversation instanceof Refused) return conversation.result;
      const result = await service.applyHostAnswer(conversation.id, { rawText: JSON.stringify(envelope), tool: name, label: clientLabel(ctx, server) }, { origin: MCP_ORIGIN });
      if (!result.ok) {
        if ('problems' in result) return errorResult(result.error, refusalText(result.problems), conversation.id);
        return errorResult(result.error, undefined, conversation.id);
      }
      const changed = new Set(changedSurfaceIds(result.prev, result.next));
      const text = `Done: ${definition.type} applied to conversation ${conversation.id}. ${screenText(result.next)}`;
      return surfacesResult(conversation, text, { outcome: 'shown' }, { only: changed });
    }));
  }

  registerAppTool(server, READ_TOOL, {
    title: 'Read the conversation\'s surfaces',
    description: 'What the person sees now in a conversation: every open surface and what was saved. Changes nothing.',
    inputSchema: advertised(ReadToolArgs),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    _meta: ui,
  }, (args: Record<string, unknown>) => guarded(READ_TOOL, async () => {
    const parsed = ReadToolArgs.safeParse(args);
    if (!parsed.success) return invalidArguments(parsed.error);
    const conversation = await conversationOf(parsed.data.conversationId, false);
    if (conversation instanceof Refused) return conversation.result;
    return surfacesResult(conversation, screenText(conversation.ir), { outcome: 'shown' });
  }));

  registerAppTool(server, MESSAGE_TOOL, {
    title: `Ask ${app.name}'s own assistant`,
    description: `Sends the person's message to ${app.name}'s own assistant, which answers by changing what is on screen. Use it when you have no directive in mind, or to let the app decide.`,
    inputSchema: advertised(MessageToolArgs),
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    _meta: ui,
  }, (args: Record<string, unknown>) => guarded(MESSAGE_TOOL, async () => {
    const parsed = MessageToolArgs.safeParse(args);
    if (!parsed.success) return invalidArguments(parsed.error);
    const conversation = await conversationOf(parsed.data.conversationId, true);
    if (conversation instanceof Refused) return conversation.result;
    const result = await service.runTurn(conversation.id, parsed.data.text, undefined, { origin: MCP_ORIGIN });
    if (!result.ok) return errorResult(result.error, undefined, conversation.id);
    const said = assistantTextAdded(result.prev, result.next);
    const text = `${said === '' ? '' : `The app's assistant said: ${said}\n`}${screenText(result.next)}`;
    return surfacesResult(conversation, text, { outcome: 'shown' }, { only: new Set(changedSurfaceIds(result.prev, result.next)) });
  }));

  registerAppTool(server, VIEW_ACTION_TOOL, {
    title: 'A person acted in the view',
    description: 'Called by the view when the person presses a button. Not for the model.',
    inputSchema: advertised(ViewActionToolArgs),
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    _meta: { ui: { resourceUri: MCP_VIEW_URI, visibility: ['app'] } },
  }, (args: Record<string, unknown>) => guarded(VIEW_ACTION_TOOL, async () => {
    const parsed = ViewActionToolArgs.safeParse(args);
    if (!parsed.success) return invalidArguments(parsed.error);
    const conversation = await conversationOf(parsed.data.conversationId, false);
    if (conversation instanceof Refused) return conversation.result;
    const cid = conversation.id;
    const request = service.ingress.parseA2ui(JSON.stringify(parsed.data.message), { idempotencyKey: parsed.data.idempotencyKey });
    if (!request.ok) return errorResult(request.error, undefined, cid);
    const result = await service.applyAction(cid, request.request, { origin: MCP_ORIGIN, continuedBy: 'caller' });
    if (!result.ok) {
      // Stale, refused values: the view shows the surfaces as they are now and says why.
      const stale = result.error.code === 'A2UI_C2S_SURFACE_STALE';
      const issues = result.issues?.map((i) => `${i.pointer}: ${i.message}`).join('; ');
      const notice = `${result.error.message}${issues ? ` (${issues})` : ''}`;
      const current = await service.get(cid);
      return surfacesResult(conversation, `Not applied: ${result.error.code}. ${notice}`, {
        outcome: stale ? 'stale' : 'refused', notice, error: { code: result.error.code },
      }, { forHosts: false, ...(current === undefined ? {} : { only: new Set(current.ir.surfaces.map((s) => s.id)) }) });
    }
    const touched = new Set([...changedSurfaceIds(result.prev, result.next), result.surfaceId]);
    const title = result.next.surfaces.find((s) => s.id === result.surfaceId)?.view.title ?? result.surfaceId;
    const tellModel = result.kind === 'applied' && result.handedOver !== undefined
      ? { kind: 'message' as const, text: `${result.handedOver.text}\n${JSON.stringify({ conversationId: cid, event: result.handedOver.event })}` }
      : { kind: 'context' as const, text: `The person pressed “${result.kind === 'applied' ? result.action : 'recover'}” on “${title}” in conversation ${cid}. ${screenText(result.next)}` };
    const outcome = result.replayed ? 'replayed' as const : 'applied' as const;
    const step = outcome === 'applied' ? await stepAfter(cid, request.request) : undefined;
    return surfacesResult(conversation, `${outcome === 'replayed' ? 'Already applied' : 'Applied'}: ${tellModel.text}`, {
      outcome, ...(result.kind === 'applied' && result.toast ? { notice: result.toast.text } : {}), ...(outcome === 'applied' ? { tellModel } : {}),
    }, { forHosts: false, ...(step === undefined ? { only: touched } : { surfaces: step }) });
  }));

  const viewMeta = viewResourceMeta(deps.viewStreamOrigin);
  registerAppResource(server, `${app.name} view`, MCP_VIEW_URI, {
    description: `Shows ${app.name}'s surfaces (forms, lists, cards) and lets the person act on them.`,
    _meta: viewMeta,
  }, async () => ({
    contents: [{ uri: MCP_VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: await deps.viewHtml(), _meta: viewMeta }],
  }));

  return server;
}

/** What the assistant said in a change (transcript entries it added). */
function assistantTextAdded(prev: ConversationIr, next: ConversationIr): string {
  const known = new Set(prev.transcript.map((t) => t.id));
  return next.transcript.filter((t) => t.role === 'assistant' && !known.has(t.id)).map((t) => t.text).join('\n');
}

/** Server instructions from the app definition: what it is for, and how its tools go together. */
export function instructionsOf(name: string, description: string | undefined, directiveTools: readonly string[]): string {
  return [
    `${name}${description ? `: ${description}` : ''}.`,
    `You drive what the person sees with the directive tools (${directiveTools.join(', ')}); each shows its result in the conversation's view, where the person fills in and presses buttons.`,
    'The first call starts a conversation: pass the conversationId from its result to every later call.',
    `When the person acts, you are told what they did; ${READ_TOOL} shows what is on screen now, and ${MESSAGE_TOOL} lets ${name}'s own assistant answer instead.`,
    'A refused call changed nothing: its text names the code and the argument to correct.',
  ].join(' ');
}
