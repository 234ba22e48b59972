import {
  createSeededSource, draw, emptyConversation, openSurface, type ConversationIr, type DataValue, type ListBlock, type SurfaceView,
} from '../../src/ui-ir/index.ts';

/** A list of characters on `main` (items at /ui/lists/chars), with two item actions. */
export const CHARS: ListBlock = {
  kind: 'list', name: 'chars', title: 'Characters', path: '/ui/lists/chars', itemKey: 'id',
  display: [
    { kind: 'text', field: 'name', style: 'title' },
    { kind: 'value', field: 'tagline', label: 'Tagline' },
    { kind: 'image', field: 'avatar', alt: 'Avatar' },
    { kind: 'badge', field: 'genre' },
  ],
  actions: [{ name: 'list.choose', label: 'Choose', primary: true }, { name: 'list.remove', label: 'Remove', primary: false }],
  empty: 'No characters yet.', maxItems: 3,
};

export const ARIA = { id: 'aria', name: 'Aria *the* bard', tagline: 'Sings [1,2]', avatar: 'https://example.com/a.png', genre: 'fantasy' };
export const BO = { id: 'bo', name: 'Bo', tagline: 'Quiet', avatar: 'javascript:alert(1)', genre: 'sci-fi' };
export const CY = { id: 'cy', name: 'Cy', genre: 'mystery' };
export const DEE = { id: 'dee', name: 'Dee' };

export function listView(list: ListBlock = CHARS, extra: Partial<SurfaceView> = {}): SurfaceView {
  return { template: 'list', title: 'Pick one', blocks: [{ kind: 'text', text: 'Who?', tone: 'body' }, list], actions: [], ...extra };
}

/** `main` showing `list` over `items`; a seeded source for later transitions. */
export function listIr(items: readonly DataValue[], list: ListBlock = CHARS, view: SurfaceView = listView(list)):
  { ir: ConversationIr; next: () => ReturnType<typeof draw> } {
  const source = createSeededSource('lists');
  const next = (): ReturnType<typeof draw> => draw(source);
  const [ns, ...keys] = list.path.slice(1).split('/');
  let data: Record<string, DataValue> = { [keys[keys.length - 1]!]: [...items] };
  for (const key of keys.slice(0, -1).reverse()) data = { [key]: data };
  const ir = openSurface(emptyConversation('c1'), { id: 'main', view, ...(ns === 'ui' ? { ui: data } : {}) }, next());
  return { ir, next };
}
