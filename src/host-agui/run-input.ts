import { createHash } from 'node:crypto';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { RunAgentInput } from '@ag-ui/core';
import { CONVERSATION_ID } from '../conversation/index.ts';
import { makeError, type SurfacerError } from '../errors/index.ts';
import { advertisedInAguiContext, advertisedInCapabilities, mergeAdvertised, type AdvertisedCatalogs } from '../hosting/index.ts';

/*
 * An AG-UI `RunAgentInput` → what the run asks of the conversation. Clients resend the whole
 * history on every run, so a run is one of: an action (forwardedProps.a2uiAction.userAction, as
 * CopilotKit's A2UI renderer sends it: the run is that action, whatever the messages say), a turn
 * (the last user message, unless the thread already answered it: the caller checks that), or
 * nothing new (the current UI is sent again). Validation is the official @ag-ui/core schema;
 * everything else is read defensively here, never thrown.
 *
 * The catalogues the client has come either as A2A sends them, in the message metadata's shape
 * (`forwardedProps.a2uiClientCapabilities`: `{"v0.9": {supportedCatalogIds, inlineCatalogs?}}`),
 * or as CopilotKit announces them, in the run's `context` (catalog-choice.ts
 * `advertisedInAguiContext`); a run may carry both. CopilotKit's other A2UI props
 * (`injectA2UITool`, its `render_a2ui` tool) ask an agent without UI of its own to let the model
 * write A2UI: this server renders its own surfaces, so they are read as nothing.
 */

export type RunIntent =
  | { readonly kind: 'action'; /** The A2UI v0.9 client message the ingress parses. */ readonly body: string }
  | { readonly kind: 'turn'; readonly messageId: string; readonly text: string }
  | { readonly kind: 'none' };

export type ParsedRun =
  | { readonly ok: true; readonly input: RunAgentInput; readonly intent: RunIntent; /** What forwardedProps.a2uiClientCapabilities and the context advertise for v0.9. */ readonly catalogs: AdvertisedCatalogs }
  | { readonly ok: false; readonly status: number; readonly error: SurfacerError; readonly issues?: ReadonlyArray<{ pointer: string; message: string }> };

const MAX_ISSUES = 8;

function bad(detail: string, issues?: ReadonlyArray<{ pointer: string; message: string }>): ParsedRun {
  return { ok: false, status: 400, error: makeError('HTTP_BAD_REQUEST', detail), ...(issues && issues.length > 0 ? { issues } : {}) };
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The text of a user message: a string, or the text parts of a multimodal one. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p): p is { type: 'text'; text: string } => isRecord(p) && p.type === 'text' && typeof p.text === 'string').map((p) => p.text).join('\n');
}

export function parseRunInput(raw: string): ParsedRun {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return bad('body is not JSON');
  }
  const parsed = RunAgentInputSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, MAX_ISSUES).map((i) => ({ pointer: `/${i.path.map(String).join('/')}`, message: i.message.slice(0, 200) }));
    return bad('body is not an AG-UI RunAgentInput', issues);
  }
  const input = parsed.data as RunAgentInput;
  if (input.threadId === '' || input.threadId.length > 256) return bad('threadId must be 1 to 256 characters');
  if (input.runId === '' || input.runId.length > 256) return bad('runId must be 1 to 256 characters');
  const forwarded = input.forwardedProps as unknown;
  const catalogs = mergeAdvertised(
    advertisedInCapabilities(isRecord(forwarded) && Object.hasOwn(forwarded, 'a2uiClientCapabilities') ? forwarded.a2uiClientCapabilities : undefined, '0.9'),
    advertisedInAguiContext(input.context),
  );
  if (isRecord(forwarded) && Object.hasOwn(forwarded, 'a2uiAction')) {
    const a2uiAction = forwarded.a2uiAction;
    if (!isRecord(a2uiAction) || !isRecord(a2uiAction.userAction)) return bad('forwardedProps.a2uiAction must hold a userAction object');
    // The ingress parser checks the action itself (names, ids, nonce, rev, sizes).
    return { ok: true, input, catalogs, intent: { kind: 'action', body: JSON.stringify({ version: 'v0.9', action: a2uiAction.userAction }) } };
  }
  for (let i = input.messages.length - 1; i >= 0; i -= 1) {
    const message = input.messages[i]!;
    if (message.role !== 'user') continue;
    // Its id keys the thread's "already answered" record: bounded like the thread's.
    if (message.id === '' || message.id.length > 256) return bad('a user message id must be 1 to 256 characters');
    const text = textOf(message.content).trim();
    if (text === '') return bad('the last user message has no text');
    return { ok: true, input, catalogs, intent: { kind: 'turn', messageId: message.id, text } };
  }
  return { ok: true, input, catalogs, intent: { kind: 'none' } };
}

/**
 * The conversation a thread names: the threadId itself when it is a conversation id (so a
 * conversation started on another transport continues under its own id), else a digest of it.
 * One namespace for every caller: another principal's thread is a 404, never a second
 * conversation under the same name.
 */
export function conversationIdOfThread(threadId: string): string {
  if (CONVERSATION_ID.test(threadId)) return threadId;
  return `t${createHash('sha256').update(threadId).digest('base64url')}`;
}
