import {
  createSeededSource, draw, emptyConversation, openSurface, SurfaceView, type Block, type ComponentBlock, type ConversationIr,
} from '../../../src/ui-ir/index.ts';

/** A collection component with an item action, and a single-value one bound to committed data. */
export const SCORES: ComponentBlock = {
  kind: 'component', component: 'Scoreboard', name: 'scores', props: { title: 'Round one' }, bind: {},
  path: '/ui/scores', itemKey: 'id', actions: [{ name: 'list.choose', label: 'Pick', primary: false }], maxItems: 25,
};
export const GAUGE: ComponentBlock = {
  kind: 'component', component: 'Gauge', name: 'level', props: { label: 'Level' }, bind: { value: '/committed/level' },
  itemKey: 'id', actions: [], maxItems: 25,
};
export const ITEMS = [{ id: 'ann', player: 'Ann', score: 12 }, { id: 'bob', player: 'Bob <b>', score: 7 }];

export function irWith(blocks: Block[]): ConversationIr {
  const view = SurfaceView.parse({ template: 'scores', title: 'Scores', blocks, actions: [] });
  const ir = openSurface(emptyConversation('c1'), { id: 'main', view, ui: { scores: ITEMS } }, draw(createSeededSource('comp')));
  const surface = ir.surfaces[0]!;
  // Committed values are the app's (actions write them); set directly for the test.
  return { ...ir, surfaces: [{ ...surface, data: { ...surface.data, committed: { level: 3 } } }] };
}

