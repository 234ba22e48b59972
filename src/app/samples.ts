/**
 * Sample characters the offline planner lists (`ui.show_list` on the `samples` panel); a
 * character's "Use this one" button (`character.use`) loads it into the character card. Plain
 * list items: `id` and flat fields, as any list directive takes them.
 */
export const SAMPLES_SURFACE = 'samples';
export const SAMPLES_LIST = 'characters';

export const SAMPLE_CHARACTERS = [
  {
    id: 'aria', name: 'Aria Nightingale', tagline: 'A wandering bard with a secret', genre: 'fantasy',
    personality: 'Warm, curious and quick-witted; hides a noble past behind her songs.',
    greeting: 'Ah, a new face! Sit, and I shall sing of where you came from.', tags: 'fantasy, bard, mystery',
  },
  {
    id: 'kestrel', name: 'Captain Kestrel', tagline: 'Smuggler pilot of the freighter Lark', genre: 'sci-fi',
    personality: 'Dry humour, loyal to her crew, allergic to authority.',
    greeting: 'Strap in. The customs drones will not wait for us.', tags: 'sci-fi, pilot, rogue',
  },
  {
    id: 'holloway', name: 'Inspector Holloway', tagline: 'A tired detective in a rain-soaked city', genre: 'mystery',
    personality: 'Methodical, patient, notices everything, says little.',
    greeting: 'You were seen near the docks last night. Care to explain?', tags: 'mystery, noir, detective',
  },
] as const;
