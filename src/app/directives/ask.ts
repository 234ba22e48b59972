import { z } from 'zod';
import { DataKey, FieldBlock, findLiveSurface, openSurface, panelFor, sameForm, type DirectiveDefinition } from '../../index.ts';
import { defaultDraft } from '../fields.ts';
import { askView } from '../views.ts';
import { DEFAULT_SURFACE, Label, SurfaceField } from './common.ts';

const AskField = z.object({
  name: DataKey.describe('answer key: letters, digits, "_" or "-"'),
  label: Label,
  type: z.enum(['text', 'textarea', 'select', 'checkbox', 'number', 'tags', 'email', 'url']),
  options: z.array(z.string().min(1).max(100)).min(1).max(50).optional().describe('choices; required for select'),
  placeholder: z.string().max(200).optional(),
  required: z.boolean().optional(),
  // The field rules (ui-ir/field-rules.ts): checked by every client as the person types, and by the server.
  minLength: FieldBlock.shape.minLength.describe('text: at least this many characters'),
  maxLength: FieldBlock.shape.maxLength.describe('text: at most this many characters'),
  pattern: FieldBlock.shape.pattern,
  min: FieldBlock.shape.min.describe('number: the smallest allowed'),
  max: FieldBlock.shape.max.describe('number: the largest allowed'),
  step: FieldBlock.shape.step.describe('number: allowed values are min (or 0) plus a multiple of this'),
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
    const text = !['select', 'checkbox', 'number'].includes(f.type);
    for (const key of ['minLength', 'maxLength', 'pattern'] as const) {
      if (!text && f[key] !== undefined) ctx.addIssue({ code: 'custom', path: ['fields', i, key], message: `${key} applies to text fields only` });
    }
    for (const key of ['min', 'max', 'step'] as const) {
      if (f.type !== 'number' && f[key] !== undefined) ctx.addIssue({ code: 'custom', path: ['fields', i, key], message: `${key} applies to number fields only` });
    }
    if (f.minLength !== undefined && f.maxLength !== undefined && f.minLength > f.maxLength) {
      ctx.addIssue({ code: 'custom', path: ['fields', i, 'minLength'], message: 'minLength is more than maxLength' });
    }
    if (f.min !== undefined && f.max !== undefined && f.min > f.max) ctx.addIssue({ code: 'custom', path: ['fields', i, 'min'], message: 'min is more than max' });
  });
});
export type AskPayload = z.infer<typeof AskPayloadSchema>;

export function askFieldBlocks(fields: AskPayload['fields']): FieldBlock[] {
  return fields.map((f) => {
    const block: FieldBlock = { kind: 'field', name: f.name, label: f.label, control: f.type, required: f.required ?? false };
    if (f.options !== undefined) block.options = [...new Set(f.options)].map((o) => ({ value: o, label: o }));
    if (f.placeholder !== undefined) block.placeholder = f.placeholder;
    for (const key of ['minLength', 'maxLength', 'pattern', 'min', 'max', 'step'] as const) {
      if (f[key] !== undefined) (block as Record<string, unknown>)[key] = f[key];
    }
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
