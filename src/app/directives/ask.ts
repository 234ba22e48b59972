import { z } from 'zod';
import { DataKey, findLiveSurface, openSurface, panelFor, sameForm, type DirectiveDefinition, type FieldBlock } from '../../index.ts';
import { defaultDraft } from '../fields.ts';
import { askView } from '../views.ts';
import { DEFAULT_SURFACE, Label, SurfaceField } from './common.ts';

const AskField = z.object({
  name: DataKey.describe('answer key: letters, digits, "_" or "-"'),
  label: Label,
  type: z.enum(['text', 'textarea', 'select', 'checkbox', 'number', 'tags']),
  options: z.array(z.string().min(1).max(100)).min(1).max(50).optional().describe('choices; required for select'),
  placeholder: z.string().max(200).optional(),
  required: z.boolean().optional(),
}).strict();

export const AskPayloadSchema = z.object({
  title: Label,
  prompt: z.string().min(1).max(2000).describe('the question, shown above the fields'),
  fields: z.array(AskField).min(1).max(12),
  submit: z.string().min(1).max(60).describe('submit button label'),
  cancel: z.string().min(1).max(60).optional().describe('cancel button label; no cancel button when left out'),
  surface: SurfaceField.optional(),
}).strict().superRefine((p, ctx) => {
  const seen = new Set<string>();
  p.fields.forEach((f, i) => {
    if (seen.has(f.name)) ctx.addIssue({ code: 'custom', path: ['fields', i, 'name'], message: `duplicate field name "${f.name}"` });
    seen.add(f.name);
    if (f.type === 'select' && f.options === undefined) {
      ctx.addIssue({ code: 'custom', path: ['fields', i, 'options'], message: 'a select needs options' });
    }
    if (f.type !== 'select' && f.options !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['fields', i, 'options'], message: 'options apply to select fields only' });
    }
  });
});
export type AskPayload = z.infer<typeof AskPayloadSchema>;

export function askFieldBlocks(fields: AskPayload['fields']): FieldBlock[] {
  return fields.map((f) => {
    const block: FieldBlock = { kind: 'field', name: f.name, label: f.label, control: f.type, required: f.required ?? false };
    if (f.options !== undefined) block.options = [...new Set(f.options)].map((o) => ({ value: o, label: o }));
    if (f.placeholder !== undefined) block.placeholder = f.placeholder;
    return block;
  });
}

export const askDirective: DirectiveDefinition<AskPayload> = {
  type: 'ui.ask',
  aliases: ['ask', 'ui.clarify', 'clarify', 'ask_user'],
  description: 'Ask the user a question with a small ad-hoc form (a clarifier). Use when a request is ambiguous. '
    + 'It opens beside a panel that holds another form, never over it.',
  payload: AskPayloadSchema,
  example: {
    title: 'Which character?', prompt: 'Tell me a little about the character you want.',
    fields: [
      { name: 'concept', label: 'Concept', type: 'textarea', required: true },
      { name: 'genre', label: 'Genre', type: 'select', options: ['fantasy', 'sci-fi', 'mystery'] },
    ],
    submit: 'Continue', cancel: 'Never mind',
  },
  apply(ir, payload, draw) {
    const fields = askFieldBlocks(payload.fields);
    const view = askView({ title: payload.title, prompt: payload.prompt, fields, submit: payload.submit, cancel: payload.cancel });
    const id = panelFor(ir, payload.surface ?? DEFAULT_SURFACE, view);
    const existing = findLiveSurface(ir, id);
    // The same question in new words keeps the answers already on record.
    const draft = existing !== undefined && sameForm(existing.view, view) ? { ...defaultDraft(fields), ...existing.data.draft } : defaultDraft(fields);
    return { ok: true, ir: openSurface(ir, { id, view, draft }, draw) };
  },
};
