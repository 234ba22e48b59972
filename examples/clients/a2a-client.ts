/**
 * An A2A client of a Surfacer server, on the official `@a2a-js/sdk` client: it reads the agent
 * card, asks for a character card with A2UI v0.9 capabilities, finds the form's submit button in
 * the A2UI messages of the answer, and presses it by sending the button's action as an A2UI data
 * part in the same conversation (`contextId`).
 *
 *   SURFACER_URL=http://127.0.0.1:8787 SURFACER_TOKEN=… npx tsx examples/clients/a2a-client.ts
 *
 * Without SURFACER_TOKEN it calls without one, as a server without SURFACER_API_TOKENS expects
 * from a caller on the same machine. Exit status 0 when the card was saved.
 */
import { Role, type Message, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

type Json = Record<string, any>;

const url = process.env.SURFACER_URL || 'http://127.0.0.1:8787';
const token = process.env.SURFACER_TOKEN;
const A2UI_MIME = 'application/json+a2ui';
const BASIC_CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';
/** Sent with every message: this client renders A2UI v0.9 in the basic catalogue. */
const capabilities = { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG] } } };

const fetchImpl: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl })],
  cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
}));
const client = await factory.createFromUrl(url);

function message(parts: Part[], contextId = ''): Message {
  return {
    messageId: crypto.randomUUID(), contextId, taskId: '', role: Role.ROLE_USER, parts,
    metadata: capabilities, extensions: [], referenceTaskIds: [],
  };
}

async function send(m: Message): Promise<Task> {
  const result = await client.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined });
  if (!('status' in result)) throw new Error('the agent answered with a message, not a task');
  return result;
}

/** The answer's text parts, and its A2UI messages in order (the data parts of the A2UI MIME type). */
function read(task: Task): { text: string; a2ui: Json[] } {
  const parts = task.status?.message?.parts ?? [];
  const text = parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join(' ');
  const a2ui = parts.flatMap((p) => (p.content?.$case === 'data' && p.metadata?.mimeType === A2UI_MIME ? [p.content.value].flat() as Json[] : []));
  return { text, a2ui };
}

const asked = await send(message([{ content: { $case: 'text', value: 'create a character card' }, mediaType: 'text/plain', filename: '', metadata: undefined }]));
const first = read(asked);
process.stdout.write(`conversation ${asked.contextId}\nassistant: ${first.text}\n`);

const components = first.a2ui.flatMap((m) => m.updateComponents?.components ?? []);
const surfaceId = first.a2ui.find((m) => m.createSurface)?.createSurface.surfaceId as string | undefined;
const submit = components.find((c) => c.component === 'Button' && c.action?.event?.name === 'form.submit');
if (surfaceId === undefined || submit === undefined) throw new Error('the answer holds no form');

// What a renderer does on a click: the action's context with its bindings (the fields, at
// /draft/<field>) replaced by what the user typed; the literals (nonce, rev) sent as they are.
const typed: Json = { name: 'Aria', personality: 'Brave and kind.' };
const context: Json = {};
for (const [key, value] of Object.entries(submit.action.event.context as Json)) {
  context[key] = typeof value === 'object' && value !== null && 'path' in value ? typed[key] ?? '' : value;
}
const action = { version: 'v0.9', action: { name: 'form.submit', surfaceId, sourceComponentId: submit.id, timestamp: new Date().toISOString(), context } };
const pressed = await send(message([{ content: { $case: 'data', value: [action] }, mediaType: A2UI_MIME, filename: '', metadata: { mimeType: A2UI_MIME } }], asked.contextId));
const answer = read(pressed);
process.stdout.write(`assistant: ${answer.text}\n`);
process.stdout.write(`${answer.a2ui.length} A2UI messages with the saved card\n`);
if (!/^Saved/.test(answer.text)) process.exitCode = 1;
