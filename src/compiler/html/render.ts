import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { BlockVm, SurfaceVm } from './view-model.ts';

// Templates are read once when the module loads (like code), then rendering is pure.
const read = (name: string): string => readFileSync(fileURLToPath(new URL(`./views/${name}.eta`, import.meta.url)), 'utf8');

/**
 * block.eta, field.eta and help.eta become local functions of the templates (`renderBlock(b)`,
 * `renderField(f)`, `renderHelp(f)`), instead of Eta includes: an include per block (a fresh set
 * of closures and two object spreads each, ~40 per character card) cost more than building the
 * HTML itself. They still write to the same output buffer, with the same escaping.
 */
const partial = (fn: string, param: string, name: string): string => `<% function ${fn}(${param}) { %>\n${read(name)}<% } %>\n`;
const blockFunctions = partial('renderBlock', 'b', 'block') + partial('renderField', 'f', 'field') + partial('renderHelp', 'f', 'help');

const eta = new Eta({ autoEscape: true, cache: true, autoTrim: [false, 'nl'] });
eta.loadTemplate('@regenerate', read('regenerate'));
eta.loadTemplate('@surface', blockFunctions + read('surface'));
// One block alone (no `leafHtml` in its data: it renders the block itself).
eta.loadTemplate('@leaf', `${blockFunctions}<% renderBlock(it.b) %>`);
// A surface's blocks (its remembered leaves still taken from leafHtml).
eta.loadTemplate('@blocks', `${blockFunctions}<% it.blocks.forEach(renderBlock) %>`);

/**
 * A block's HTML, once per view model object. view-model.ts freezes the view models it hands
 * out again (a field while its value is the same, a saved value while it reads the same, the
 * blocks that show only their view), so a panel re-rendered after an action escapes and writes
 * again only what changed; block.eta writes this string raw (Eta escaped it here).
 */
const leaves = new WeakMap<BlockVm, string>();

function leafHtml(b: BlockVm): string {
  let html = leaves.get(b);
  if (html === undefined) {
    html = flat(eta.render('@leaf', { b }));
    leaves.set(b, html);
  }
  return html;
}

/**
 * The same string, stored flat. V8 keeps a string built by concatenation as a tree of its pieces
 * until something reads it whole, and flattens it into a copy each time: a remembered block kept
 * as a tree of ~40 pieces was walked again by every answer that held it (the byte count of the
 * response, ~35 µs per action in the profile). Converting it to a number reads it whole, which
 * flattens it in place, once.
 */
function flat(text: string): string {
  flattened += Number.isNaN(Number(text)) ? 0 : 1;
  return text;
}
/** Read nowhere: it only keeps the conversion above from being optimised away. */
let flattened = 0;

/** The HTML of a surface's blocks, once per frozen blocks array (view-model.ts blocksViewModel), flat. */
const blockLists = new WeakMap<readonly BlockVm[], string>();

function blocksHtml(blocks: readonly BlockVm[]): string {
  let html = blockLists.get(blocks);
  if (html === undefined) {
    html = flat(eta.render('@blocks', { blocks, leafHtml }));
    blockLists.set(blocks, html);
  }
  return html;
}

/** `oob` adds `hx-swap-oob` to the section (host use: out-of-band replacement of a known surface). */
export function renderSurface(surface: SurfaceVm, oob?: string): string {
  return eta.render('@surface', { surface, oob, leafHtml, blocksHtml });
}

export function renderRegenerateForm(surface: SurfaceVm): string {
  return eta.render('@regenerate', { surface });
}
