import type { ConversationIr, Planner, PlannerInput, PlannerOutput } from '../index.ts';
import { SAMPLE_CHARACTERS, SAMPLES_LIST, SAMPLES_SURFACE } from './samples.ts';

/**
 * The embedded planner used when no model is configured or reachable. Deterministic and
 * keyword-driven; it answers with the same kind of raw text a model sends (a JSON envelope,
 * optionally in a markdown fence) so its output takes the same parse → validate → run path.
 * It says that it is offline, in its label and in every reply.
 */
export interface OfflinePlannerOptions {
  /** Wrap replies in a ```json fence like many chat models do (not canonical: strict mode refuses it). */
  fenced?: boolean;
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
    text: `Here is the ${label} form. Fill it in and press save. ${OFFLINE_NOTE}`,
    directives: [{ type: 'ui.show_form', payload }],
  };
}

const CLARIFIER: Plan = {
  rule: 'ask',
  text: `I am not sure what you would like to do yet. ${OFFLINE_NOTE}`,
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
  text: `Here are some sample characters. Pick one to load it into the character card. ${OFFLINE_NOTE}`,
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
      return { rule: 'close_none', text: `There is nothing open to close. ${OFFLINE_NOTE}`, directives: [{ type: 'ui.toast', payload: { level: 'info', text: 'Nothing to close' } }] };
    }
    return {
      rule: 'close',
      text: `Closed. ${OFFLINE_NOTE}`,
      directives: [{ type: 'ui.close', payload: { surface: target } }, { type: 'ui.toast', payload: { level: 'info', text: 'Panel closed' } }],
    };
  }
  if (has(text, 'upload', 'avatar image', 'picture', 'photo')) {
    return {
      rule: 'upload',
      text: `Send me the image you want to use. ${OFFLINE_NOTE}`,
      directives: [{ type: 'ui.request_upload', payload: { accept: ['image/png', 'image/jpeg', 'image/webp'], purpose: 'An image for your character or persona.', label: 'Image' } }],
    };
  }
  if (has(text, 'sample', 'examples', 'browse')) return SAMPLES;
  if (has(text, 'persona', 'myself', 'my profile')) return showForm('persona', 'persona');
  if (has(text, 'character', 'card', 'npc')) {
    const name = nameFrom(text);
    return showForm('character_card', 'character card', name === undefined ? undefined : { name });
  }
  if (has(text, 'scene', 'setting', 'genre', 'tone')) return showForm('scene_settings', 'scene settings');
  if (has(text, 'thanks', 'thank you')) {
    return { rule: 'thanks', text: `You are welcome! ${OFFLINE_NOTE}`, directives: [{ type: 'ui.toast', payload: { level: 'success', text: 'Happy to help' } }] };
  }
  return CLARIFIER;
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
      const plan = planFor(input.text, input.ir);
      return {
        rawText: renderPlan(plan, options.fenced ?? false),
        provider: 'offline',
        model: 'offline-keywords-v1',
        llmMs: 0,
        meta: { rule: plan.rule, offline: true },
      };
    },
  };
}
