import { z } from 'zod';
import { CONVERSATION_ID } from '../conversation/log.ts';
import type { TraceIssue } from '../conversation/trace.ts';
import type { DirectiveDefinition } from '../directives/index.ts';
import { describeStateForModel } from '../llm/chat-messages.ts';
import type { ConversationIr, Surface } from '../ui-ir/index.ts';

/*
 * The MCP door's pure parts: what a directive becomes as a tool (its name, its arguments'
 * schema, from the directive's own zod payload), how a refusal is quoted for the host's model,
 * and what a result tells it. No I/O here: server.ts wires these to the SDK and the service.
 */

/** Tool names of the MCP door's own tools (besides one per directive). */
export const READ_TOOL = 'surfacer_read';
export const MESSAGE_TOOL = 'surfacer_message';
export const VIEW_ACTION_TOOL = 'surfacer_view_action';

/** `ui.show_form` → `show_form`; an app's `desk.assign` → `desk_assign` (tool names stay plain). */
export function directiveToolName(type: string): string {
  return type.replace(/^ui\./, '').replace(/[^A-Za-z0-9_-]/g, '_');
}

const ConversationIdArg = z.string().regex(CONVERSATION_ID).describe(
  'The conversation to work on, as an earlier result of these tools named it (structuredContent.conversationId). Leave it out to start a new conversation.',
);

/** A directive tool's arguments besides the payload: checked here; the payload is the directive runner's to check. */
export const DirectiveToolArgs = z.object({
  conversationId: ConversationIdArg.optional(),
  assistant_text: z.string().max(20_000).optional().describe('What you say to the person alongside the change; shown in the conversation on every client.'),
});

/** The arguments of a directive tool, as advertised: the envelope's fields and the directive's own payload schema. */
export function directiveToolSchema(definition: DirectiveDefinition): z.ZodType {
  return DirectiveToolArgs.extend({ payload: definition.payload.describe(`The ${definition.type} payload.`) });
}

export const ReadToolArgs = z.object({ conversationId: ConversationIdArg.describe('The conversation whose surfaces to read.') });

export const MessageToolArgs = z.object({
  conversationId: ConversationIdArg.optional(),
  text: z.string().min(1).max(4000).describe('What the person said, for the app\'s own assistant to answer.'),
});

export const ViewActionToolArgs = z.object({
  conversationId: ConversationIdArg,
  /** The A2UI v0.9 client message the official renderer built: `{version, action}`. */
  message: z.object({ version: z.string(), action: z.record(z.string(), z.unknown()) }).passthrough(),
  idempotencyKey: z.string().min(1).max(200).describe('One per click: a retry of the same click sends the same key.'),
});

/**
 * A pointer into the directive envelope as the runner reports it (`/directives/0/payload/x`),
 * as a pointer into the tool's arguments (`/payload/x`): the host's model wrote the arguments.
 */
export function argumentPointer(pointer: string | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  const directive = /^\/directives\/0(\/.*)?$/.exec(pointer);
  if (directive === null) return pointer;
  const rest = directive[1] ?? '';
  if (rest === '/type') return '';
  return rest === '' ? '' : rest;
}

/** How the repair loop quotes errors to the planner, for the host's model (MCP `isError` text). */
export function refusalText(problems: readonly TraceIssue[]): string {
  const lines = problems.slice(0, 8).map((p) => {
    const pointer = argumentPointer(p.pointer);
    return `- ${pointer === undefined || pointer === '' ? '(the whole call)' : `\`${pointer}\``} — ${p.code}: ${p.detail ?? p.message}`;
  });
  if (problems.length > 8) lines.push(`- … and ${problems.length - 8} more`);
  return `Nothing was changed: the call was refused.\n${lines.join('\n')}\nCorrect the arguments and call the tool again.`;
}

/** IR ids of the surfaces a change opened or changed (a surface object the change did not touch is the same object). */
export function changedSurfaceIds(prev: ConversationIr, next: ConversationIr): string[] {
  const before = new Map<string, Surface>(prev.surfaces.map((s) => [s.id, s]));
  return next.surfaces.filter((s) => s.lifecycle !== 'deleted' && before.get(s.id) !== s).map((s) => s.id);
}

/** What is on screen now, for the host's model: the surfaces and what was saved, as the planner is told. */
export function screenText(ir: ConversationIr): string {
  const open = ir.surfaces.filter((s) => s.lifecycle !== 'deleted');
  if (open.length === 0) return 'Nothing is on screen.';
  const actions = open.map((s) => `“${s.view.title}” (${s.id}): ${s.view.actions.map((a) => a.label).join(', ') || 'no buttons'}`);
  return `${describeStateForModel(ir)}\nThe person can press: ${actions.join('; ')}.`;
}
