import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { createDemoApp, DEMO_THEME } from '../../src/app/index.ts';
import {
  AppThemeSchema, contrastRatio, createSurfacer, defineApp, MIN_CONTRAST, safeResolveTheme, SurfacerConfigError, textOnPrimary,
  ThemeError, type AppDefinition, type AppTheme,
} from '../../src/index.ts';
import { themeStylesheet } from '../../src/hosting/index.ts';

/*
 * One theme per app: the schema bounds each field to what a stylesheet and the A2UI wire can
 * carry, and the primary colour must carry readable text (WCAG AA, 4.5:1, with white or the
 * pages' near-black) or the app does not start.
 */

const app = (theme: AppTheme): AppDefinition => defineApp({
  name: 'Themed', directives: [], actions: [], offlinePlanner: { name: 'offline', plan: async () => ({ text: '' }) } as never, theme,
});

/** #rrggbb from three channels. */
const hex = (r: number, g: number, b: number): string => `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
const colour = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(([r, g, b]) => hex(r, g, b));

describe('contrast', () => {
  it('matches the WCAG definition at its fixed points', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
    // WCAG's own example pair: #767676 on white is the lightest grey that passes AA (4.54:1).
    expect(contrastRatio('#767676', '#ffffff')).toBeGreaterThanOrEqual(MIN_CONTRAST);
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(MIN_CONTRAST);
  });

  it('is symmetric, within 1..21, and the text colour picked is the better of the two', () => {
    fc.assert(fc.property(colour, colour, (a, b) => {
      const ratio = contrastRatio(a, b);
      expect(ratio).toBeCloseTo(contrastRatio(b, a), 10);
      expect(ratio).toBeGreaterThanOrEqual(1);
      expect(ratio).toBeLessThanOrEqual(21);
      const best = textOnPrimary(a);
      expect(best.ratio).toBe(Math.max(contrastRatio(a, '#ffffff'), contrastRatio(a, '#1c2430')));
    }));
  });

  it('accepts exactly the colours whose better text colour reaches 4.5:1', () => {
    fc.assert(fc.property(colour, (primaryColor) => {
      const check = safeResolveTheme({ primaryColor });
      expect(check.ok).toBe(textOnPrimary(primaryColor).ratio >= MIN_CONTRAST);
    }));
  });
});

describe('AppThemeSchema', () => {
  it('takes the shipped themes', () => {
    for (const theme of [DEMO_THEME, createSupportDeskApp().theme!]) expect(AppThemeSchema.safeParse(theme).success).toBe(true);
    expect(createDemoApp().theme).toEqual(DEMO_THEME);
    expect(createSupportDeskApp().theme).not.toEqual(DEMO_THEME);
  });

  it.each([
    [{ primaryColor: 'red' }, 'primaryColor'],
    [{ primaryColor: '#12345' }, 'primaryColor'],
    [{ primaryColor: '#123456', radius: 25 }, 'radius'],
    [{ primaryColor: '#123456', radius: -1 }, 'radius'],
    [{ primaryColor: '#123456', mode: 'sepia' }, 'mode'],
    [{ primaryColor: '#123456', fontFamily: 'Inter; } body { display: none' }, 'fontFamily'],
    [{ primaryColor: '#123456', fontFamily: 'url(https://evil.example/f.woff)' }, 'fontFamily'],
    [{ primaryColor: '#123456', fontFamily: '"Inter, sans-serif' }, 'fontFamily'],
    [{ primaryColor: '#123456', fontFamily: 'a'.repeat(201) }, 'fontFamily'],
    [{ primaryColor: '#123456', background: '#000000' }, 'background'],
  ])('refuses %j, naming %s', (theme, field) => {
    const check = safeResolveTheme(theme);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain(field);
  });
});

describe('a low-contrast theme is refused at start', () => {
  // #777777: just under AA with white, further under with near-black.
  const grey: AppTheme = { primaryColor: '#777777' };
  /** The ratio a refusal names, checked against the best text colour's own. */
  const namesRatio = (message: string): void => {
    expect(message).toContain('#777777');
    expect(message).toContain(`${MIN_CONTRAST}:1`);
    const named = Number(/reaches only (\d+\.\d+):1/.exec(message)?.[1]);
    expect(named).toBeLessThan(MIN_CONTRAST);
    expect(Math.abs(named - textOnPrimary('#777777').ratio)).toBeLessThan(0.01);
  };
  const thrown = (fn: () => unknown): Error => {
    try { fn(); } catch (error) { return error as Error; }
    throw new Error('did not throw');
  };

  it('by defineApp, naming the colour and the ratio', () => {
    const error = thrown(() => app(grey));
    expect(error).toBeInstanceOf(ThemeError);
    namesRatio(error.message);
  });

  it('by createSurfacer, for an app built without defineApp', () => {
    const built: AppDefinition = { ...createDemoApp(), theme: grey };
    const error = thrown(() => createSurfacer({ app: built }));
    expect(error).toBeInstanceOf(SurfacerConfigError);
    namesRatio(error.message);
  });

  it('while a readable one starts, trimmed as checked', () => {
    const made = app({ primaryColor: '#2453C7', fontFamily: '  Inter, sans-serif ' });
    expect(made.theme).toEqual({ primaryColor: '#2453C7', fontFamily: 'Inter, sans-serif' });
  });
});

describe('themeStylesheet', () => {
  it('sets the pages\' variables from the theme, and a dark palette only in dark mode', () => {
    const light = safeResolveTheme({ primaryColor: '#0f766e', radius: 4, fontFamily: 'Inter, sans-serif' });
    const dark = safeResolveTheme({ primaryColor: '#0f766e', mode: 'dark' });
    if (!light.ok || !dark.ok) throw new Error('themes refused');
    const css = themeStylesheet(light.value);
    expect(css).toContain('--accent: #0f766e;');
    expect(css).toContain(`--accent-text: ${light.value.onPrimary.color};`);
    expect(css).toContain('--radius: 4px;');
    expect(css).toContain('font-family: Inter, sans-serif;');
    expect(css).not.toContain('color-scheme: dark');
    expect(themeStylesheet(dark.value)).toContain('color-scheme: dark');
    // Balanced braces: nothing the theme holds can close or open a rule.
    for (const text of [css, themeStylesheet(dark.value)]) expect(text.split('{').length).toBe(text.split('}').length);
  });
});
