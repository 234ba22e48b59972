import { z } from 'zod';
import { createComponentRegistry, defineComponent, fallbackListOf, type ComponentRegistry } from '../../src/app-kit/index.ts';
import type { Block } from '../../src/ui-ir/index.ts';

/**
 * A test app's components, shared by the component suites (and the IR arbitraries): one that
 * shows a collection with item actions (Scoreboard), one that shows a single value and may bind
 * it to data (Gauge). Their fallbacks follow the contract: basic blocks, the collection's list
 * with the block's name, path, itemKey, maxItems and actions.
 */
export const TEST_CATALOG_ID = 'https://example.com/test-app/catalog.json';

export const Scoreboard = defineComponent({
  name: 'Scoreboard',
  description: 'A ranked table of players and their scores.',
  props: z.object({
    title: z.string().min(1).max(100).optional().describe('shown above the table'),
    highlight: z.number().int().min(0).max(1000).optional().describe('scores at or above this are highlighted'),
    sortable: z.boolean().default(true).describe('the user may sort the table'),
  }),
  item: z.object({ id: z.string(), player: z.string().max(100), score: z.number() }),
  bindable: ['title'],
  html: [
    '<table class="scoreboard" id="<%= it.ids.root %>">',
    '<% if (it.props.title) { %><caption><%= it.props.title %></caption><% } %>',
    '<thead><tr><th>Player</th><th>Score</th><% if (it.actions.length > 0) { %><th>Actions</th><% } %></tr></thead>',
    '<tbody><% for (const item of it.items) { %><tr id="<%= item.id %>">',
    '<td><%= item.value.player ?? "" %></td><td><%= item.value.score ?? "" %></td>',
    '<% if (it.actions.length > 0) { %><td><% for (const b of item.buttons) { %><button type="submit" form="<%= item.formId %>" name="_action" value="<%= b.name %>"><%= b.label %></button><% } %></td><% } %>',
    '</tr><% } %></tbody></table>',
    '<% if (it.note) { %><p class="note"><%= it.note %></p><% } %>',
  ].join(''),
  fallback({ block, props }): Block[] {
    const out: Block[] = [];
    if (block.bind.title !== undefined) out.push({ kind: 'value', label: 'Table', path: block.bind.title });
    out.push({
      ...fallbackListOf(block),
      display: [{ kind: 'text', field: 'player', style: 'title' }, { kind: 'value', field: 'score', label: 'Score' }],
      empty: 'No scores yet.', ...(props.title === undefined ? {} : { title: props.title }),
    });
    return out;
  },
  element: { tag: 'test-scoreboard', module: './scoreboard.js' },
});

export const Gauge = defineComponent({
  name: 'Gauge',
  description: 'A single number shown against its maximum.',
  props: z.object({
    label: z.string().min(1).max(100),
    value: z.number().optional().describe('the number (or bind it)'),
    max: z.number().positive().default(100),
  }),
  bindable: ['value'],
  html: '<div class="gauge" id="<%= it.ids.root %>"><span><%= it.props.label %></span> <meter min="0" max="<%= it.props.max %>" value="<%= it.props.value ?? 0 %>"><%= it.props.value ?? "" %></meter></div>',
  fallback({ block, props }): Block[] {
    if (block.bind.value !== undefined) return [{ kind: 'value', label: props.label, path: block.bind.value }];
    return [{ kind: 'text', text: `${props.label}: ${props.value ?? '—'} of ${props.max}`, tone: 'body' }];
  },
});

export function testComponents(): ComponentRegistry {
  return createComponentRegistry([Scoreboard, Gauge]);
}
