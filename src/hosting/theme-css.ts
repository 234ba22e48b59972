import { resolveTheme, type AppTheme, type ResolvedTheme } from '../app-kit/index.ts';

/**
 * The app's theme (AppDefinition.theme) as one stylesheet both pages link after their own: the
 * htmx page (host-html/static/app.css) and the A2UI renderer pages (host-a2ui/client/page.css)
 * read the same custom properties (--accent, --accent-text, --radius, --bg, --panel, --text …),
 * and the renderers' own variables are fed from them (v0.8's --p- palette and color-scheme,
 * v0.9's --a2ui-*). Served as a file under a hashed path: the pages' CSP allows style-src 'self' only.
 * Every value was checked by AppThemeSchema (hex colour, bounded font list, radius 0–24).
 */
export function themeStylesheet(resolved: ResolvedTheme): string {
  const { theme, onPrimary } = resolved;
  const radius = theme.radius ?? 8;
  // Controls a little rounder than nothing, never rounder than the panels around them.
  const control = Math.min(radius, Math.round(radius * 0.75 * 100) / 100);
  const font = theme.fontFamily === undefined ? [] : [`  --font-family: ${theme.fontFamily};`, `  font-family: ${theme.fontFamily};`];
  const lines = [
    '/* The app\'s theme (AppDefinition.theme), generated: see docs/build-your-own-app.md "Theme". */',
    ':root {',
    `  --accent: ${theme.primaryColor};`,
    // Checkboxes, radios and range inputs in the brand colour too.
    '  accent-color: var(--accent);',
    `  --accent-text: ${onPrimary.color};`,
    `  --radius: ${radius}px;`,
    `  --control-radius: ${control}px;`,
    ...font,
    '  --p-base: var(--accent);',
    '  --a2ui-color-primary-hover: color-mix(in srgb, var(--accent) 82%, #000);',
    '  --a2ui-color-on-primary: var(--accent-text);',
    '  --a2ui-button-border-radius: var(--control-radius);',
    '  --a2ui-textfield-border-radius: var(--control-radius);',
    '  --tint: color-mix(in srgb, var(--accent) 10%, var(--panel));',
    '  --tint-line: color-mix(in srgb, var(--accent) 28%, var(--panel));',
    '}',
    // The pages' own rules that name a colour or a radius of their own instead of a variable.
    '.button, .field__control, .composer__input, select, .alert, .notice, .toast,',
    '.a2ui-button, .a2ui-composer__input, .a2ui-alert { border-radius: var(--control-radius); }',
    '.button--primary, .a2ui-button--primary, .a2ui-switch__option[aria-current="page"] { color: var(--accent-text); }',
    '.badge, .a2ui-badge { background: var(--tint); border-color: var(--tint-line); }',
    '.entry--user, .a2ui-entry--user { background: var(--tint); }',
    ...(theme.mode === 'dark' ? DARK : []),
    '',
  ];
  return lines.join('\n');
}

/**
 * The dark page. The v0.8 renderer's utility classes read its palettes through light-dark(), so
 * color-scheme alone turns its panels dark (its own theming); the rest is the pages' variables.
 */
const DARK: readonly string[] = [
  ':root {',
  '  color-scheme: dark;',
  '  --color-scheme: dark;',
  '  --bg: #0f1318;',
  '  --panel: #1a2029;',
  '  --text: #e6e9ef;',
  '  --muted: #a7b0bd;',
  '  --line: #343e4b;',
  '  --ok: #7fd6a0;',
  '  --warn: #f0c46c;',
  '  --err: #ff9b8f;',
  '  --field: #11161d;',
  '  --field-line: #4b5666;',
  '  --a2ui-color-input: var(--field);',
  '  --a2ui-color-border: var(--field-line);',
  '  --a2ui-color-secondary: var(--panel);',
  '  --a2ui-color-secondary-hover: #252d38;',
  '}',
  // Links and accent-coloured words sit on the dark panel, not on the accent: lightened to read.
  'a, .badge, .a2ui-badge, .surfaces__hint { color: color-mix(in srgb, var(--accent) 55%, #fff); }',
  '.field__control, .composer__input, select, .button, .a2ui-composer__input, .a2ui-button {',
  '  background: var(--field); border-color: var(--field-line); color: var(--text);',
  '}',
  '.button--primary, .a2ui-button--primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }',
  '.entry--system, .a2ui-entry--system, .alert--warning, .notice--warning, .badge--offline, .a2ui-badge--offline,',
  '.surface__toast.toast--warning, .surface__toast.toast--info { background: #3a2f16; border-color: #6b5424; color: var(--warn); }',
  '.alert--error, .a2ui-alert, .surface__toast.toast--error { background: #3b1d1a; border-color: #7a3a33; color: var(--err); }',
  '.alert--success, .surface__toast { background: #163020; border-color: #2f6b45; color: var(--ok); }',
  '.toast { background: #e6e9ef; color: #1c2430; }',
];

/** The app's theme stylesheet, or none for an app without a theme (the pages' own look). */
export function appThemeStylesheet(app: { theme?: AppTheme | undefined }): string | undefined {
  return app.theme === undefined ? undefined : themeStylesheet(resolveTheme(app.theme));
}
