import { z } from 'zod';
import type { ComponentDefinition, ComponentRegistry } from '../../app-kit/component.ts';
import { makeError, type SurfacerError } from '../../errors/index.ts';
import { childBlocks, DataMapSchema, type Block, type ComponentBlock, type DataMap } from '../../ui-ir/index.ts';

/**
 * The negotiation result every compiler takes (comp-nego decides it per client): the app's
 * components, and whether the client holds the app's catalogue (`app`: emit the component) or
 * only the basic one (`basic`: emit its fallback blocks).
 */
export type ComponentCompileOptions =
  | { registry: ComponentRegistry; catalog: 'basic' }
  /** `catalogId`: the app catalogue's id, named by v0.9 createSurface and v0.8 beginRendering. */
  | { registry: ComponentRegistry; catalog: 'app'; catalogId: string };

export type CheckedComponent =
  | { ok: true; definition: ComponentDefinition; props: DataMap }
  | { ok: false; error: SurfacerError };

/** `props.strict()`: an unknown property is a finding, never silently dropped. Built once per schema. */
const strictSchemas = new WeakMap<z.ZodObject, z.ZodObject>();
function strictProps(definition: ComponentDefinition): z.ZodObject {
  let schema = strictSchemas.get(definition.props);
  if (schema === undefined) strictSchemas.set(definition.props, schema = definition.props.strict());
  return schema;
}

const checked = new WeakMap<ComponentBlock, WeakMap<ComponentRegistry, CheckedComponent>>();

/**
 * A `component` block against the app: the component exists, its literal properties match its
 * zod schema (unknown ones refused; defaults applied), and it binds only bindable properties.
 * Memoised per (block, registry): IR blocks are never mutated. The memo holds the finding
 * without a place; `pointer` (where this caller found the block, if it knows) is added per call,
 * so a caller that knows it always gets it, whoever asked first.
 */
export function checkComponentBlock(block: ComponentBlock, registry: ComponentRegistry | undefined, pointer?: string): CheckedComponent {
  if (registry === undefined) {
    return { ok: false, error: makeError('COMPILER_COMPONENT_UNKNOWN', `component "${block.component}" shown without the app's components`, pointerOf(pointer)) };
  }
  let byRegistry = checked.get(block);
  if (byRegistry === undefined) checked.set(block, byRegistry = new WeakMap());
  let result = byRegistry.get(registry);
  if (result === undefined) byRegistry.set(registry, result = check(block, registry));
  return result.ok || pointer === undefined ? result : { ok: false, error: { ...result.error, pointer } };
}

function pointerOf(pointer: string | undefined): { pointer: string } | undefined {
  return pointer === undefined ? undefined : { pointer };
}

function check(block: ComponentBlock, registry: ComponentRegistry): CheckedComponent {
  const definition = registry.get(block.component);
  if (definition === undefined) {
    return { ok: false, error: makeError('COMPILER_COMPONENT_UNKNOWN', `the app defines no component "${block.component}"`) };
  }
  const bindable = new Set<string>(definition.bindable ?? []);
  const unbindable = Object.keys(block.bind).find((k) => !bindable.has(k));
  if (unbindable !== undefined) {
    return { ok: false, error: makeError('COMPILER_COMPONENT_PROPS_INVALID', `property "${unbindable}" of ${definition.name} cannot be bound to data`) };
  }
  if (block.path !== undefined && definition.item === undefined) {
    return { ok: false, error: makeError('COMPILER_COMPONENT_PROPS_INVALID', `${definition.name} shows no collection, yet the block has a path`) };
  }
  let parsed;
  try {
    parsed = strictProps(definition).safeParse(block.props);
  } catch (e) {
    return { ok: false, error: makeError('COMPILER_COMPONENT_PROPS_INVALID', `the props schema of ${definition.name} threw: ${(e as Error).message}`) };
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
    return { ok: false, error: makeError('COMPILER_COMPONENT_PROPS_INVALID', `props of ${definition.name}${where}: ${issue?.message ?? 'invalid'}`) };
  }
  // What a client receives must be data like the rest of the IR (a transform could make anything).
  const props = DataMapSchema.safeParse(dropUndefined(parsed.data));
  if (!props.success) {
    return { ok: false, error: makeError('COMPILER_COMPONENT_PROPS_INVALID', `props of ${definition.name} do not parse to plain data`) };
  }
  return { ok: true, definition, props: props.data };
}

/** Optional properties left out parse to `undefined` keys, which JSON (and the IR) have no room for. */
function dropUndefined(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out;
}

/** The first component block of `blocks` the app cannot show (depth-first), as its error. */
export function checkComponentBlocks(blocks: readonly Block[], registry: ComponentRegistry | undefined, prefix = '/view/blocks'): SurfacerError | undefined {
  for (let i = 0; i < blocks.length; i += 1) {
    const block = blocks[i]!;
    const pointer = `${prefix}/${i}`;
    if (block.kind === 'component') {
      const checked = checkComponentBlock(block, registry, pointer);
      if (!checked.ok) return checked.error;
    }
    const children = childBlocks(block);
    if (children !== undefined) {
      const error = checkComponentBlocks(children, registry, `${pointer}/blocks`);
      if (error !== undefined) return error;
    }
  }
  return undefined;
}
