import { readFileSync } from 'node:fs';
import type { PlannerInput, RepairIssue } from '../planner/types.ts';
import type { ConversationIr } from '../ui-ir/index.ts';
import type { LlmRequestSpec } from './request.ts';

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
 * System prompt, state, recent transcript, the user's text, then — on a repair call — each
 * earlier answer of this turn as an assistant message followed by a user message quoting its
 * errors with their JSON Pointers.
 */
export function buildChatMessages(input: PlannerInput, options: ChatMessageOptions): LlmRequestSpec['messages'] {
  const history = input.ir.transcript.slice(-(options.historyLimit ?? 12)).map((t) => ({
    role: t.role === 'user' ? 'user' as const : 'assistant' as const, content: t.text,
  }));
  const messages: LlmRequestSpec['messages'] = [
    { role: 'system', content: options.systemPrompt },
    { role: 'system', content: describeStateForModel(input.ir) },
    ...history,
    { role: 'user', content: input.text },
  ];
  for (const attempt of input.repair?.attempts ?? []) {
    const quoted = attempt.rawText.length > MAX_QUOTED_ANSWER ? `${attempt.rawText.slice(0, MAX_QUOTED_ANSWER)}…` : attempt.rawText;
    messages.push({ role: 'assistant', content: quoted }, { role: 'user', content: renderRepairPrompt(options.repairPrompt, attempt.errors) });
  }
  return messages;
}
