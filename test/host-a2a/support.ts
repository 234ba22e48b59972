import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client,
} from '@a2a-js/sdk/client';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { STANDARD_CATALOG_ID } from '../../src/compiler/index.ts';
import { A2UI_MIME, A2UI_MIME_LEGACY } from '../../src/host-a2a/index.ts';

/** A fetch that adds `Authorization: Bearer <token>` (the SDK takes a fetchImpl for that). */
export function bearerFetch(token: string | undefined): typeof fetch {
  if (token === undefined) return fetch;
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/**
 * The official A2A client (v1.0 JSON-RPC, or the v0.3 compat transport), from the agent card
 * at `base`. A v0.3 client reads the card as a v0.3 client would (no A2A-Version header).
 */
export async function a2aClient(base: string, options: { token?: string; legacy?: boolean; fetchImpl?: typeof fetch } = {}): Promise<Client> {
  const fetchImpl = options.fetchImpl ?? bearerFetch(options.token);
  const legacyCompat = { enabled: options.legacy === true };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
  }));
  if (!options.legacy) return factory.createFromUrl(base);
  const card = (await (await fetchImpl(new URL('/.well-known/agent-card.json', base))).json()) as Parameters<ClientFactory['createFromAgentCard']>[0];
  return factory.createFromAgentCard(card);
}

export const CAPS_V09 = { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID] } } };
export const CAPS_V091 = { a2uiClientCapabilities: { 'v0.9.1': { supportedCatalogIds: [BASIC_CATALOG_ID] } } };
export const CAPS_V08 = { a2uiClientCapabilities: { supportedCatalogIds: [STANDARD_CATALOG_ID] } };

export function text(value: string): Part {
  return { content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

/** An A2UI client message as the extension spec writes it: a data part, list-valued, with its MIME type. */
export function a2uiData(messages: readonly unknown[], mime = A2UI_MIME_LEGACY): Part {
  return { content: { $case: 'data', value: [...messages] }, mediaType: mime, filename: '', metadata: { mimeType: mime } };
}

export function userMessage(parts: Part[], options: { contextId?: string; metadata?: Record<string, unknown>; messageId?: string } = {}): Message {
  return {
    messageId: options.messageId ?? randomUUID(), contextId: options.contextId ?? '', taskId: '', role: Role.ROLE_USER, parts,
    metadata: options.metadata, extensions: [], referenceTaskIds: [],
  };
}

export function send(client: Client, message: Message) {
  return client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined });
}

export function isTask(value: Message | Task): value is Task {
  return 'status' in value && 'id' in value;
}

/** A blocking send that must answer with a task. */
export async function sendTask(client: Client, message: Message): Promise<Task> {
  const result = await send(client, message);
  if (!isTask(result)) throw new Error(`expected a task, got a message ${JSON.stringify(result).slice(0, 300)}`);
  return result;
}

/** Every A2UI message a status message carries, in order (list-valued parts flattened), with the parts' MIME types. */
export function a2uiOf(message: Message | undefined): { messages: Record<string, unknown>[]; mimes: string[]; mediaTypes: string[] } {
  const messages: Record<string, unknown>[] = [];
  const mimes: string[] = [];
  const mediaTypes: string[] = [];
  for (const part of message?.parts ?? []) {
    const mime = part.metadata?.mimeType as string | undefined;
    if (part.content?.$case !== 'data' || (mime !== A2UI_MIME && mime !== A2UI_MIME_LEGACY)) continue;
    mimes.push(mime);
    mediaTypes.push(part.mediaType);
    const value = part.content.value as unknown;
    if (Array.isArray(value)) messages.push(...(value as Record<string, unknown>[]));
    else messages.push(value as Record<string, unknown>);
  }
  return { messages, mimes, mediaTypes };
}

export function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
}

/** The canonical error a failed task's status carries. */
export function errorOf(task: Task): { code?: string } | undefined {
  for (const part of task.status?.message?.parts ?? []) {
    if (part.content?.$case === 'data' && part.mediaType === 'application/json') return part.content.value as { code?: string };
  }
  return undefined;
}

/** Drains a stream into its events. */
export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of stream) out.push(event);
  return out;
}
