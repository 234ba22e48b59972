/*
 * The MCP App view's reading of a Surfacer tool result, and the order it applies one in. Pure
 * (no DOM, no App): the view (main.ts) and the tests (test/host-mcp/view-browser.test.ts) both
 * use it.
 *
 * The contract with the server: every Surfacer tool result that concerns the UI carries
 * `structuredContent` = { conversationId, a2ui: { version: 'v0.9', messages }, liveSurfaceIds,
 * outcome?, notice?, tellModel? }. `messages` re-initialise every surface the call changed
 * (createSurface, updateComponents, updateDataModel; never deleteSurface); `liveSurfaceIds` are
 * the surfaces live now: the view drops any other it holds. With the server's
 * SURFACER_MCP_VIEW_ORIGIN, `stream: { url }` names the conversation's native A2UI v0.9 stream
 * (its token in the URL), which the view follows instead where the host lets it.
 */

/** The server tools the view calls (the server registers them visible to the app). */
export const SURFACER_READ_TOOL = 'surfacer_read';
export const SURFACER_VIEW_ACTION_TOOL = 'surfacer_view_action';

export type A2uiMessageVersion = 'v0.9' | 'v0.9.1';
export const VIEW_MESSAGE_VERSION: A2uiMessageVersion = 'v0.9';

export type SurfacerOutcome = 'applied' | 'replayed' | 'stale' | 'refused' | 'shown';
const OUTCOMES: ReadonlySet<string> = new Set(['applied', 'replayed', 'stale', 'refused', 'shown']);

export interface TellModel {
  kind: 'context' | 'message';
  text: string;
}

/** A server→client A2UI message as the view passes it to the processor (checked there). */
export type WireMessage = Record<string, unknown>;

export interface SurfacerResult {
  conversationId: string;
  messages: WireMessage[];
  /** Undefined when the result has none (not the contract's shape): the view then drops nothing. */
  liveSurfaceIds?: string[];
  outcome?: SurfacerOutcome;
  notice?: string;
  tellModel?: TellModel;
  /** The conversation's A2UI v0.9 stream (an http(s) URL), when the server offers it. */
  streamUrl?: string;
}

/** What the view reads of an MCP CallToolResult (the tool-result notification's params, or a callServerTool answer). */
export interface ToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The Surfacer part of a tool result; undefined for an error result, a result of another tool
 * (no `structuredContent.conversationId`), or one whose shape is not the contract's (the view then
 * shows nothing broken: it ignores it).
 */
