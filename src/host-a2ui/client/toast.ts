import { css } from 'lit';

/*
 * The surface's toast on the A2UI pages. Both compilers bind one Text to the IR's toast text
 * (`/ui/toast/text`) and write its level beside it (`/ui/toast/level`); the pages show that Text
 * as the htmx page shows a panel's toast (.surface__toast in host-html/static/app.css): a box in
 * the level's colours, so a toast "Saved" under the "Saved" values reads as the answer to the
 * button, not as a second heading.
 */
export const TOAST_TEXT_PATH = '/ui/toast/text';
export const TOAST_LEVEL_PATH = '/ui/toast/level';
const LEVELS = ['info', 'success', 'warning', 'error'] as const;
export type ToastLevel = typeof LEVELS[number];

/** The level a data model holds, or "info" for anything else (a v0.8 string may carry the text guard). */
export function toastLevel(value: unknown): ToastLevel {
  const text = typeof value === 'string' ? value.replace(/^\u2060/, '') : '';
  return (LEVELS as readonly string[]).includes(text) ? text as ToastLevel : 'info';
}

/** For the toast's box inside a Text element's shadow root (the page's stylesheet cannot reach it). */
export const TOAST_STYLES = css`
  .toast { margin: 0; padding: .5rem .75rem; border-radius: 6px; background: #fff4de; color: #8a5a00; }
  .toast--success { background: #e8f6ee; color: #1f7a45; }
  .toast--error { background: #fdecea; color: #b42318; }
  .toast * { margin: 0; color: inherit; font-style: normal; }
`;
