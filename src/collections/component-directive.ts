import { z } from 'zod';
import { makeError } from '../errors/index.ts';
import { DEFAULT_LIMITS, itemBudget, type DirectiveDefinition } from '../directives/index.ts';
import {
  ComponentBlock, DataKey, DataMapSchema, findLiveSurface, MAX_LIST_ITEMS, openSurface, panelFor, SurfaceId,
  type Block, type ConversationIr, type DataMap, type SurfaceView, type TransitionResult,
} from '../ui-ir/index.ts';
import { componentItemSchema } from './component-items.ts';
import { ITEM_KEY_FIELD, ItemValue } from './items.ts';
import { itemActionsShape, Label } from './payload.ts';

/*
 * `ui.show_component`: the model places one of the app's own components (defineComponent) on a
 * panel. One directive for every component, its payload a union keyed by `component`: each
 * branch carries that component's own zod schema for `props` (and, for a component that shows a
 * collection, for its `items`), so the JSON Schema the model reads lists each component with its
 * properties, and the validator checks them with the schema the app wrote. Bindings to app data
 * (`bind`) stay the app's business (its views): a model knows values, not paths.
 *
 * A component with an item schema keeps its items where a list shown by ui.show_list keeps them
 * (`/ui/lists/<name>`): its per-item actions send `{list: <name>, item: <key>}` like a list's,
 * and its fallback (a list of the same name) reads the same items.
 */

/** What the directive needs of an app component (ComponentDefinition has it). */
export interface PlaceableComponent {
  readonly name: string;
  readonly description: string;
  readonly props: z.ZodObject;
  readonly item?: z.ZodObject | undefined;
}

export interface ComponentDirectiveOptions {
  /** The app's components (its registry's definitions). */
  components: readonly PlaceableComponent[];
  /** Names of the app's item actions (`scope: 'item'`): buttons a collection component may carry on each item. */
  itemActions: readonly string[];
  /** The panel a directive targets when it names none. */
  defaultSurface?: string;
  /** A payload placing one of the components, shown in the prompt's catalogue and the docs (tests check it validates). */
  example?: ShowComponentPayload;
}

const DEFAULT_SHOWN = 25;

export interface ShowComponentPayload {
  surface?: string;
  title: string;
  intro?: string;
  component: string;
  name?: string;
  props: Record<string, unknown>;
  items?: Record<string, unknown>[];
  actions?: { name: string; label: string; primary?: boolean }[];
  max_shown?: number;
}

/** Where in the payload a field of the block it builds comes from. */
const BLOCK_FIELD_POINTERS: Readonly<Record<string, string>> = { component: '/component', name: '/name', props: '/props', actions: '/actions', maxItems: '/max_shown' };

function fail(code: 'DIRECTIVE_PAYLOAD_INVALID' | 'DIRECTIVE_LIST_ITEM_INVALID' | 'DIRECTIVE_IR_INVALID', pointer: string, detail: string): TransitionResult {
  return { ok: false, error: makeError(code, detail, { pointer }) };
}

/** The default block name: the component's, in lower camel case (`TicketTable` → `ticketTable`). */
const defaultName = (component: string): string => component.charAt(0).toLowerCase() + component.slice(1);

