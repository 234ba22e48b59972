import type { IconName } from '../../ui-ir/index.ts';

/**
 * Each IR icon as a Unicode glyph, so the HTML page shows icons without an icon font or
 * JavaScript (A2UI clients use their own icon set). The glyph is decoration: the block's label,
 * or the icon's name in words, is what a screen reader reads.
 */
export const ICON_GLYPHS: Readonly<Record<IconName, string>> = {
  accountCircle: '\u{1F464}', add: '+', arrowBack: '\u2190', arrowForward: '\u2192', attachFile: '\u{1F4CE}',
  calendarToday: '\u{1F4C5}', call: '\u{1F4DE}', camera: '\u{1F4F7}', check: '\u2713', close: '\u2715',
  delete: '\u{1F5D1}', download: '\u2B73', edit: '\u270E', event: '\u{1F4C6}', error: '\u2297',
  favorite: '\u2665', favoriteOff: '\u2661', folder: '\u{1F4C1}', help: '?', home: '\u2302', info: '\u2139',
  locationOn: '\u{1F4CD}', lock: '\u{1F512}', lockOpen: '\u{1F513}', mail: '\u2709', menu: '\u2630',
  moreVert: '\u22EE', moreHoriz: '\u22EF', notificationsOff: '\u{1F515}', notifications: '\u{1F514}',
  payment: '\u{1F4B3}', person: '\u{1F464}', phone: '\u260E', photo: '\u{1F5BC}', print: '\u{1F5A8}',
  refresh: '\u21BB', search: '\u{1F50D}', send: '\u27A4', settings: '\u2699', share: '\u{1F517}',
  shoppingCart: '\u{1F6D2}', star: '\u2605', starHalf: '\u2BE8', starOff: '\u2606', upload: '\u2B71',
  visibility: '\u{1F441}', visibilityOff: '\u{1F576}', warning: '\u26A0',
};

/** `shoppingCart` → `shopping cart`: the accessible name of an unlabelled icon. */
export function iconWords(name: IconName): string {
  return name.replace(/([A-Z])/g, ' $1').toLowerCase();
}