export function readSurfacerResult(result: ToolResultLike | undefined): SurfacerResult | undefined {
  if (result === undefined || result.isError === true) return undefined;
  const structured = result.structuredContent;
  if (!isRecord(structured) || !isNonEmptyString(structured.conversationId)) return undefined;
  const a2ui = structured.a2ui;
  const messages = isRecord(a2ui) && Array.isArray(a2ui.messages) ? a2ui.messages.filter(isRecord) : [];
  const out: SurfacerResult = { conversationId: structured.conversationId, messages };
  if (Array.isArray(structured.liveSurfaceIds)) out.liveSurfaceIds = structured.liveSurfaceIds.filter(isNonEmptyString);
  if (typeof structured.outcome === 'string' && OUTCOMES.has(structured.outcome)) out.outcome = structured.outcome as SurfacerOutcome;
  if (isNonEmptyString(structured.notice)) out.notice = structured.notice;
  const tell = structured.tellModel;
  if (isRecord(tell) && (tell.kind === 'context' || tell.kind === 'message') && isNonEmptyString(tell.text)) {
    out.tellModel = { kind: tell.kind, text: tell.text };
  }
  const stream = structured.stream;
  if (isRecord(stream) && isNonEmptyString(stream.url) && /^https?:\/\//i.test(stream.url)) out.streamUrl = stream.url;
  return out;
}

/*
 * The stream's event ids (src/host-a2ui/event-id.ts): `<stream>-<v>` ends a batch of messages,
 * `<stream>-<v>.<k>` is a message of a batch that goes on, `<stream>-<v>-i<k>` one of an init
 * (the server could not resume the client: `-i0` starts it) that goes on.
 */
const MID_BATCH = /(?:\.\d+|-i\d+)$/;
const INIT_START = /-i0$/;

/** The stream's messages gathered into the batches the server published, each applied at once. */
export interface StreamBatcher {
  /** One event; the whole batch (and whether it is an init) once its last message came, else undefined. */
  push(data: string, lastEventId: string): { messages: WireMessage[]; init: boolean; unreadable: number } | undefined;
  /** Forget a batch cut short (the connection dropped inside it: the server starts it again). */
  reset(): void;
}

export function createStreamBatcher(): StreamBatcher {
  let messages: WireMessage[] = [];
  let init = false;
  let unreadable = 0;
  return {
    push(data, lastEventId) {
      if (messages.length === 0 && unreadable === 0) init = INIT_START.test(lastEventId);
      try {
        const message: unknown = JSON.parse(data);
        if (isRecord(message)) messages.push(message);
        else unreadable += 1;
      } catch {
        unreadable += 1;
      }
      if (MID_BATCH.test(lastEventId)) return undefined;
      const batch = { messages, init, unreadable };
      messages = [];
      init = false;
      unreadable = 0;
      return batch;
    },
    reset() {
      messages = [];
      init = false;
      unreadable = 0;
    },
  };
}

/** The surface a message addresses (any of its bodies' `surfaceId`). */
export function messageSurfaceId(message: WireMessage): string | undefined {
  for (const [key, body] of Object.entries(message)) {
    if (key === 'version') continue;
    if (isRecord(body) && typeof body.surfaceId === 'string') return body.surfaceId;
  }
  return undefined;
}

export interface ApplyPlan {
  /** deleteSurface messages first: every held surface the messages create again. */
  before: WireMessage[];
  /** The result's messages, in order. */
  messages: WireMessage[];
  /** deleteSurface messages last: every surface still held that is not live. */
  after: WireMessage[];
}

/** The result's messages by the surface they address, in order (messages without one are left out). */
export function messagesBySurface(messages: readonly WireMessage[]): Map<string, WireMessage[]> {
  const by = new Map<string, WireMessage[]>();
  for (const message of messages) {
    const surfaceId = messageSurfaceId(message);
    if (surfaceId === undefined) continue;
    const list = by.get(surfaceId);
    if (list === undefined) by.set(surfaceId, [message]);
    else list.push(message);
  }
  return by;
}

/**
 * The order the view processes a result in: a surface the processor holds and the messages
 * create again is deleted first (the processor refuses a second createSurface, and the new one
 * must start from the server's state, not from what the person typed), then the messages in
 * order, then every surface that is not live is deleted. `skip`: held surfaces whose messages
 * are left out (neither deleted nor created again).
 */
export function planApply(
  held: Iterable<string>, result: SurfacerResult, version: A2uiMessageVersion = VIEW_MESSAGE_VERSION, skip: ReadonlySet<string> = new Set(),
): ApplyPlan {
  const holding = new Set(held);
  const del = (surfaceId: string): WireMessage => ({ version, deleteSurface: { surfaceId } });
  const recreated: string[] = [];
  const after = new Set(holding);
  const messages = result.messages.filter((message) => {
    const surfaceId = messageSurfaceId(message);
    return surfaceId === undefined || !(skip.has(surfaceId) && holding.has(surfaceId));
  });
  for (const message of messages) {
    const create = message.createSurface;
    if (isRecord(create) && typeof create.surfaceId === 'string') {
      if (holding.has(create.surfaceId) && !recreated.includes(create.surfaceId)) recreated.push(create.surfaceId);
      after.add(create.surfaceId);
    }
  }
  const live = result.liveSurfaceIds === undefined ? undefined : new Set(result.liveSurfaceIds);
  const drop = live === undefined ? [] : [...after].filter((id) => !live.has(id));
  return { before: recreated.map(del), messages, after: drop.map(del) };
}

/** The text of a tool result's content (its text blocks, joined), for an error notice. */
export function resultText(result: ToolResultLike | undefined): string | undefined {
  if (result === undefined || !Array.isArray(result.content)) return undefined;
  const texts = result.content
    .filter((block): block is { type: 'text'; text: string } => isRecord(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text.trim())
    .filter((text) => text !== '');
  return texts.length === 0 ? undefined : texts.join('\n');
}

/** A fresh idempotency key: a UUID where the context offers one, else 128 random bits in hex. */
export function newIdempotencyKey(crypto: Pick<Crypto, 'getRandomValues'> & { randomUUID?: () => string }): string {
  if (typeof crypto.randomUUID === 'function') {
    try {
      return crypto.randomUUID();
    } catch {
      // Not a secure context: fall through.
    }
  }
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}
