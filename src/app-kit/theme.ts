import { z } from 'zod';

/**
 * One theme per app (AppDefinition.theme): the brand colour, type face, corner radius and mode
 * the pages take as CSS variables and A2UI clients as `beginRendering.styles` (v0.8) or
 * `createSurface.theme` (v0.9). Every field ends up in a stylesheet or on the wire, so each is
 * bounded to what those can carry safely.
 */

const HEX = /^#[0-9a-fA-F]{6}$/;
/**
 * A CSS font-family list. No `;`, `{`, `}`, `\`, `/` or `(`: the value is written into a
 * stylesheet, and those are what it takes to end the declaration, open a rule, escape, comment
 * or call url().
 */
const FONT_FAMILY = /^[A-Za-z0-9 ,"'-]+$/;
const balancedQuotes = (text: string): boolean => (text.split('"').length - 1) % 2 === 0 && (text.split("'").length - 1) % 2 === 0;

export const AppThemeSchema = z.object({
  /** The brand colour, `#rrggbb`: primary buttons, links, the A2UI primary palette. */
  primaryColor: z.string().regex(HEX, 'primaryColor must be a #rrggbb colour'),
  /** A CSS font-family list, e.g. `"Atkinson Hyperlegible", system-ui, sans-serif`. Default: the system face. */
  fontFamily: z.string().trim().min(1).max(200)
    .regex(FONT_FAMILY, 'fontFamily may hold letters, digits, spaces, commas, quotes and hyphens only')
    .refine(balancedQuotes, 'fontFamily has an unclosed quote')
    .optional(),
  /** Corner radius of panels and buttons, in px (0–24). Default 8. */
  radius: z.number().min(0).max(24).optional(),
  /** Light or dark page. Default light. */
  mode: z.enum(['light', 'dark']).optional(),
}).strict();

export type AppTheme = z.infer<typeof AppThemeSchema>;

/** WCAG 2.x AA for normal text. */
export const MIN_CONTRAST = 4.5;
/** The two text colours a primary surface may carry: white, or the pages' near-black text colour. */
export const ON_PRIMARY_COLOURS = ['#ffffff', '#1c2430'] as const;

/** WCAG 2.x relative luminance of a `#rrggbb` colour. */
export function relativeLuminance(hex: string): number {
  const channel = (offset: number): number => {
    const c = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2.x contrast ratio of two `#rrggbb` colours (1–21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The better-contrasting text colour for `primary` (white or near-black) and its ratio. */
export function textOnPrimary(primary: string): { color: string; ratio: number } {
  return ON_PRIMARY_COLOURS.map((color) => ({ color: color as string, ratio: contrastRatio(primary, color) }))
    .reduce((best, next) => (next.ratio > best.ratio ? next : best));
}

/** A checked theme with what was derived from it (the text colour on primary surfaces). */
export interface ResolvedTheme {
  theme: AppTheme;
  onPrimary: { color: string; ratio: number };
}

export type ThemeCheck = { ok: true; value: ResolvedTheme } | { ok: false; reason: string };

const round = (ratio: number): string => (Math.floor(ratio * 100) / 100).toFixed(2);

/** The theme checked against its schema and WCAG AA for text on the primary colour. */
export function safeResolveTheme(value: unknown): ThemeCheck {
  const parsed = AppThemeSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return { ok: false, reason: `theme ${where}${issue.message}` };
  }
  const onPrimary = textOnPrimary(parsed.data.primaryColor);
  if (onPrimary.ratio < MIN_CONTRAST) {
    return {
      ok: false,
      reason: `theme primaryColor ${parsed.data.primaryColor}: text on it reaches only ${round(onPrimary.ratio)}:1 at best (${onPrimary.color}); `
        + `WCAG AA needs ${MIN_CONTRAST}:1 — pick a darker or lighter colour`,
    };
  }
  return { ok: true, value: { theme: parsed.data, onPrimary } };
}

/** A theme an app cannot start with (defineApp and createSurfacer throw it). */
export class ThemeError extends Error {
  override readonly name = 'ThemeError';
}

export function resolveTheme(value: unknown): ResolvedTheme {
  const check = safeResolveTheme(value);
  if (!check.ok) throw new ThemeError(check.reason);
  return check.value;
}
