import type { Types } from '@a2ui/lit/v0_8';

/*
 * Surfacer's theme for the official Lit v0.8 renderer. Every component reads
 * `theme.components.<Type>` (class maps) and Text reads `theme.markdown` (class lists), so every
 * key must exist. Class names are the structural utility classes web_core ships inside each
 * component's shadow root (layout-*, typography-*, color-*, border-*, behavior-*); colours come
 * from the palette variables (--p-*, --n-*, …) defined in page.css, which inherit into shadow
 * roots. `elements` is part of the type but unread by the 0.11 components; filled for
 * completeness.
 */

type ClassMap = Record<string, boolean>;

function cls(...names: string[]): ClassMap {
  return Object.fromEntries(names.map((n) => [n, true]));
}

// As the htmx page: labels in the body size and bold, panels as one white card (the surface element is no card).
const labelText = ['typography-f-sf', 'typography-sz-bm', 'typography-w-600', 'color-c-n10'];
const inputBox = [
  'layout-pt-2', 'layout-pb-2', 'layout-pl-3', 'layout-pr-3',
  'border-br-2', 'border-bw-1', 'border-bs-s', 'color-bc-n80',
  'color-bgc-n100', 'color-c-n10', 'typography-f-sf', 'typography-sz-bm',
];
const fieldStack = ['layout-dsp-flexvert', 'layout-g-1', 'layout-w-100'];

const field = (): { container: ClassMap; element: ClassMap; label: ClassMap } => ({
  container: cls(...fieldStack),
  element: cls(...inputBox),
  label: cls(...labelText),
});

/** A Button that is not `primary` (overrides.ts): outlined, as the htmx page's secondary buttons. */
export const SECONDARY_BUTTON: ClassMap = cls(
  'layout-pt-2', 'layout-pb-2', 'layout-pl-5', 'layout-pr-5',
  'border-br-2', 'border-bw-1', 'border-bs-s', 'color-bc-n70', 'color-bgc-n100', 'color-c-n10',
  'typography-f-sf', 'typography-sz-ll', 'typography-w-500', 'behavior-ho-90',
);

export const surfacerTheme: Types.Theme = {
  components: {
    AudioPlayer: cls('layout-w-100', 'border-br-3'),
    Button: cls(
      'layout-pt-2', 'layout-pb-2', 'layout-pl-5', 'layout-pr-5',
      'border-br-2', 'border-bw-0', 'color-bgc-p40', 'color-c-p100',
      'typography-f-sf', 'typography-sz-ll', 'typography-w-500', 'behavior-ho-90',
    ),
    Card: cls('layout-p-4', 'border-br-2', 'border-bw-1', 'border-bs-s', 'color-bc-n90', 'color-bgc-n100'),
    Column: cls('layout-g-3'),
    CheckBox: {
      container: cls('layout-dsp-iflex', 'layout-al-c', 'layout-g-2'),
      element: cls('layout-m-0'),
      label: cls('typography-f-sf', 'typography-sz-bm', 'color-c-n20'),
    },
    DateTimeInput: field(),
    Divider: cls('border-btw-1', 'border-bs-s', 'color-bc-n90'),
    Image: {
      all: cls('border-br-2', 'layout-el-cv'),
      icon: cls('layout-wp-6', 'layout-hp-6'),
      avatar: cls('layout-wp-12', 'layout-hp-12', 'border-br-50pc'),
      smallFeature: cls('layout-w-30'),
      mediumFeature: cls('layout-w-60'),
      largeFeature: cls('layout-w-100'),
      header: cls('layout-w-100', 'layout-hp-15'),
    },
    Icon: cls('color-c-p40'),
    List: cls('layout-dsp-flexvert', 'layout-g-2'),
    Modal: {
      backdrop: cls('color-bbgc-n10_40'),
      element: cls('layout-p-6', 'border-br-4', 'border-bw-0', 'color-bgc-n100', 'color-c-n10'),
    },
    MultipleChoice: {
      container: cls(...fieldStack),
      element: cls('layout-p-2', 'border-br-2', 'border-bw-1', 'border-bs-s', 'color-bc-n80', 'color-bgc-n100'),
      label: cls(...labelText),
    },
    Row: cls('layout-g-3', 'layout-al-c'),
    Slider: {
      container: cls(...fieldStack),
      element: cls('layout-w-100'),
      label: cls(...labelText),
    },
    Tabs: {
      container: cls('layout-dsp-flexvert', 'layout-g-3'),
      element: cls('layout-dsp-flexhor', 'layout-g-2', 'border-bbw-1', 'border-bs-s', 'color-bc-n90'),
      controls: {
        all: cls(
          'layout-pt-2', 'layout-pb-2', 'layout-pl-3', 'layout-pr-3', 'border-bw-0',
          'color-bgc-transparent', 'color-c-n40', 'typography-f-sf', 'typography-sz-ll', 'behavior-ho-70',
        ),
        selected: cls('color-c-p40', 'typography-w-600'),
      },
    },
    // No colour on Text: it inherits, so a Button's label takes the button's colour.
    Text: {
      all: cls('typography-f-sf'),
      h1: cls('typography-sz-hs', 'typography-w-600'),
      h2: cls('typography-sz-tl', 'typography-w-600'),
      h3: cls('typography-sz-tm', 'typography-w-600'),
      h4: cls('typography-sz-ts', 'typography-w-600'),
      h5: cls('typography-sz-ts', 'typography-w-600'),
      caption: cls('opacity-el-70'),
      body: {},
    },
    TextField: field(),
    Video: cls('layout-w-100', 'border-br-3'),
  },
  elements: {
    a: cls('color-c-p40'),
    audio: cls('layout-w-100'),
    body: cls('typography-f-sf', 'typography-sz-bm', 'color-c-n10'),
    button: cls('typography-f-sf', 'typography-sz-ll'),
    h1: cls('typography-sz-hm', 'typography-w-600'),
    h2: cls('typography-sz-hs', 'typography-w-600'),
    h3: cls('typography-sz-tl', 'typography-w-600'),
    h4: cls('typography-sz-tm', 'typography-w-600'),
    h5: cls('typography-sz-ts', 'typography-w-600'),
    iframe: cls('layout-w-100', 'border-bw-0'),
    input: cls(...inputBox),
    p: cls('typography-sz-bm'),
    pre: cls('typography-f-c', 'typography-sz-bs'),
    textarea: cls(...inputBox),
    video: cls('layout-w-100'),
  },
  markdown: {
    p: ['layout-m-0', 'typography-sz-bm'],
    h1: ['layout-m-0', 'typography-sz-hs', 'typography-w-600'],
    h2: ['layout-m-0', 'typography-sz-tl', 'typography-w-600'],
    h3: ['layout-m-0', 'typography-sz-tm', 'typography-w-600'],
    h4: ['layout-m-0', 'typography-sz-tm', 'typography-w-600'],
    h5: ['layout-m-0', 'typography-sz-ts', 'typography-w-600'],
    ul: ['layout-mt-0', 'layout-mb-0', 'layout-pl-5'],
    ol: ['layout-mt-0', 'layout-mb-0', 'layout-pl-5'],
    li: ['typography-sz-bm'],
    a: ['color-c-p40'],
    strong: ['typography-w-700'],
    em: ['typography-fs-i'],
  },
};
