import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { SurfaceVm } from './view-model.ts';

// Templates are read once when the module loads (like code), then rendering is pure.
const read = (name: string): string => readFileSync(fileURLToPath(new URL(`./views/${name}.eta`, import.meta.url)), 'utf8');

/**
 * block.eta, field.eta and help.eta become local functions of the one compiled surface
 * template (`renderBlock(b)`, `renderField(f)`, `renderHelp(f)`), instead of Eta includes: an
 * include per block (a fresh set of closures and two object spreads each, ~40 per character
 * card) cost more than building the HTML itself. They still write to the same output buffer,
 * with the same escaping.
 */
const partial = (fn: string, param: string, name: string): string => `<% function ${fn}(${param}) { %>\n${read(name)}<% } %>\n`;

const eta = new Eta({ autoEscape: true, cache: true, autoTrim: [false, 'nl'] });
eta.loadTemplate('@regenerate', read('regenerate'));
eta.loadTemplate('@surface', partial('renderBlock', 'b', 'block') + partial('renderField', 'f', 'field') + partial('renderHelp', 'f', 'help') + read('surface'));

/** `oob` adds `hx-swap-oob` to the section (host use: out-of-band replacement of a known surface). */
export function renderSurface(surface: SurfaceVm, oob?: string): string {
  return eta.render('@surface', { surface, oob });
}

export function renderRegenerateForm(surface: SurfaceVm): string {
  return eta.render('@regenerate', { surface });
}
