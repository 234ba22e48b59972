import { z } from 'zod';
import type { ComponentDefinition, ComponentRegistry } from '../../app-kit/component.ts';
import { BASIC_COMPONENT_SCHEMAS } from '../../a2ui-v0_9-protocol/catalog.ts';
import {
  AccessibilityAttributes, Action, CheckRule, ChildList, ComponentId, DynamicBoolean, DynamicNumber, DynamicString, DynamicStringList,
  DynamicValue,
} from '../../a2ui-v0_9-protocol/common.ts';
import { COLLECTION_PROPS } from '../../ui-ir/index.ts';
import { bindableKind } from './props.ts';
import { TABLE_COMPONENT, TABLE_DESCRIPTION, TableComponentProps } from './table-component.ts';

/**
 * The app catalogue as an A2UI v0.9 catalogue document, generated from the zod schemas: the
 * basic catalogue's components (from src/a2ui-v0_9-protocol/catalog.ts, the schemas the
 * validator uses), Surfacer's `Table` (table-component.ts) and the app's (from each definition's
 * `props`), under the app's catalogue id.
 * Pure: the same registry and id give the same document.
 *
 * Shape as the official catalogues (web_core's schema_loader reads it; a test loads it with
 * `Catalog.fromSchema` and runs streams through the official MessageProcessor): `components`
 * keyed by type, each `allOf` [ComponentCommon, {properties: {component: {const}, …}, required}];
 * the protocol's common types are `$ref`s into common_types.json, so a loader gives them their
 * real schemas (a literal or `{path}` binding where the protocol allows one).
 *
 * An app component's property schema is its zod schema's JSON Schema, except a bindable one,
 * which becomes the protocol's dynamic type of its kind (DynamicString, DynamicNumber, …): the
 * client may receive a `{path}` there; beside the `$ref`, an `anyOf` of the property's own
 * schema and a binding keeps the document as strict as the validator (wire-v09.ts). A component that shows a collection has three more:
 * `items` (bound to the shown items, each `{key, …fields of \`item\`}`), `note` (bound text under
 * them) and `itemActions` ([{label, primary, action}], the action a list item's button carries,
 * its `item` a binding relative to the item). No functions: the compilers emit no function call.
 */
export const COMMON_TYPES = 'https://a2ui.org/specification/v0_9/common_types.json';

export type JsonSchema = { [key: string]: unknown };

export interface CatalogDocumentV09 {
  $schema: string;
  $id: string;
  catalogId: string;
  title: string;
  description: string;
  components: Record<string, JsonSchema>;
  $defs: Record<string, JsonSchema>;
}

const COMMON_REFS = new Map<unknown, string>([
  [DynamicString, 'DynamicString'], [DynamicNumber, 'DynamicNumber'], [DynamicBoolean, 'DynamicBoolean'],
  [DynamicStringList, 'DynamicStringList'], [DynamicValue, 'DynamicValue'], [ChildList, 'ChildList'], [ComponentId, 'ComponentId'],
  [Action, 'Action'], [CheckRule, 'CheckRule'], [AccessibilityAttributes, 'AccessibilityAttributes'],
]);

const ref = (name: string): JsonSchema => ({ $ref: `${COMMON_TYPES}#/$defs/${name}` });

/** JSON Schema of `schema` with the protocol's common types as `$ref`s (never inlined). */
function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      const name = COMMON_REFS.get(ctx.zodSchema);
      if (name === undefined) return;
      const js = ctx.jsonSchema as JsonSchema;
      for (const key of Object.keys(js)) delete js[key];
      Object.assign(js, ref(name));
    },
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

function componentSchema(type: string, properties: Record<string, unknown>, required: readonly string[], description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    allOf: [
      ref('ComponentCommon'),
      { type: 'object', properties: { component: { const: type }, ...properties }, required: ['component', ...required] },
    ],
    unevaluatedProperties: false,
  };
}

