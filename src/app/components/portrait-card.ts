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
    '<% if (it.props.genre) { %><p class="portrait-card__genre"><span class="badge"><%= it.props.genre %></span></p><% } %>',
    '<% if (it.props.tags.length > 0) { %><ul class="portrait-card__tags" aria-label="Tags"><% for (const t of it.props.tags) { %><li><%= t %></li><% } %></ul><% } %>',
    '<% if (it.props.greeting) { %><blockquote class="portrait-card__greeting"><%= it.props.greeting %></blockquote><% } %>',
    '</div></article>',
  ].join('\n'),
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
