import {
  DataMapSchema, z, type ActionEvent, type ConversationIr, type Planner, type PlannerInput, type PlannerOutput, type PlannerTools, type ToolStep,
} from '../index.ts';
import { draftFromCommitted } from './commit.ts';
import { viewFields } from './fields.ts';
import { SAMPLE_CHARACTERS, SAMPLES_LIST, SAMPLES_SURFACE } from './samples.ts';
import { CHARACTER_CARD } from './templates.ts';
import { FIND_CARDS, FoundCard } from './tools.ts';
import { templateView } from './views.ts';

/**
 * The embedded planner used when no model is configured or reachable. Deterministic and
 * keyword-driven; it answers with the same kind of raw text a model sends (a JSON envelope,
 * optionally in a markdown fence) so its output takes the same parse → validate → run path.
 * It says that it is offline in its label, and once in a conversation: in its first reply (not
 * in every one, where it would drown what the replies say).
 */
export interface OfflinePlannerOptions {
  /** Wrap replies in a ```json fence like many chat models do (not canonical: strict mode refuses it). */
  fenced?: boolean;
  /**
   * Stream the answer like a model would (docs/streaming.md): `chars` characters every `everyMs`
   * milliseconds to whoever reads it (PlannerInput.stream). For browser tests and demos, so
   * progress can be seen without a model; off by default (the answer comes whole, at once).
   */
  stream?: { chars: number; everyMs: number };
}

type Directive = { type: string; payload: Record<string, unknown> };
type Plan = { rule: string; text: string; directives: Directive[] };

const OFFLINE_NOTE = '(Offline planner: no language model is connected, so I follow simple keywords.)';

function has(text: string, ...words: string[]): boolean {
  return words.some((w) => new RegExp(`\\b${w}`, 'i').test(text));
}

