import { HTTP_URL, listItems, type DataValue, type ListBlock, type ListItemDisplay, type Surface } from '../ui-ir/index.ts';

/**
 * What a list block shows, the same for every compiler (A2UI v0.8, v0.9 and HTML): per shown
 * item its key and one display string per `display` entry, and the note under the list. Display
 * strings are computed here, server-side, because A2UI has no formatting (a2ui-v0.8.md §7.2).
 *
 * - text, badge: the field as text; nothing when the item lacks it;
 * - value: the field as text, `—` when the item lacks it (it has a label beside it);
 * - image: the field when it is an http(s) URL, else nothing;
 * - note: `empty` when the list has no item, `Showing n of m.` when it has more than it shows,
 *   else nothing.
 * Text: numbers as written, booleans Yes/No, lists joined with ", ", maps as "key: value; …".
 */
export interface ListViewItem {
  readonly key: string;
  readonly values: readonly string[];
}

export interface ListView {
  readonly items: readonly ListViewItem[];
  readonly note: string;
  /** Stored entries left out (no valid key, or a repeated one). */
  readonly invalid: number;
}

const MAX_URL = 2048;

/** A value as list and table cells show it as text (compilers share it: one rule). */
export function textOf(v: DataValue | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (Array.isArray(v)) return v.map(textOf).filter((s) => s !== '').join(', ');
  return Object.entries(v).map(([k, x]) => `${k}: ${textOf(x)}`).join('; ');
}

/** The display string of one entry for one item. */
export function displayString(display: ListItemDisplay, item: Readonly<Record<string, DataValue>>): string {
  const raw = Object.hasOwn(item, display.field) ? item[display.field] : undefined;
  switch (display.kind) {
    case 'image': return typeof raw === 'string' && raw.length <= MAX_URL && HTTP_URL.test(raw) ? raw : '';
    case 'value': { const text = textOf(raw); return text === '' ? '—' : text; }
    default: return textOf(raw);
  }
}

const views = new WeakMap<object, WeakMap<ListBlock, ListView>>();

/** The view of `block` on `surface`; memoised with the items (the same stored array, the same view). */
export function listView(surface: Pick<Surface, 'data'>, block: ListBlock): ListView {
  const items = listItems(surface, block);
  let byBlock = views.get(items);
  if (byBlock === undefined) views.set(items, byBlock = new WeakMap());
  let view = byBlock.get(block);
  if (view === undefined) {
    const total = items.items.length;
    const shown = items.shown.length;
    view = {
      items: items.shown.map((item) => ({ key: item.key, values: block.display.map((d) => displayString(d, item.value)) })),
      note: total === 0 ? block.empty : shown < total ? `Showing ${shown} of ${total}.` : '',
      invalid: items.invalid,
    };
    byBlock.set(block, view);
  }
  return view;
}
