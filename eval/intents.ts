import type { Directive } from './fixture.ts';

/**
 * What the user asked and what a well-behaved model would answer: the ground truth the eval's
 * generated fixtures are rendered from. Labels come from here, never from running the parser.
 */
export interface Intent {
  key: string;
  user: string;
  /** State before the turn, as canonical directives. */
  setup: Directive[];
  assistant_text: string;
  directives: Directive[];
  /** What the model was thinking, in its own words (braces and brackets included, as real reasoning has). */
  reasoning: string;
}

const CARD_FORM: Directive = { type: 'ui.show_form', payload: { template: 'character_card', values: { name: 'Aria' } } };
const PERSONA_FORM: Directive = { type: 'ui.show_form', payload: { template: 'persona' } };

export const INTENTS: Intent[] = [
  {
    key: 'card', user: 'Create a character card for a bard named Aria', setup: [],
    assistant_text: "Here's a character card for Aria. Fill in her personality and save it.",
    directives: [{ type: 'ui.show_form', payload: { template: 'character_card', values: { name: 'Aria', tags: 'fantasy, bard' } } }],
    reasoning: 'The user wants a character card for a bard named Aria. I should use ui.show_form with {"template": "character_card"} and prefill the name. Tags could be [fantasy, bard].',
  },
  {
    key: 'persona', user: "Set up my persona: I'm Sam, they/them, and I like formal replies", setup: [],
    assistant_text: 'I opened your persona with what you told me.',
    directives: [{ type: 'ui.show_form', payload: { template: 'persona', values: { display_name: 'Sam', pronouns: 'they_them', speaking_style: 'formal' } } }],
    reasoning: 'Persona form. display_name = Sam, pronouns they/them maps to "they_them", speaking style formal. The values object is {display_name, pronouns, speaking_style}.',
  },
  {
    key: 'scene', user: 'Scene: a foggy harbour town at night, a mystery, fairly dark', setup: [],
    assistant_text: 'Here are the scene settings for your harbour mystery.',
    directives: [{ type: 'ui.show_form', payload: { template: 'scene_settings', values: { setting: 'A foggy harbour town at night', genre: 'mystery', tone: 7 } } }],
    reasoning: 'Scene settings: setting is the foggy harbour, genre mystery, tone is 0..10 and "fairly dark" is about 7. So values: {"setting": ..., "genre": "mystery", "tone": 7}.',
  },
  {
    key: 'ask', user: "I want to make something but I'm not sure what", setup: [],
    assistant_text: 'Let me ask one question first.',
    directives: [{
      type: 'ui.ask', payload: {
        title: 'What should we set up?', prompt: 'Pick what you would like to create.',
        fields: [{ name: 'goal', label: 'I want to', type: 'select', options: ['create a character', 'edit my persona', 'set the scene'], required: true }],
        submit: 'Continue',
      },
    }],
    reasoning: 'The request is vague, so a clarifier (ui.ask) is better than guessing. One select field {name: goal} with three options.',
  },
  {
    key: 'toast', user: 'thanks, that looks good', setup: [],
    assistant_text: 'Glad you like it!',
    directives: [{ type: 'ui.toast', payload: { level: 'success', text: 'All set.' } }],
    reasoning: 'Nothing to open; a short success toast {level: success} is enough.',
  },
  {
    key: 'patch', user: 'Give her the tagline "Sings of forgotten kings"', setup: [CARD_FORM],
    assistant_text: 'Done, I added the tagline.',
    directives: [{ type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/draft/tagline', value: 'Sings of forgotten kings' }] } }],
    reasoning: 'The card form is open on main. Patch /draft/tagline with op replace; the path must be a JSON Pointer like "/draft/tagline".',
  },
  {
    key: 'close', user: 'close that form please', setup: [CARD_FORM],
    assistant_text: 'Closed.',
    directives: [{ type: 'ui.close', payload: { surface: 'main' } }],
    reasoning: 'Close the surface {"surface": "main"}.',
  },
  {
    key: 'upload', user: 'I want to add an avatar picture', setup: [],
    assistant_text: 'Upload an image and I will attach it to the card.',
    directives: [{ type: 'ui.request_upload', payload: { accept: ['image/png', 'image/jpeg'], purpose: 'An avatar for your character.', label: 'Avatar image' } }],
    reasoning: 'ui.request_upload with accept ["image/png", "image/jpeg"] and a purpose.',
  },
  {
    key: 'multi', user: 'Make a sci-fi scene with long replies and tell me when it is ready', setup: [],
    assistant_text: 'Your sci-fi scene is ready to edit.',
    directives: [
      { type: 'ui.show_form', payload: { template: 'scene_settings', values: { setting: 'A derelict orbital station', genre: 'sci_fi', response_length: 'long' } } },
      { type: 'ui.toast', payload: { level: 'info', text: 'Scene settings opened.' } },
    ],
    reasoning: 'Two directives: show_form scene_settings with genre "sci_fi" and response_length "long", then a toast {level: info}.',
  },
  {
    key: 'villain', user: 'Help me write a villain', setup: [],
    assistant_text: 'Tell me a little about your villain first.',
    directives: [{
      type: 'ui.ask', payload: {
        title: 'Your villain', prompt: 'A few details help me draft the card.',
        fields: [
          { name: 'concept', label: 'Concept', type: 'textarea', required: true },
          { name: 'menace', label: 'How menacing (1-10)?', type: 'number' },
        ],
        submit: 'Draft it', cancel: 'Never mind',
      },
    }],
    reasoning: 'Ask for a concept (textarea, required) and a menace level (number). Fields: [{concept}, {menace}].',
  },
  {
    key: 'patch2', user: 'actually make me she/her and playful', setup: [PERSONA_FORM],
    assistant_text: 'Updated your persona.',
    directives: [{
      type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/draft/pronouns', value: 'she_her' }, { op: 'replace', path: '/draft/speaking_style', value: 'playful' }] },
    }],
    reasoning: 'Two replace ops on the open persona: /draft/pronouns = "she_her", /draft/speaking_style = "playful".',
  },
  {
    key: 'scene2', user: 'romance scene, short replies, and turn content warnings on', setup: [],
    assistant_text: 'Romance scene, short replies, content warnings on.',
    directives: [{ type: 'ui.show_form', payload: { template: 'scene_settings', values: { setting: 'A seaside village in spring', genre: 'romance', response_length: 'short', content_warnings: true } } }],
    reasoning: 'scene_settings with genre romance, response_length short, content_warnings true (a boolean, not "yes").',
  },
];

export function envelopeOf(intent: Intent): { assistant_text: string; directives: Directive[] } {
  return { assistant_text: intent.assistant_text, directives: intent.directives };
}