/** "a character named Aria" / "called Aria" → "Aria" (letters, digits, spaces, ' and -). */
function nameFrom(text: string): string | undefined {
  const match = /\b(?:named|called)\s+([A-Za-z0-9][A-Za-z0-9' -]{0,40}?)(?=[.,;!?]|\s+(?:who|with|and|that)\b|$)/i.exec(text);
  return match?.[1]?.trim();
}

function liveSurfaces(ir: ConversationIr): string[] {
  return ir.surfaces.filter((s) => s.lifecycle !== 'deleted').map((s) => s.id);
}

function showForm(template: string, label: string, values?: Record<string, unknown>): Plan {
  const payload: Record<string, unknown> = { template };
  if (values !== undefined) payload.values = values;
  return {
    rule: template,
    text: `Here is the ${label} form. Fill it in and press save.`,
    directives: [{ type: 'ui.show_form', payload }],
  };
}

const CLARIFIER: Plan = {
  rule: 'ask',
  text: `I am not sure what you would like to do yet.`,
  directives: [{
    type: 'ui.ask',
    payload: {
      title: 'What would you like to set up?',
      prompt: 'I can open a character card, your persona, or the scene settings.',
      fields: [
        { name: 'goal', label: 'I want to edit', type: 'select', options: ['character card', 'persona', 'scene settings'], required: true },
        { name: 'details', label: 'Anything else?', type: 'textarea', placeholder: 'Optional details' },
      ],
      submit: 'Continue',
      cancel: 'Never mind',
    },
  }],
};

/** The sample characters as a list: "Use this one" loads one into the character card. */
const SAMPLES: Plan = {
  rule: 'samples',
  text: `Here are some sample characters. Pick one to load it into the character card.`,
  directives: [{
    type: 'ui.show_list',
    payload: {
      surface: SAMPLES_SURFACE, list: SAMPLES_LIST, title: 'Sample characters',
      fields: [{ name: 'name', show: 'title' }, { name: 'tagline' }, { name: 'genre', show: 'badge' }],
      actions: [{ name: 'character.use', label: 'Use this one', primary: true }, { name: 'list.remove', label: 'Hide' }],
      items: SAMPLE_CHARACTERS.map((c) => ({ ...c })),
      empty: 'No samples left. Ask for them again to see them all.',
    },
  }],
};

export function planFor(text: string, ir: ConversationIr): Plan {
  if (has(text, 'close', 'dismiss', 'hide')) {
    const open = liveSurfaces(ir);
    const target = open.at(-1);
    if (target === undefined) {
      return { rule: 'close_none', text: `There is nothing open to close.`, directives: [{ type: 'ui.toast', payload: { level: 'info', text: 'Nothing to close' } }] };
    }
    return {
      rule: 'close',
      text: `Closed.`,
      directives: [{ type: 'ui.close', payload: { surface: target } }, { type: 'ui.toast', payload: { level: 'info', text: 'Panel closed' } }],
    };
  }
  if (has(text, 'upload', 'avatar image', 'picture', 'photo')) {
    return {
      rule: 'upload',
      text: `Send me the image you want to use.`,
      directives: [{ type: 'ui.request_upload', payload: { accept: ['image/png', 'image/jpeg', 'image/webp'], purpose: 'An image for your character or persona.', label: 'Image' } }],
    };
  }
  if (has(text, 'portrait')) return portraitOf(text);
  if (has(text, 'sample', 'examples', 'browse')) return SAMPLES;
  const form = formFor(text);
  if (form !== undefined) {
    const name = form.template === 'character_card' ? nameFrom(text) : undefined;
    return showForm(form.template, form.label, name === undefined ? undefined : { name });
  }
  if (has(text, 'thanks', 'thank you')) {
    return { rule: 'thanks', text: `You are welcome!`, directives: [{ type: 'ui.toast', payload: { level: 'success', text: 'Happy to help' } }] };
  }
  return CLARIFIER;
}

/** A sample character's portrait card (the demo's own component), the one the text names (default the first). */
function portraitOf(text: string): Plan {
  const c = SAMPLE_CHARACTERS.find((s) => s.name.split(' ').some((w) => w.length > 3 && has(text, w))) ?? SAMPLE_CHARACTERS[0];
  return {
    rule: 'portrait',
    text: `Here is ${c.name}'s portrait card.`,
    directives: [{
      type: 'ui.show_component',
      payload: {
        surface: 'portrait', title: 'Character portrait', component: 'PortraitCard',
        props: { name: c.name, tagline: c.tagline, genre: c.genre, tags: c.tags.split(',').map((t) => t.trim()).filter((t) => t !== c.genre), greeting: c.greeting },
      },
    }],
  };
}

interface FormChoice {
  template: string;
  label: string;
  /** The field a name ("named Aria") goes into, and the free-text field details go into. */
  nameField: string;
  detailsField: string;
}

const FORMS: ReadonlyArray<FormChoice & { words: string[] }> = [
  { template: 'persona', label: 'persona', words: ['persona', 'myself', 'my profile'], nameField: 'display_name', detailsField: 'bio' },
  { template: 'character_card', label: 'character card', words: ['character', 'card', 'npc'], nameField: 'name', detailsField: 'personality' },
  { template: 'scene_settings', label: 'scene settings', words: ['scene', 'setting', 'genre', 'tone'], nameField: '', detailsField: 'setting' },
];

/** The form a text asks for, by keyword (the first match in FORMS order). */
function formFor(text: string): FormChoice | undefined {
  return FORMS.find((f) => has(text, ...f.words));
}

/**
 * A clarifier's answers (an ask.submit continuation): its `goal` answer picks the form (any
 * answer's text when there is no goal), and its `details` are carried over — a name ("named
 * Aria") into the form's name field, the whole text into its free-text field. Answers that ask
 * for no form are acknowledged; the clarifier is never opened again from its own answers.
 */
export function planForEvent(event: ActionEvent): Plan {
  const answer = (name: string) => event.answers.find((a) => a.name === name);
  const goal = answer('goal');
  const subject = goal !== undefined && goal.value !== null ? goal.text : event.answers.map((a) => a.text).join(' ');
  const form = formFor(subject);
  if (form === undefined) {
    return { rule: 'answers', text: `Thanks, I have your answers.`, directives: [{ type: 'ui.toast', payload: { level: 'info', text: 'Answers noted' } }] };
  }
  const details = answer('details');
  const text = details !== undefined && typeof details.value === 'string' ? details.value.trim() : '';
  const values: Record<string, unknown> = {};
  const name = text === '' ? undefined : nameFrom(text);
  if (name !== undefined && form.nameField !== '') values[form.nameField] = name;
  // Within every template's limit for its free-text field (persona bio: 1000 characters).
  if (text !== '') values[form.detailsField] = text.slice(0, 1000);
  return { ...showForm(form.template, form.label, Object.keys(values).length > 0 ? values : undefined), rule: `answers:${form.template}` };
}

/** "open my saved card named Aria", "load a card from my library": a lookup in the card library. */
function wantsSavedCard(text: string): boolean {
  return has(text, 'saved', 'library') && has(text, 'card', 'character');
}

/**
 * The card library through the app's find_cards tool (the offline planner calls it itself; a
 * model would in its tool loop): the newest saved card matching the name opens in the card form.
 * The call is reported like a model's tool step, so the trace shows it.
 */
async function planFromLibrary(text: string, tools: PlannerTools, signal: AbortSignal): Promise<{ plan: Plan; step: ToolStep }> {
  const query = nameFrom(text) ?? '';
  const args = { query, limit: 1 };
  const started = performance.now();
  const outcome = await tools.call(FIND_CARDS, args, signal);
  const step: ToolStep = { index: 0, round: 0, name: FIND_CARDS, arguments: args, ok: outcome.ok, result: outcome.result, ms: performance.now() - started };
  const found = outcome.ok ? z.array(FoundCard).safeParse(outcome.result) : undefined;
  const card = found?.success ? found.data[0] : undefined;
  const saved = card === undefined ? undefined : DataMapSchema.safeParse(card.card);
  if (card === undefined || saved === undefined || !saved.success) {
    const what = !outcome.ok ? 'I could not read your card library.' : query === '' ? 'You have no saved cards yet.' : `I found no saved card named ${query}.`;
    return { step, plan: { rule: 'saved_card_none', text: what, directives: [{ type: 'ui.toast', payload: { level: 'info', text: what } }] } };
  }
  // Empty fields are left to the form's defaults: "" is not a value every field's schema takes (a URL).
  const values = Object.fromEntries(Object.entries(draftFromCommitted(viewFields(templateView(CHARACTER_CARD)), saved.data)).filter(([, v]) => v !== ''));
  const form = showForm(CHARACTER_CARD.name, 'character card', values);
  const name = typeof saved.data['name'] === 'string' ? saved.data['name'] : card.id;
  return { step, plan: { ...form, rule: 'saved_card', text: `Here is your saved card “${name}” (${card.id}).` } };
}

export function renderPlan(plan: Plan, fenced: boolean): string {
  const json = JSON.stringify({ assistant_text: plan.text, directives: plan.directives }, null, 2);
  return fenced ? `\`\`\`json\n${json}\n\`\`\`\n` : json;
}

export function createOfflinePlanner(options: OfflinePlannerOptions = {}): Planner {
  return {
    name: 'offline',
    label: 'Offline planner (no language model connected)',
    async plan(input: PlannerInput, signal: AbortSignal): Promise<PlannerOutput> {
      signal.throwIfAborted();
      const lookup = input.event === undefined && input.tools !== undefined && wantsSavedCard(input.text)
        ? await planFromLibrary(input.text, input.tools, signal) : undefined;
      const chosen = lookup?.plan ?? (input.event !== undefined ? planForEvent(input.event) : planFor(input.text, input.ir));
      const plan = input.ir.transcript.some((e) => e.role === 'assistant') ? chosen : { ...chosen, text: `${chosen.text} ${OFFLINE_NOTE}` };
      const output: PlannerOutput = {
        rawText: renderPlan(plan, options.fenced ?? false),
        provider: 'offline',
        model: 'offline-keywords-v1',
        llmMs: 0,
        meta: {
          rule: plan.rule, offline: true,
          ...(lookup ? { tool_loop: { tools: input.tools!.definitions.map((d) => d.name), stopped: 'answered', requests: 1 } } : {}),
        },
      };
      if (lookup) output.toolSteps = [lookup.step];
      const pace = options.stream;
      if (pace !== undefined && input.stream !== undefined) {
        const started = performance.now();
        const size = Math.max(1, Math.trunc(pace.chars));
        for (let i = 0; i < output.rawText.length; i += size) {
          if (i > 0) await pause(pace.everyMs, signal);
          input.stream.text(output.rawText.slice(i, i + size));
        }
        output.llmMs = performance.now() - started;
        output.meta = { ...output.meta, stream: true };
      }
      return output;
    },
    ...(options.stream === undefined ? {} : { streams: true }),
  };
}

/** Waits `ms`, or rejects as soon as `signal` aborts (a cancel ends the paced answer at once). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(signal.reason); return; }
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = (): void => { clearTimeout(timer); reject(signal.reason); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
