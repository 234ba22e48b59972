import { z } from 'zod';
import type { ComponentRegistry } from '../../app-kit/component.ts';
import { makeError, type SurfacerError } from '../../errors/index.ts';
import {
  BlockSchema, childBlocks, walkBlocks, type Block, type ComponentBlock, type Surface, type SurfaceView,
} from '../../ui-ir/index.ts';
import { checkComponentBlock } from './check.ts';

/**
 * Fallbacks: a view whose `component` blocks are replaced by their basic-catalogue blocks, for a
 * client without the app's catalogue. Each component becomes one untitled column group holding
 * its fallback, so every other block keeps its index path (and its ids and /view keys): the
 * result is compiled exactly like any other view, hence valid by construction.
 *
 * A fallback is the app's code, so its output is checked like model output: blocks of the IR
 * schema, no component (the client has none), no input (ingress reads a surface's fields from
 * the IR view, where the component has none), and lists only as the component's own collection
 * (same name, path, itemKey, maxItems and actions), so its item actions reach the same handler
 * with the same `{list, item}`.
 */
const FallbackBlocks = z.array(BlockSchema).max(100);

export function hasComponents(blocks: readonly Block[]): boolean {
  let found = false;
  walkBlocks(blocks, (b) => { if (b.kind === 'component') found = true; });
  return found;
}

/** The fallback of one component block, checked; an error when it cannot be shown. */
export function componentFallback(block: ComponentBlock, registry: ComponentRegistry | undefined, pointer?: string): Block[] | SurfacerError {
  const checked = checkComponentBlock(block, registry, pointer);
  if (!checked.ok) return checked.error;
  const { definition, props } = checked;
  const fail = (why: string): SurfacerError =>
    makeError('COMPILER_COMPONENT_FALLBACK_INVALID', `fallback of ${definition.name} "${block.name}": ${why}`, pointer === undefined ? undefined : { pointer });
  let raw: unknown;
  try {
    raw = definition.fallback({ block, props });
  } catch (e) {
    return fail(`threw: ${(e as Error)?.message ?? String(e)}`);
  }
  const parsed = FallbackBlocks.safeParse(raw);
  if (!parsed.success) return fail(`not IR blocks (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  let problem: string | undefined;
  let lists = 0;
  walkBlocks(parsed.data, (b) => {
    if (problem !== undefined) return;
    if (b.kind === 'component') problem = 'it holds a component';
    else if (b.kind === 'field' || b.kind === 'upload') problem = 'it holds an input';
    else if (b.kind === 'list') {
      lists += 1;
      if (block.path === undefined) problem = 'a component without a collection has no list';
      else if (b.name !== block.name || b.path !== block.path || b.itemKey !== block.itemKey || b.maxItems !== block.maxItems
        || JSON.stringify(b.actions) !== JSON.stringify(block.actions)) {
        problem = 'its list is not the component\'s collection (name, path, itemKey, maxItems and actions)';
      }
    }
  });
  if (problem === undefined && block.path !== undefined && lists !== 1) problem = `a collection's fallback holds exactly one list (it holds ${lists})`;
  return problem === undefined ? parsed.data : fail(problem);
}

const expanded = new WeakMap<SurfaceView, WeakMap<object, SurfaceView | SurfacerError>>();
const NO_REGISTRY = {};

/**
 * `surface` with every component block replaced by its fallback (the very surface when it has
 * none). Memoised per (view, registry): views are never mutated, and a surface is compiled on
 * every turn and action.
 */
export function withFallbacks(surface: Surface, registry: ComponentRegistry | undefined): Surface | SurfacerError {
  if (!hasComponents(surface.view.blocks)) return surface;
  let byRegistry = expanded.get(surface.view);
  if (byRegistry === undefined) expanded.set(surface.view, byRegistry = new WeakMap());
  let view = byRegistry.get(registry ?? NO_REGISTRY);
  if (view === undefined) byRegistry.set(registry ?? NO_REGISTRY, view = expandView(surface.view, registry, false));
  return 'code' in view ? view : { ...surface, view };
}

/** What the htmx page shows in place of a component it cannot show (it has no surface_fail). */
export const UNAVAILABLE_NOTE = 'This part of the panel cannot be shown.';

/**
 * Like withFallbacks, for a page that shows the rest of the panel whatever happens: a component
 * that cannot be shown becomes a caption saying so.
 */
export function withFallbacksOrNotes(surface: Surface, registry: ComponentRegistry | undefined): Surface {
  if (!hasComponents(surface.view.blocks)) return surface;
  let byRegistry = noted.get(surface.view);
  if (byRegistry === undefined) noted.set(surface.view, byRegistry = new WeakMap());
  let view = byRegistry.get(registry ?? NO_REGISTRY);
  if (view === undefined) byRegistry.set(registry ?? NO_REGISTRY, view = expandView(surface.view, registry, true) as SurfaceView);
  return { ...surface, view };
}
const noted = new WeakMap<SurfaceView, WeakMap<object, SurfaceView>>();

function expandView(view: SurfaceView, registry: ComponentRegistry | undefined, notes: boolean): SurfaceView | SurfacerError {
  let error: SurfacerError | undefined;
  const expand = (blocks: readonly Block[], prefix: string): Block[] => blocks.map((block, i): Block => {
    if (error !== undefined) return block;
    const pointer = `${prefix}/${i}`;
    if (block.kind === 'component') {
      const fallback = componentFallback(block, registry, pointer);
      if ('code' in fallback) {
        if (notes) return { kind: 'group', layout: 'column', blocks: [{ kind: 'text', text: UNAVAILABLE_NOTE, tone: 'caption' }] };
        error = fallback;
        return block;
      }
      return { kind: 'group', layout: 'column', blocks: fallback };
    }
    const children = childBlocks(block);
    if (children === undefined || !hasComponents(children)) return block;
    return { ...block, blocks: expand(children, `${pointer}/blocks`) } as Block;
  });
  const blocks = expand(view.blocks, '/view/blocks');
  return error ?? { ...view, blocks };
}
