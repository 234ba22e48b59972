import type { FieldOption } from '../index.ts';
import type { FieldSpec } from './fields.ts';

/** A form the model can open by name with `ui.show_form`. */
export interface TemplateDefinition {
  name: string;
  /** Names a model might use instead (`character`, `card`); folded to snake_case first. */
  aliases: readonly string[];
  title: string;
  /** One line for the model's catalogue and the form's caption. */
  description: string;
  submitLabel: string;
  fields: readonly FieldSpec[];
}

function options(...pairs: Array<[string, string]>): FieldOption[] {
  return pairs.map(([value, label]) => ({ value, label }));
}

export const CHARACTER_CARD: TemplateDefinition = {
  name: 'character_card',
  aliases: ['character', 'card', 'character_sheet', 'charactercard'],
  title: 'Character card',
  description: 'Create or edit a roleplay character: name, personality, greeting, tags, avatar.',
  submitLabel: 'Save character',
  fields: [
    { name: 'name', label: 'Name', control: 'text', required: true, maxLength: 80, placeholder: 'Aria Nightingale' },
    { name: 'tagline', label: 'Tagline', control: 'text', maxLength: 140, placeholder: 'A wandering bard with a secret' },
    { name: 'personality', label: 'Personality', control: 'textarea', required: true, maxLength: 4000,
      help: 'Traits, quirks, motivations. Written in third person.' },
    { name: 'greeting', label: 'Greeting', control: 'textarea', maxLength: 2000,
      help: 'The first message the character sends in a new chat.' },
    { name: 'tags', label: 'Tags', control: 'tags', placeholder: 'fantasy, bard, mystery', help: 'Comma-separated.' },
    { name: 'avatar_url', label: 'Avatar URL', control: 'url', placeholder: 'https://example.com/aria.png' },
    { name: 'visibility', label: 'Visibility', control: 'select', default: 'private',
      options: options(['private', 'Private'], ['unlisted', 'Unlisted'], ['public', 'Public']) },
  ],
};

export const PERSONA: TemplateDefinition = {
  name: 'persona',
  aliases: ['user_persona', 'profile', 'my_persona'],
  title: 'Your persona',
  description: 'Who the user plays as: display name, pronouns, short bio, speaking style.',
  submitLabel: 'Save persona',
  fields: [
    { name: 'display_name', label: 'Display name', control: 'text', required: true, maxLength: 60 },
    { name: 'pronouns', label: 'Pronouns', control: 'select',
      options: options(['she_her', 'she/her'], ['he_him', 'he/him'], ['they_them', 'they/them'], ['any', 'any pronouns'], ['unspecified', 'prefer not to say']) },
    { name: 'bio', label: 'Bio', control: 'textarea', maxLength: 1000, help: 'What characters know about you.' },
    { name: 'speaking_style', label: 'Speaking style', control: 'select', default: 'casual',
      options: options(['casual', 'Casual'], ['formal', 'Formal'], ['poetic', 'Poetic'], ['terse', 'Terse'], ['playful', 'Playful']) },
  ],
};

export const SCENE_SETTINGS: TemplateDefinition = {
  name: 'scene_settings',
  aliases: ['scene', 'setting', 'settings', 'scene_setup'],
  title: 'Scene settings',
  description: 'The scene of the roleplay: setting, genre, tone, reply length, content warnings, in-story date.',
  submitLabel: 'Save scene',
  fields: [
    { name: 'setting', label: 'Setting', control: 'textarea', required: true, maxLength: 2000,
      placeholder: 'A rain-soaked harbour town at dusk' },
    { name: 'genre', label: 'Genre', control: 'select',
      options: options(['fantasy', 'Fantasy'], ['sci_fi', 'Science fiction'], ['mystery', 'Mystery'], ['romance', 'Romance'],
        ['horror', 'Horror'], ['slice_of_life', 'Slice of life'], ['historical', 'Historical']) },
    { name: 'tone', label: 'Tone (0 light – 10 dark)', control: 'slider', min: 0, max: 10, step: 1, default: 5 },
    { name: 'response_length', label: 'Response length', control: 'select', default: 'medium',
      options: options(['short', 'Short'], ['medium', 'Medium'], ['long', 'Long']) },
    { name: 'content_warnings', label: 'Show content warnings', control: 'checkbox',
      help: 'Ask before describing violence or other intense content.' },
    { name: 'scene_date', label: 'In-story date', control: 'date' },
  ],
};

export const DEMO_TEMPLATES: readonly TemplateDefinition[] = [CHARACTER_CARD, PERSONA, SCENE_SETTINGS];

const BY_NAME = new Map<string, TemplateDefinition>();
for (const t of DEMO_TEMPLATES) for (const n of [t.name, ...t.aliases]) BY_NAME.set(n, t);

/** Exact canonical name. */
export function templateByName(name: string): TemplateDefinition | undefined {
  const t = BY_NAME.get(name);
  return t !== undefined && t.name === name ? t : undefined;
}

/** Canonical name, alias, or a loose spelling ("Character Card", "scene-settings"). */
export function resolveTemplateName(name: string): TemplateDefinition | undefined {
  return BY_NAME.get(name) ?? BY_NAME.get(name.trim().replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[\s-]+/g, '_').toLowerCase());
}
