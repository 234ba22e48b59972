import { makeError, type SurfacerError } from '../../errors/index.ts';

/**
 * The app's theme as both A2UI versions carry it (CompileOptionsBase.theme): v0.8 as
 * `beginRendering.styles {primaryColor, font}`, v0.9 as `createSurface.theme {primaryColor}`.
 */
export interface SurfaceTheme {
  /** `#rrggbb`; anything else is dropped with a warning (both specs pin the pattern). */
  primaryColor?: string;
  /** A CSS font-family list (v0.8 only: v0.9's basic catalogue theme has no font). */
  font?: string;
}

const HEX = /^#[0-9a-fA-F]{6}$/;

/**
 * What of `theme` may go on the wire: a primaryColor outside `#rrggbb` would make the message
 * invalid, so it is left out (A2UI_S2C_STYLES_INVALID, the surface keeps the default colour).
 */
export function wireTheme(theme: SurfaceTheme | undefined): { theme: SurfaceTheme | undefined; warnings: SurfacerError[] } {
  if (theme === undefined) return { theme: undefined, warnings: [] };
  const out: SurfaceTheme = {};
  const warnings: SurfacerError[] = [];
  if (typeof theme.font === 'string') out.font = theme.font;
  if (theme.primaryColor !== undefined) {
    if (HEX.test(theme.primaryColor)) out.primaryColor = theme.primaryColor;
    else warnings.push(makeError('A2UI_S2C_STYLES_INVALID', 'primaryColor must be #RRGGBB; default colour used'));
  }
  return { theme: out, warnings };
}
