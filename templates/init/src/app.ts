import {
  closeSurface, defineAction, defineApp, defineDirective, fieldContextSchema, findLiveSurface, openSurface, z,
  type AppDefinition, type Planner, type SurfaceView,
} from 'surfacer';

/*
 * Your app, as Surfacer sees it: what the model may ask for (directives), what the panel's buttons
 * may do (actions), who answers when no model is connected (the offline planner), and the words
 * the pages show around the panels (texts). This one writes notes; change everything.
 */

/** The page title. */
export const APP_NAME = '__APP_NAME__';

/** The one panel of this app. A directive that opens it again replaces it. */
export const NOTE = 'note';

export const noteView: SurfaceView = {
  template: 'note.form',
  title: 'Note',
  blocks: [
    { kind: 'field', name: 'title', label: 'Title', control: 'text', required: true, maxLength: 80 },
    { kind: 'field', name: 'text', label: 'Note', control: 'textarea', required: false, maxLength: 2000 },
  ],
  actions: [{ name: 'note.save', label: 'Save note', role: 'submit', primary: true }],
};

// The payload schema is what validates the model's answer and the JSON Schema the model is shown.
const WriteNotePayload = z.object({
  title: z.string().min(1).max(80).optional().describe('a title taken from what the user said'),
  text: z.string().max(2000).optional().describe('the note itself, when the user already said it'),
}).strict();

/** `note.write`: opens the note panel, prefilled with what the model understood. */
export const writeNote = defineDirective<z.infer<typeof WriteNotePayload>>({
  type: 'note.write',
  aliases: ['write_note', 'note', 'new_note'],
  description: 'Open a note for the user to fill in and save, prefilled with what they already said.',
  payload: WriteNotePayload,
  example: { title: 'Team meeting' },
  apply(ir, p, draw) {
    // Opening it again keeps what the user typed, unless the model prefills it anew.
    const open = findLiveSurface(ir, NOTE);
    const draft = { ...open?.data.draft, ...(p.title ? { title: p.title } : {}), ...(p.text ? { text: p.text } : {}) };
    return { ok: true, ir: openSurface(ir, { id: NOTE, view: noteView, draft }, draw) };
  },
});

/** `note.save`: the panel's button. Pure: it closes the panel and says what was saved. */
export const saveNote = defineAction({
  name: 'note.save',
  description: 'Save the note.',
  // The view's fields, coerced from what htmx forms and A2UI clients send.
  contextSchema: (surface) => fieldContextSchema(surface),
  handle(ir, surface, context, draw) {
    const closed = closeSurface(ir, surface.id, draw);
    return closed.ok ? { ok: true, ir: closed.ir, toast: { level: 'success', text: `Saved "${String(context.title).trim()}"` } } : closed;
  },
});

/** "a note about the team meeting" → "the team meeting". */
export function titleFrom(text: string): string | undefined {
  const match = /\b(?:about|called|titled|on)\s+(.{1,80}?)[.!?]?$/i.exec(text.trim());
  return match?.[1]?.trim() || undefined;
}

/**
 * Answers every message with a note, without a language model. It answers with the same JSON a
 * model sends, so its answer is parsed, validated and applied exactly as a model's would be.
 */
export const offlinePlanner: Planner = {
  name: 'offline',
  label: 'Offline planner (no language model connected)',
  async plan(input, signal) {
    signal.throwIfAborted();
    const title = titleFrom(input.text);
    const rawText = JSON.stringify({
      assistant_text: 'Here is a note: fill it in and save it.',
      directives: [{ type: 'note.write', payload: title ? { title } : {} }],
    });
    return { rawText, provider: 'offline', llmMs: 0 };
  },
};

export function createApp(): AppDefinition {
  return defineApp({
    name: APP_NAME,
    directives: [writeNote],
    actions: [saveNote],
    offlinePlanner,
    texts: {
      description: 'Ask for a note; fill it in and save it.',
      placeholder: 'e.g. a note about the team meeting',
      emptyState: 'No note open yet. Ask for one to get started.',
      hints: ['a note about the team meeting', 'a note called Groceries'],
    },
    // The look of both pages and of A2UI clients. Change it: defineApp refuses a primaryColor
    // whose text (white or near-black) would not reach WCAG AA contrast, and says why.
    theme: { primaryColor: '#2f6f4e', fontFamily: 'system-ui, "Segoe UI", Roboto, sans-serif', radius: 10, mode: 'light' },
  });
}
