import { z } from 'zod';
import { findLiveSurface, openSurface, panelFor, type DataMap, type DataValue, type DirectiveDefinition } from '../../index.ts';
import { draftValueSchema } from '../fields.ts';
import { DEMO_TEMPLATES, resolveTemplateName, templateByName } from '../templates.ts';
import { templateDraft, templateView } from '../views.ts';
import { DEFAULT_SURFACE, Label, SurfaceField } from './common.ts';

export interface ShowFormPayload {
  template: string;
  surface?: string | undefined;
  title?: string | undefined;
  values?: Record<string, DataValue> | undefined;
}

// One branch per template, so the model's JSON Schema lists each template's own values.
const branches = DEMO_TEMPLATES.map((t) => z.object({
  template: z.literal(t.name),
  surface: SurfaceField.optional(),
  title: Label.optional().describe(`panel title; default "${t.title}"`),
  values: z.object(Object.fromEntries(t.fields.map((f) => [f.name, draftValueSchema(f).optional()])))
    .strict().optional().describe('pre-filled draft values, keyed by field name'),
}).strict());

export const ShowFormPayloadSchema = z.discriminatedUnion(
  'template', branches as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<ShowFormPayload>;

export const showFormDirective: DirectiveDefinition<ShowFormPayload> = {
  type: 'ui.show_form',
  aliases: ['show_form', 'showForm', 'open_form', 'ui.open_form', 'form'],
  description: `Open one of the app's forms: ${DEMO_TEMPLATES.map((t) => `\`${t.name}\` (${t.description})`).join('; ')}. `
    + 'Re-opening the same form keeps what the user typed and what they saved. A panel that holds another form is never replaced '
    + '(the user may be typing in it): the form opens on a panel beside it ("main-2", …), or on the panel already showing it.',
  payload: ShowFormPayloadSchema,
  example: { template: 'character_card', values: { name: 'Aria', tags: 'fantasy, bard' } },
  normalise(payload, ctx) {
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload;
    const p = payload as Record<string, unknown>;
    if (typeof p.template !== 'string') return payload;
    const template = resolveTemplateName(p.template);
    if (template === undefined) {
      ctx.fail('DIRECTIVE_TEMPLATE_UNKNOWN', '/template',
        `unknown template "${p.template}" (known: ${DEMO_TEMPLATES.map((t) => t.name).join(', ')})`);
      return payload;
    }
    if (template.name === p.template) return payload;
    ctx.warn('DIRECTIVE_WARN_ALIAS_USED', '/template', `template "${p.template}" read as "${template.name}"`);
    return { ...p, template: template.name };
  },
  apply(ir, payload, draw) {
    const template = templateByName(payload.template)!; // the schema admits known names only
    const view = templateView(template, payload.title);
    const id = panelFor(ir, payload.surface ?? DEFAULT_SURFACE, view);
    const existing = findLiveSurface(ir, id);
    const same = existing !== undefined && existing.view.template === template.name;
    const draft: DataMap = { ...templateDraft(template), ...(same ? existing.data.draft : {}) };
    for (const [key, value] of Object.entries(payload.values ?? {})) if (value !== undefined) draft[key] = value;
    // The form already open, asked for again as it is, comes back unchanged from openSurface
    // (nothing is sent, so every client keeps what the person typed into it).
    const params = { id, view, draft, ...(existing ? { ui: existing.data.ui } : {}) };
    return { ok: true, ir: openSurface(ir, params, draw) };
  },
};
