import type { Block, SurfaceView } from '../../../src/ui-ir/index.ts';

/** A view with every basic-catalogue block: tabs (a field in the second tab), a modal with a field, icons, video, audio. */
export const HOSTILE = '<script>alert(1)</script> & "q" \'s\' *md* [x](y)';

export function catalogueView(overrides: { blocks?: Block[] } = {}): SurfaceView {
  return {
    template: 'catalogue',
    title: 'Catalogue',
    blocks: overrides.blocks ?? [
      {
        kind: 'tabs', blocks: [
          { kind: 'group', title: 'Profile', layout: 'column', blocks: [{ kind: 'text', text: 'First tab', tone: 'body' }] },
          { kind: 'group', title: HOSTILE, layout: 'row', blocks: [{ kind: 'field', name: 'nick', label: 'Nickname', control: 'text', required: false }] },
        ],
      },
      { kind: 'modal', label: 'Open details', title: 'Details', blocks: [{ kind: 'field', name: 'note', label: 'Note', control: 'textarea', required: false }] },
      { kind: 'icon', name: 'shoppingCart', label: '' },
      { kind: 'icon', name: 'star', label: HOSTILE },
      { kind: 'video', url: 'https://example.com/v.mp4?a=1&b=2', caption: HOSTILE },
      { kind: 'audio', url: 'http://example.com/a.ogg', description: 'Theme song' },
    ],
    actions: [{ name: 'form.submit', label: 'Save', role: 'submit', primary: true }],
  };
}
