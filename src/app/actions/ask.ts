import { appendTranscript, closeSurface, findSurface, type ActionDefinition, type ActionEvent, type DataValue, type FieldBlock } from '../../index.ts';
import { EMPTY_CONTEXT, formContextSchema } from '../context.ts';
import { viewFields } from '../fields.ts';
import { commitSubmission } from './common.ts';

function show(value: DataValue | undefined, field: FieldBlock): string {
  if (value === undefined) return '—';
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const option = field.options?.find((o) => o.value === value);
  return option?.label ?? String(value);
}

/**
 * ask.submit: validates and commits the answers like a form, writes them to the transcript as
 * the user's message, closes the clarifier, and continues the conversation: the next planner
 * turn gets the answers as a structured event (with their labels), not as typed text.
 */
export const askSubmitAction: ActionDefinition = {
  name: 'ask.submit',
  description: 'Answer a clarifier: commit the answers, add them to the transcript, close the panel, and let the assistant continue.',
  contextSchema: (surface) => formContextSchema(surface.view),
  handle(ir, surface, context, draw) {
    const submitted = commitSubmission(ir, surface, context, draw);
    if (!submitted.ok) return submitted;
    const lines = submitted.fields.map((f) => `${f.label}: ${show(submitted.committed[f.name], f)}`);
    const text = `${surface.view.title}\n${lines.join('\n')}`.slice(0, 20_000);
    const closed = closeSurface(appendTranscript(submitted.ir, { role: 'user', text }, draw), surface.id, draw);
    return closed.ok ? { ok: true, ir: closed.ir, toast: { level: 'success', text: 'Thanks, answers sent' } } : closed;
  },
  continueWith({ surface, after }): ActionEvent {
    // The surface is closed now, but its data (the committed answers) stays on record.
    const committed = findSurface(after, surface.id)?.data.committed ?? {};
    const button = surface.view.actions.find((a) => a.name === 'ask.submit')?.label ?? 'Submit';
    return {
      type: 'ui.action', action: 'ask.submit', button,
      surface: { id: surface.id, title: surface.view.title, template: surface.view.template },
      answers: viewFields(surface.view).map((f) => {
        const value = Object.hasOwn(committed, f.name) ? committed[f.name] : undefined;
        return { name: f.name, label: f.label, value: value ?? null, text: show(value, f).slice(0, 20_000) };
      }),
    };
  },
};

export const askCancelAction: ActionDefinition = {
  name: 'ask.cancel',
  description: 'Dismiss a clarifier without answering.',
  contextSchema: () => EMPTY_CONTEXT,
  handle(ir, surface, _context, draw) {
    const closed = closeSurface(ir, surface.id, draw);
    return closed.ok ? { ok: true, ir: closed.ir, toast: { level: 'info', text: 'Dismissed' } } : closed;
  },
};
