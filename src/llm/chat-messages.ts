import { readFileSync } from 'node:fs';
import { actionEventJsonSchema } from '../planner/action-event.ts';
import type { PlannerInput, RepairIssue, ToolStep } from '../planner/types.ts';
import type { ConversationIr } from '../ui-ir/index.ts';
import type { LlmMessage, LlmRequestSpec } from './request.ts';

/** The versioned repair follow-up (prompts/repair.v1.md); `{{errors}}` becomes one line per problem. */
export const REPAIR_PROMPT_URL = new URL('../../prompts/repair.v1.md', import.meta.url);
export const ERRORS_MARKER = '{{errors}}';

export function readRepairPrompt(): string {
  return readFileSync(REPAIR_PROMPT_URL, 'utf8');
}

// A follow-up quotes the earlier answer and its errors; both are bounded so a runaway answer
// cannot blow the context window of the repair call.
const MAX_QUOTED_ANSWER = 16_000;
const MAX_QUOTED_ERRORS = 12;

/** Pure: the follow-up text for one failed answer. */
export function renderRepairPrompt(template: string, errors: readonly RepairIssue[]): string {
  const lines = errors.slice(0, MAX_QUOTED_ERRORS).map((e) =>
    `- ${e.pointer ? `\`${e.pointer}\`` : '(the whole answer)'} — ${e.code}: ${e.detail}`);
  if (errors.length > MAX_QUOTED_ERRORS) lines.push(`- … and ${errors.length - MAX_QUOTED_ERRORS} more`);
  return template.split(ERRORS_MARKER).join(lines.join('\n'));
}

/** The state the model sees: compact, no nonces (they are not the model's business). */
export function describeStateForModel(ir: ConversationIr): string {
  const surfaces = ir.surfaces
    .filter((s) => s.lifecycle !== 'deleted')
    .map((s) => ({ surface: s.id, template: s.view.template, title: s.view.title, committed: s.data.committed }));
  return `Open surfaces: ${JSON.stringify(surfaces)}`;
}

export interface ChatMessageOptions {
  /** Rendered from the directive registry; never hand-written. */
  systemPrompt: string;
  /** prompts/repair.v1.md. */
  repairPrompt: string;
  /** How many transcript entries the model sees. */
  historyLimit?: number;
}

/**
 * A turn that continues an action: the user acted on a panel instead of typing. The model is
 * told so, with the event's JSON Schema (generated from the zod schema), then gets the event
 * as the user's message: its one-line description, then its JSON.
 */
function eventMessages(input: PlannerInput): LlmMessage[] {
  if (input.event === undefined) return [{ role: 'user', content: input.text }];
  return [
    {
      role: 'system',
      content: 'The next user message is a UI event, not typed text: the user acted on a panel. It is a line of text, '
        + `then a JSON object of this JSON Schema:\n${JSON.stringify(actionEventJsonSchema())}\n`
        + 'Continue the conversation from it: answer with the directive envelope as always.',
    },
    { role: 'user', content: `${input.text}\n\n${JSON.stringify(input.event)}` },
  ];
}

/**
 * The tool calls of a turn and their results, as chat messages: per model reply (round), an
 * assistant message with its calls, then one tool message per call (the result as JSON text).
 */
export function toolExchangeMessages(steps: readonly ToolStep[]): LlmMessage[] {
  const messages: LlmMessage[] = [];
  let round: { index: number; calls: NonNullable<LlmMessage['toolCalls']> } | undefined;
  for (const step of steps) {
    if (step.round !== round?.index) {
      round = { index: step.round, calls: [] };
      messages.push({ role: 'assistant', content: '', toolCalls: round.calls });
    }
    round.calls.push({ ...(step.callId === undefined ? {} : { id: step.callId }), name: step.name, arguments: step.arguments });
    // After its assistant message and the round's earlier results, as OpenAI requires.
    messages.push({
      role: 'tool', content: JSON.stringify(step.result) ?? 'null', toolName: step.name,
      ...(step.callId === undefined ? {} : { toolCallId: step.callId }),
    });
  }
  return messages;
}

/**
 * System prompt, state, recent transcript, the user's text (or the action event the turn
 * continues), on a repair call of a turn that ran tools the tool calls it made and their
 * results, then — on a repair call — each earlier answer of this turn as an assistant message
 * followed by a user message quoting its errors with their JSON Pointers.
 */
export function buildChatMessages(input: PlannerInput, options: ChatMessageOptions): LlmRequestSpec['messages'] {
  const history = input.ir.transcript.slice(-(options.historyLimit ?? 12)).map((t) => ({
    role: t.role === 'user' ? 'user' as const : 'assistant' as const, content: t.text,
  }));
  const messages: LlmRequestSpec['messages'] = [
    { role: 'system', content: options.systemPrompt },
    { role: 'system', content: describeStateForModel(input.ir) },
    ...history,
    ...eventMessages(input),
    ...toolExchangeMessages(input.toolSteps ?? []),
  ];
  for (const attempt of input.repair?.attempts ?? []) {
    const quoted = attempt.rawText.length > MAX_QUOTED_ANSWER ? `${attempt.rawText.slice(0, MAX_QUOTED_ANSWER)}…` : attempt.rawText;
    const applied = attempt.applied !== undefined && attempt.applied.length > 0
      ? `\n\nDirectives ${attempt.applied.map((i) => `/directives/${i}`).join(', ')} of that answer were already applied and are on screen: do not send them again. Send only what is still missing.`
      : '';
    messages.push({ role: 'assistant', content: quoted }, { role: 'user', content: renderRepairPrompt(options.repairPrompt, attempt.errors) + applied });
  }
  return messages;
}
