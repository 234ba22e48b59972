import { z } from 'zod';
import { componentClass, componentCssProblem } from './component-css.ts';
import { ComponentName, RESERVED_PROP_NAMES, type Block, type ComponentBlock, type ListBlock } from '../ui-ir/index.ts';

/**
 * An app's own component (issue 22): defined once, shown by every client. A client holding the
 * app's catalogue gets the component itself (A2UI: its type in the app catalogue; the htmx page:
 * its Eta template); any other client gets `fallback`, the same content as basic-catalogue blocks.
 * The IR places it with a `component` block (ui-ir/schema.ts ComponentBlock).
 */
export interface ComponentDefinition<
  P extends z.ZodObject = z.ZodObject,
  I extends z.ZodObject | undefined = z.ZodObject | undefined,
> {
  /** Its A2UI component type in the app's catalogue; never a basic-catalogue type. */
  name: string;
  /** For the catalogue and the model's prompt. */
  description: string;
  /**
   * Its properties: the schema the model sees where a directive may set them, the catalogue's
   * JSON Schema, and what the compilers check a block's `props` against. JSON-Schema-representable.
   */
  props: P;
  /** The shape of one item when the component shows a collection (a block with `path`). */
  item?: I;
  /**
   * Properties a block may bind to data (`bind`) instead of giving literally. Each must be
   * optional in `props`: a bound property is absent from the literal ones.
   */
  bindable?: readonly (keyof z.infer<P> & string)[];
  /**
   * An Eta template for the htmx page, auto-escaped (`<%= %>`; raw `<%~ %>` is refused). It gets
   * `it` = { props, items, actions, name, ids } (see compiler/html/component.ts) and must work
   * without JavaScript: item actions are forms the compiler renders (`it.actions`).
   */
  html: string;
  /**
   * The template's stylesheet on the htmx page (the A2UI pages style the `element` instead).
   * Every rule names the component's class, its name in kebab case (`.portrait-card`,
   * `.portrait-card__name` for PortraitCard), so that it cannot restyle the page or another
   * component. The page serves all the app's component CSS as one file under a URL that names
   * its content (component-css.ts; docs/components.md).
   */
  css?: string;
  /**
   * Pure: the same content as basic-catalogue blocks (no `component` block, no input), for clients
   * without the app's catalogue. `props` are the block's literal properties (bound ones are
   * absent: show them with value blocks reading `block.bind`). A collection's fallback includes a
   * list with the block's name, path, itemKey and actions (so its item actions work the same).
   */
  fallback(input: { block: ComponentBlock; props: z.infer<P> }): Block[];
  /**
   * The Lit custom element for the app's pages: its tag name and the module (relative to the
   * app) that defines it; bundled into the page clients by `npm run build`.
   */
  element?: { tag: string; module: string };
}

/** The app's components by name (built by defineApp from a list). */
export interface ComponentRegistry {
  get(name: string): ComponentDefinition | undefined;
  list(): readonly ComponentDefinition[];
}

export class ComponentDefinitionError extends Error {
  override readonly name = 'ComponentDefinitionError';
}

/**
 * The list a collection component's fallback is built on: the block's name, path, item key, bound
 * and item actions, as they must be for the fallback's buttons to send the same `{list, item}` to
 * the same handler. Add its `display` (and `title`, `empty`).
 */
export function fallbackListOf(block: ComponentBlock): Pick<ListBlock, 'kind' | 'name' | 'path' | 'itemKey' | 'maxItems' | 'actions'> {
  if (block.path === undefined) throw new ComponentDefinitionError(`component block ${block.name} is not a collection (no path): its fallback has no list`);
  return { kind: 'list', name: block.name, path: block.path, itemKey: block.itemKey, maxItems: block.maxItems, actions: block.actions };
}

/** Eta's raw output tag, with or without a whitespace-control mark (`<%~`, `<%-~`, `<%_ ~`). */
const RAW_OUTPUT = /<%[-_]?\s*~/;
const ELEMENT_TAG = /^[a-z][a-z0-9]*(-[a-z0-9]+)+$/;

/** The props schema's keys that are optional (a bindable property must be). */
function isOptionalKey(schema: z.ZodObject, key: string): boolean {
  const field = schema.shape[key] as z.ZodType | undefined;
  return field !== undefined && field.safeParse(undefined).success;
}

/**
 * Checks a definition once, at startup (throws ComponentDefinitionError): the name, that the
 * schemas have a JSON Schema (the catalogue is generated from them), the bindable properties,
 * that the template never writes unescaped output, that the CSS keeps to the component's class,
 * and the element's tag.
 */
export function defineComponent<P extends z.ZodObject, I extends z.ZodObject | undefined = undefined>(
  definition: ComponentDefinition<P, I>,
): ComponentDefinition<P, I> {
  const { name } = definition;
  const fail = (why: string): never => { throw new ComponentDefinitionError(`component ${JSON.stringify(name)}: ${why}`); };
  if (!ComponentName.safeParse(name).success) fail('the name must match [A-Z][A-Za-z0-9]{0,63} and not be a basic-catalogue type');
  if (typeof definition.description !== 'string' || definition.description.trim() === '') fail('a description is required');
  if (!(definition.props instanceof z.ZodObject)) fail('props must be a zod object');
  if (definition.item !== undefined && !(definition.item instanceof z.ZodObject)) fail('item must be a zod object');
  for (const [what, schema] of [['props', definition.props], ['item', definition.item]] as const) {
    if (schema === undefined) continue;
    try {
      z.toJSONSchema(schema, { io: 'input' });
    } catch (e) {
      fail(`${what} has no JSON Schema (${(e as Error).message})`);
    }
  }
  for (const key of Object.keys(definition.props.shape)) {
    if (RESERVED_PROP_NAMES.has(key)) fail(`property "${key}" has a name the protocol or a collection uses`);
  }
  for (const key of definition.bindable ?? []) {
    if (!Object.hasOwn(definition.props.shape, key)) fail(`bindable property "${key}" is not a property`);
    if (!isOptionalKey(definition.props, key)) fail(`bindable property "${key}" must be optional (a bound property has no literal value)`);
  }
  if (typeof definition.html !== 'string') fail('html must be an Eta template');
  if (RAW_OUTPUT.test(definition.html)) fail('the html template writes raw output (<%~ %>); only escaped output (<%= %>) is allowed');
  if (definition.css !== undefined) {
    if (typeof definition.css !== 'string') fail('css must be a string');
    const problem = componentCssProblem(definition.css, componentClass(name));
    if (problem !== undefined) fail(`css: ${problem}`);
  }
  if (typeof definition.fallback !== 'function') fail('a fallback is required');
  if (definition.element !== undefined) {
    if (!ELEMENT_TAG.test(definition.element.tag)) fail(`element tag "${definition.element.tag}" is not a custom element name`);
    if (typeof definition.element.module !== 'string' || definition.element.module === '') fail('element module is required');
  }
  return definition;
}

/** A registry of `components`; throws on a name used twice (an app with a clash is ambiguous). */
export function createComponentRegistry(components: readonly ComponentDefinition<any, any>[]): ComponentRegistry {
  const byName = new Map<string, ComponentDefinition>();
  for (const c of components) {
    if (byName.has(c.name)) throw new ComponentDefinitionError(`component "${c.name}" is defined twice`);
    byName.set(c.name, c as ComponentDefinition);
  }
  const all = Object.freeze([...byName.values()]);
  return {
    get: (name) => byName.get(name),
    list: () => all,
  };
}
