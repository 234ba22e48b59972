import { emptyConversation, type ConversationIr, type DataMap, type Surface, type SurfaceView } from '../../../src/ui-ir/index.ts';

/** A surface with one field of every control type, built directly (compiler input is the IR). */
export function everyControlView(): SurfaceView {
  const options = [{ value: 'a', label: 'Alpha' }, { value: 'b', label: 'Beta' }, { value: 'c', label: 'Gamma' }];
  return {
    template: 'kitchen_sink',
    title: 'Every control',
    blocks: [
      { kind: 'heading', text: 'Basics', level: 1 },
      { kind: 'text', text: 'Fill in <everything> & "more"', tone: 'body' },
      { kind: 'field', name: 'title', label: 'Title', control: 'text', required: true, help: 'A short title.', maxLength: 80, placeholder: 'e.g. Aria' },
      { kind: 'field', name: 'story', label: 'Story', control: 'textarea', required: false },
      { kind: 'field', name: 'age', label: 'Age', control: 'number', required: false, min: 0, max: 120, step: 1 },
      { kind: 'field', name: 'password', label: 'Password', control: 'secret', required: false },
      { kind: 'field', name: 'born', label: 'Born', control: 'date', required: false },
      { kind: 'field', name: 'meeting', label: 'Meeting', control: 'datetime', required: false },
      { kind: 'field', name: 'alarm', label: 'Alarm', control: 'time', required: false },
      { kind: 'field', name: 'agree', label: 'I agree', control: 'checkbox', required: true },
      { kind: 'field', name: 'pick', label: 'Pick one', control: 'select', required: false, options },
      { kind: 'field', name: 'many', label: 'Pick some', control: 'multiselect', required: false, options, help: 'Any number.' },
      { kind: 'field', name: 'volume', label: 'Volume', control: 'slider', required: false, min: 0, max: 10, step: 1 },
      { kind: 'field', name: 'tags', label: 'Tags', control: 'tags', required: false },
      { kind: 'field', name: 'site', label: 'Website', control: 'url', required: false },
      { kind: 'field', name: 'mail', label: 'Email', control: 'email', required: false },
      { kind: 'divider' },
      { kind: 'image', url: 'https://example.com/a.png?x=1&y=2', alt: 'An "image"' },
      {
        kind: 'group', title: 'Saved', layout: 'row', blocks: [
          { kind: 'value', label: 'Saved title', path: '/committed/title' },
          { kind: 'value', label: 'Saved tags', path: '/committed/tags' },
          { kind: 'value', label: 'Saved agree', path: '/committed/agree' },
          { kind: 'value', label: 'Nothing yet', path: '/committed/none' },
        ],
      },
      { kind: 'upload', name: 'avatar', label: 'Avatar', accept: ['image/png', '.jpg'], purpose: 'Your picture.', fallback: 'Or paste a link in the bio.' },
    ],
    actions: [
      { name: 'form.cancel', label: 'Cancel', role: 'cancel', primary: false },
      { name: 'form.submit', label: 'Save', role: 'submit', primary: true },
    ],
  };
}

export const DRAFT: DataMap = {
  title: 'Aria <b>"the bard"</b>', story: 'Once\nupon a time', age: 42, password: 'hunter2', born: '2001-02-03',
  meeting: '2026-05-06T07:08:09.000Z', alarm: '06:30', agree: true, pick: 'b', many: ['a', 'c'], volume: 7,
  tags: ['red', 'green'], site: 'https://example.com', mail: 'a@example.com',
};

export function surfaceOf(view: SurfaceView, data: Partial<Surface['data']> = {}, extra: Partial<Surface> = {}): Surface {
  return {
    id: 'main', epoch: 2, rev: 5, nonce: 'nonce_ABCDEFGHIJ', lifecycle: 'editing', view,
    data: { draft: {}, committed: {}, ui: {}, ...data }, tombstones: [],
    createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:01Z', ...extra,
  };
}

export function irWith(...surfaces: Surface[]): ConversationIr {
  return { ...emptyConversation('conv1'), surfaces };
}
