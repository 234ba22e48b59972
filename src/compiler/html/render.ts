import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { SurfaceVm } from './view-model.ts';

// Templates are read once when the module loads (like code), then rendering is pure.
const VIEWS = ['surface', 'block', 'field', 'help', 'regenerate'] as const;

const eta = new Eta({ autoEscape: true, cache: true, autoTrim: [false, 'nl'] });
for (const name of VIEWS) {
  eta.loadTemplate(`@${name}`, readFileSync(fileURLToPath(new URL(`./views/${name}.eta`, import.meta.url)), 'utf8'));
}

/** `oob` adds `hx-swap-oob` to the section (host use: out-of-band replacement of a known surface). */
export function renderSurface(surface: SurfaceVm, oob?: string): string {
  return eta.render('@surface', { surface, oob });
}

export function renderRegenerateForm(surface: SurfaceVm): string {
  return eta.render('@regenerate', { surface });
}