/** A component whose properties are one zod object's, as they are. */
function componentOf(type: string, schema: z.ZodType, description?: string): JsonSchema {
  const js = jsonSchemaOf(schema);
  return componentSchema(type, (js.properties ?? {}) as Record<string, unknown>, (js.required ?? []) as string[], description);
}

/** The basic components, then Surfacer's `Table` (table-component.ts). */
function builtInComponents(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [type, schema] of Object.entries(BASIC_COMPONENT_SCHEMAS)) out[type] = componentOf(type, schema);
  out[TABLE_COMPONENT] = componentOf(TABLE_COMPONENT, TableComponentProps, TABLE_DESCRIPTION);
  return out;
}

/** One app component's entry, and its item's schema (a `$defs` entry) when it shows a collection. */
function appComponent(definition: ComponentDefinition): { schema: JsonSchema; item?: JsonSchema } {
  const js = jsonSchemaOf(definition.props);
  const properties: Record<string, unknown> = { ...(js.properties as Record<string, unknown> ?? {}) };
  for (const key of definition.bindable ?? []) {
    const { description, ...literal } = (properties[key] ?? {}) as JsonSchema;
    // The dynamic type is what a loader reads (the official one resolves bindings by it); beside
    // it, what the validator accepts: a literal of the property's own schema, or a binding (the
    // compilers emit no function call). A validator applies both.
    properties[key] = {
      ...ref(bindableKind(definition.props.shape[key] as z.ZodType)),
      anyOf: [literal, ref('DataBinding')],
      ...(typeof description === 'string' ? { description } : {}),
    };
  }
  const required = ((js.required ?? []) as string[]).slice();
  let item: JsonSchema | undefined;
  if (definition.item !== undefined) {
    item = jsonSchemaOf(definition.item);
    properties[COLLECTION_PROPS.items] = {
      ...ref('DynamicValue'),
      description: `Bound to the shown items, in order: each is {"key": its key, …the fields of #/$defs/${definition.name}Item}.`,
    };
    properties[COLLECTION_PROPS.note] = { ...ref('DynamicString'), description: 'Shown under the items: why there is none, or how many more there are.' };
    properties[COLLECTION_PROPS.itemActions] = {
      type: 'array',
      maxItems: 4,
      description: 'A button on every item: its action\'s context names the item by a binding relative to it.',
      items: {
        type: 'object',
        properties: { label: { type: 'string' }, primary: { type: 'boolean' }, action: ref('Action') },
        required: ['label', 'action'],
        additionalProperties: false,
      },
    };
    required.push(COLLECTION_PROPS.items);
  }
  return { schema: componentSchema(definition.name, properties, required, definition.description), ...(item === undefined ? {} : { item }) };
}

const documents = new WeakMap<ComponentRegistry, Map<string, CatalogDocumentV09>>();

/** The app catalogue document (v0.9) of `registry` under `catalogId`; built once per pair. */
export function appCatalogV09(registry: ComponentRegistry, catalogId: string, title = 'App catalogue'): CatalogDocumentV09 {
  let byId = documents.get(registry);
  if (byId === undefined) documents.set(registry, byId = new Map());
  const known = byId.get(catalogId);
  if (known !== undefined && known.title === title) return known;
  const components = builtInComponents();
  const $defs: Record<string, JsonSchema> = {};
  for (const definition of registry.list()) {
    const { schema, item } = appComponent(definition);
    components[definition.name] = schema;
    if (item !== undefined) $defs[`${definition.name}Item`] = item;
  }
  $defs.anyComponent = { oneOf: Object.keys(components).map((name) => ({ $ref: `#/components/${name}` })) };
  const document: CatalogDocumentV09 = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: catalogId,
    catalogId,
    title,
    description: 'The A2UI basic catalogue\'s components and the app\'s own (generated by Surfacer from their zod schemas).',
    components,
    $defs,
  };
  byId.set(catalogId, document);
  return document;
}
