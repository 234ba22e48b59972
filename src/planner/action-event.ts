import { z } from 'zod';
import { DataValueSchema } from '../ui-ir/index.ts';

/**
 * What a planner turn that continues an action is told: which button the user pressed on which
 * panel, and the answers as structured data with their labels. One zod schema: the type, the
 * check and the JSON Schema the chat planners show the model (actionEventJsonSchema) come from it.
 */
export const ActionEventAnswer = z.object({
  name: z.string().max(64).describe('The field key.'),
  label: z.string().max(200).describe('The field label the user saw.'),
  value: DataValueSchema.nullable().describe('The value as saved (null: left empty).'),
  text: z.string().max(20_000).describe('The value as the user saw it (option labels, "yes"/"no", "—" when empty).'),
});
export type ActionEventAnswer = z.infer<typeof ActionEventAnswer>;

export const ActionEventSchema = z.object({
  type: z.literal('ui.action').describe('Always "ui.action": the user acted on a panel instead of typing.'),
  action: z.string().max(64).describe('The action of the button, e.g. "ask.submit".'),
  button: z.string().max(200).describe('The label of the button the user pressed.'),
  surface: z.object({
    id: z.string().max(64).describe('The panel (surface) id.'),
    title: z.string().max(200).describe('The panel title.'),
    template: z.string().max(64).optional().describe('The form template, or "ask" for a clarifier.'),
  }),
  answers: z.array(ActionEventAnswer).max(200).describe('The values the user sent, in field order.'),
}).describe('A UI event: the user answered a panel. Continue the conversation from these answers.');
export type ActionEvent = z.infer<typeof ActionEventSchema>;

let jsonSchema: Record<string, unknown> | undefined;

/** The JSON Schema of an action event, generated once from the zod schema. */
export function actionEventJsonSchema(): Record<string, unknown> {
  jsonSchema ??= z.toJSONSchema(ActionEventSchema) as Record<string, unknown>;
  return jsonSchema;
}

/** One line a person reads: what the turn continues (the transcript and the trace show it). */
export function describeActionEvent(event: ActionEvent): string {
  const answers = event.answers.map((a) => `${a.label}: ${a.text}`).join('; ');
  const line = `${event.button} on “${event.surface.title}”${answers === '' ? '' : ` — ${answers}`}`;
  return line.length > 4000 ? `${line.slice(0, 3999)}…` : line;
}
