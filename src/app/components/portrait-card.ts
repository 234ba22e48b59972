import { defineComponent, z, type Block } from '../../index.ts';

/**
 * The demo's own component: a character's portrait card — initials in a coloured medallion (or
 * the character's picture), name, tagline, genre, tags and the line they greet you with. On the
 * A2UI pages it is <demo-portrait-card> (elements/portrait-card.ts, bundled into the page
 * clients); on the htmx page its Eta template; any other client gets its fallback, basic blocks
 * with the same content.
 */
export const DEMO_CATALOG_ID = 'https://surfacer.example/roleplay-studio/catalog/v1.json';

export const PortraitCard = defineComponent({
  name: 'PortraitCard',
  description: 'A character\'s portrait card: name, tagline, genre, tags, greeting and (optionally) a picture.',
  props: z.object({
    name: z.string().min(1).max(80).describe('the character\'s name'),
    tagline: z.string().max(160).optional().describe('one line about them'),
    genre: z.string().max(40).optional(),
    tags: z.array(z.string().min(1).max(30)).max(8).default([]),
    greeting: z.string().max(400).optional().describe('what they say first'),
    portrait: z.string().max(2048).regex(/^https:\/\/[^\s"'<>]+$/).optional().describe('an https URL of their picture'),
  }),
  html: [
    '<% const initials = it.props.name.split(/\\s+/).map((w) => w.charAt(0)).join("").slice(0, 2).toUpperCase(); %>',
    '<article class="portrait-card" aria-label="<%= it.props.name %>">',
    '<% if (it.props.portrait) { %><img class="portrait-card__picture" src="<%= it.props.portrait %>" alt="<%= it.props.name %>"><% } else { %><span class="portrait-card__initials" aria-hidden="true"><%= initials %></span><% } %>',
    '<div class="portrait-card__body"><h3 class="portrait-card__name"><%= it.props.name %></h3>',
    '<% if (it.props.tagline) { %><p class="portrait-card__tagline"><%= it.props.tagline %></p><% } %>',
    '<% if (it.props.genre || it.props.tags.length > 0) { %><div class="portrait-card__chips">',
    '<% if (it.props.genre) { %><p class="portrait-card__genre"><%= it.props.genre %></p><% } %>',
    '<% if (it.props.tags.length > 0) { %><ul class="portrait-card__tags" aria-label="Tags"><% for (const t of it.props.tags) { %><li><%= t %></li><% } %></ul><% } %>',
    '</div><% } %>',
    '<% if (it.props.greeting) { %><blockquote class="portrait-card__greeting"><%= it.props.greeting %></blockquote><% } %>',
    '</div></article>',
  ].join('\n'),
  // The htmx page's look of the card, as close to the element's as plain CSS gets: a medallion,
  // chips for the genre and tags, the greeting as a quote. Served beside the page's own CSS.
  css: `
.portrait-card { display: flex; gap: 1rem; align-items: flex-start; padding: 1rem; border: 1px solid var(--line, #d1d5db);
  border-radius: calc(var(--radius, 8px) * 1.5); background: linear-gradient(135deg, #eef2ff, #fff 60%); }
.portrait-card__initials, .portrait-card__picture { flex: none; width: 4.5rem; height: 4.5rem; border-radius: 50%; }
.portrait-card__initials { display: grid; place-items: center; font-size: 1.6rem; font-weight: 700; color: #fff;
  background: var(--accent, #4338ca); box-shadow: 0 2px 6px rgb(0 0 0 / 0.15); }
.portrait-card__picture { object-fit: cover; }
.portrait-card__body { min-width: 0; }
.portrait-card__name { margin: 0; font-size: 1.25rem; }
.portrait-card__tagline { margin: .2rem 0 .5rem; color: var(--muted, #6b7280); font-style: italic; }
.portrait-card__chips { display: flex; flex-wrap: wrap; gap: .3rem; margin: 0 0 .5rem; }
.portrait-card__genre, .portrait-card__tags li { padding: .05rem .55rem; border-radius: 999px; font-size: .85em; }
.portrait-card__genre { margin: 0; background: var(--accent, #4338ca); color: #fff; }
.portrait-card__tags { display: flex; flex-wrap: wrap; gap: .3rem; margin: 0; padding: 0; list-style: none; }
.portrait-card__tags li { background: #e0e7ff; color: #3730a3; }
.portrait-card__greeting { margin: 0; padding-left: .75rem; border-left: 3px solid var(--accent, #4338ca); }
.portrait-card__greeting::before { content: "“"; }
.portrait-card__greeting::after { content: "”"; }
@media (max-width: 30rem) {
  .portrait-card { flex-direction: column; align-items: center; text-align: center; }
  .portrait-card__chips { justify-content: center; }
  .portrait-card__greeting { border-left: 0; padding-left: 0; }
}
`,
  fallback({ props }): Block[] {
    const blocks: Block[] = [];
    if (props.portrait !== undefined) blocks.push({ kind: 'image', url: props.portrait, alt: props.name });
    blocks.push({ kind: 'heading', text: props.name, level: 3 });
    if (props.tagline) blocks.push({ kind: 'text', text: props.tagline, tone: 'caption' });
    if (props.genre) blocks.push({ kind: 'text', text: `Genre: ${props.genre}`, tone: 'body' });
    if (props.tags.length > 0) blocks.push({ kind: 'text', text: `Tags: ${props.tags.join(', ')}`, tone: 'body' });
    if (props.greeting) blocks.push({ kind: 'text', text: `“${props.greeting}”`, tone: 'body' });
    return blocks;
  },
  element: { tag: 'demo-portrait-card', module: new URL('../elements/portrait-card.ts', import.meta.url).href },
});
