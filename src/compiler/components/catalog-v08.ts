import { z } from 'zod';
import type { ComponentRegistry } from '../../app-kit/component.ts';
import { CATALOGUE, type PropSpec } from '../a2ui-v0_8/catalogue.ts';
import type { JsonSchema } from './catalog-v09.ts';
import { wireDocumentSchemaV08 } from './wire-v08.ts';

/**
 * The app catalogue as an A2UI v0.8 catalogue document (`{catalogId, components, styles}`, the
 * shape of v0.8's standard_catalog_definition.json): the standard components' property schemas,
 * written from the catalogue our v0.8 validator uses (src/compiler/a2ui-v0_8/catalogue.ts; a
 * test holds their names and required lists to the official file), and each app component's,
 * the JSON Schema of its v0.8 property encoding (wire-v08.ts wireDocumentSchemaV08: BoundValues
 * of the props' kinds, each literal under the property's own schema; `{path}` where bindable; a
 * collection's `items`, `note` and `itemActions`). Pure.
 */
export interface CatalogDocumentV08 {
  catalogId: string;
  components: Record<string, JsonSchema>;
  styles: Record<string, JsonSchema>;
}

const LITERAL_TYPE = { literalString: 'string', literalNumber: 'number', literalBoolean: 'boolean', literalArray: 'array' } as const;
const bound = (literal: keyof typeof LITERAL_TYPE, values?: readonly string[]): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    [literal]: literal === 'literalArray' ? { type: 'array', items: { type: 'string' } } : { type: LITERAL_TYPE[literal], ...(values === undefined ? {} : { enum: [...values] }) },
    path: { type: 'string' },
  },
});
const BOUND_STRING = bound('literalString');
const CONTEXT_VALUE: JsonSchema = {
  type: 'object', additionalProperties: false,
  properties: { path: { type: 'string' }, literalString: { type: 'string' }, literalNumber: { type: 'number' }, literalBoolean: { type: 'boolean' } },
};

function propSchema(spec: PropSpec): JsonSchema {
  switch (spec.kind) {
    case 'bound': return bound(spec.literal, spec.literalEnum);
    case 'ref': return { type: 'string' };
    case 'children': return {
      type: 'object', additionalProperties: false,
      properties: {
        explicitList: { type: 'array', items: { type: 'string' } },
        template: { type: 'object', additionalProperties: false, properties: { componentId: { type: 'string' }, dataBinding: { type: 'string' } }, required: ['componentId', 'dataBinding'] },
      },
    };
    case 'enum': return { type: 'string', enum: [...spec.values] };
    case 'string': return { type: 'string' };
    case 'boolean': return { type: 'boolean' };
    case 'number': return { type: 'number' };
    case 'integer': return { type: 'integer' };
    case 'action': return {
      type: 'object', additionalProperties: false,
      properties: {
        name: { type: 'string' },
        context: { type: 'array', items: { type: 'object', additionalProperties: false, properties: { key: { type: 'string' }, value: CONTEXT_VALUE }, required: ['key', 'value'] } },
      },
      required: ['name'],
    };
    case 'tabItems': return {
      type: 'array',
      items: { type: 'object', additionalProperties: false, properties: { title: BOUND_STRING, child: { type: 'string' } }, required: ['title', 'child'] },
    };
    case 'options': return {
      type: 'array',
      items: { type: 'object', additionalProperties: false, properties: { label: BOUND_STRING, value: { type: 'string' } }, required: ['label', 'value'] },
    };
  }
}

const documents = new WeakMap<ComponentRegistry, Map<string, CatalogDocumentV08>>();

export function appCatalogV08(registry: ComponentRegistry, catalogId: string): CatalogDocumentV08 {
  let byId = documents.get(registry);
  if (byId === undefined) documents.set(registry, byId = new Map());
  const known = byId.get(catalogId);
  if (known !== undefined) return known;
  const components: Record<string, JsonSchema> = {};
  for (const [type, spec] of Object.entries(CATALOGUE)) {
    components[type] = {
      type: 'object', additionalProperties: false,
      properties: Object.fromEntries(Object.entries(spec.props).map(([name, p]) => [name, propSchema(p)])),
      required: [...spec.required],
    };
  }
  for (const definition of registry.list()) {
    const js = z.toJSONSchema(wireDocumentSchemaV08(definition), { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    delete js.$schema;
    components[definition.name] = { ...js, description: definition.description };
  }
  const document: CatalogDocumentV08 = {
    catalogId,
    components,
    styles: { font: { type: 'string' }, primaryColor: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' } },
  };
  byId.set(catalogId, document);
  return document;
}