/** Undefined when the app has no components: nothing to place, so no directive. */
export function createComponentDirective(options: ComponentDirectiveOptions): DirectiveDefinition<ShowComponentPayload> | undefined {
  const { components } = options;
  if (components.length === 0) return undefined;
  const defaultSurface = options.defaultSurface ?? 'main';
  const itemActions = itemActionsShape(options.itemActions);
  const common = {
    surface: SurfaceId.describe(`surface id; default "${defaultSurface}"`).optional(),
    title: Label.describe('panel title'),
    intro: z.string().min(1).max(1000).optional().describe('a sentence shown above the component'),
    name: DataKey.optional().describe('the component\'s name on its panel; default the component\'s, lower camel case'),
  };
  const branches = components.map((c) => {
    const collection = c.item === undefined ? {} : {
      items: z.array(componentItemSchema(c.item))
        .max(MAX_LIST_ITEMS).describe(`the items, in order (at most ${DEFAULT_LIMITS.maxListItems} by default)`),
      ...itemActions,
      max_shown: z.number().int().min(1).max(MAX_LIST_ITEMS).optional().describe(`items shown; default ${DEFAULT_SHOWN}`),
    };
    return z.object({
      component: z.literal(c.name),
      ...common,
      // Strict: a property the component does not have is refused, not silently dropped.
      props: c.props.strict().describe(c.description),
      ...collection,
    }).strict();
  });
  const payload = (branches.length === 1 ? branches[0]! : z.discriminatedUnion('component', branches as never)) as unknown as z.ZodType<ShowComponentPayload>;
  const byName = new Map(components.map((c) => [c.name, c]));

  return {
    type: 'ui.show_component',
    aliases: ['show_component', 'ui.component', 'ui.showComponent', 'ui.place_component'],
    description: `Open a panel showing one of the app's own components (${components.map((c) => c.name).join(', ')}) with the `
      + 'properties its schema asks for; a component that shows items takes them in `items`. Replaces what the panel showed.',
    payload,
    ...(options.example === undefined ? {} : { example: options.example }),
    apply(ir: ConversationIr, p: ShowComponentPayload, draw, context): TransitionResult {
      const definition = byName.get(p.component);
      if (definition === undefined) return fail('DIRECTIVE_PAYLOAD_INVALID', '/component', `no component "${p.component}"`);
      // The component's schema checked them; the IR holds data values only (no Date, no undefined).
      const props = DataMapSchema.safeParse(p.props);
      if (!props.success) return fail('DIRECTIVE_PAYLOAD_INVALID', '/props', 'properties must be JSON data (text, numbers, true/false, lists, objects)');
      const name = p.name ?? defaultName(p.component);
      const items = definition.item === undefined ? undefined : (p.items ?? []);
      if (items !== undefined) {
        const over = itemBudget(items, items.length, context?.limits ?? DEFAULT_LIMITS, '/items');
        if (over !== undefined) return { ok: false, error: over };
        const seen = new Set<string>();
        for (const [i, item] of items.entries()) {
          const key = item[ITEM_KEY_FIELD] as string;
          if (seen.has(key)) return fail('DIRECTIVE_LIST_ITEM_INVALID', `/items/${i}/${ITEM_KEY_FIELD}`, `two items have the key "${key}"`);
          seen.add(key);
          // Stored like a list's items: flat values, which every fallback list can show.
          const bad = Object.entries(item).find(([, v]) => !ItemValue.safeParse(v).success);
          if (bad !== undefined) return fail('DIRECTIVE_LIST_ITEM_INVALID', `/items/${i}/${bad[0]}`, 'an item field is text, a number or true/false');
        }
      }
      // The block as the IR defines it (zod is the one source): a name the IR refuses for a
      // component (a basic type, say, from an app that built its list by hand) never gets in.
      const parsed = ComponentBlock.safeParse({
        kind: 'component', component: p.component, name, props: props.data, bind: {}, itemKey: ITEM_KEY_FIELD,
        actions: (p.actions ?? []).map((a) => ({ name: a.name, label: a.label, primary: a.primary ?? false })),
        maxItems: p.max_shown ?? DEFAULT_SHOWN,
        ...(items === undefined ? {} : { path: `/ui/lists/${name}` }),
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = String(issue?.path[0] ?? '');
        return fail('DIRECTIVE_IR_INVALID', BLOCK_FIELD_POINTERS[field] ?? '', `the component block would be invalid${field === '' ? '' : ` at ${field}`}: ${issue?.message ?? 'invalid'}`);
      }
      const block: Block = parsed.data;
      const blocks: Block[] = p.intro === undefined ? [block] : [{ kind: 'text', text: p.intro, tone: 'body' }, block];
      const view: SurfaceView = { template: 'component', title: p.title, blocks, actions: [] };
      const id = panelFor(ir, p.surface ?? defaultSurface, view);
      const existing = findLiveSurface(ir, id);
      const { lists: _lists, ...ui } = existing?.data.ui ?? {};
      const next = openSurface(ir, {
        id, view, draft: {},
        ui: (items === undefined ? ui : { ...ui, lists: { [name]: items } }) as DataMap,
      }, draw);
      return { ok: true, ir: next };
    },
  };
}
