import { z } from 'zod';
import type { ComponentDefinition, ComponentRegistry } from '../../app-kit/component.ts';
import { unguardA2uiString } from '../a2ui-v0_8/text.ts';
import { COLLECTION_PROPS } from '../../ui-ir/index.ts';
import { bindableKind } from './props.ts';
import { cachedAppCatalogSpec } from './app-catalog-spec.ts';

/**
 * What the v0.8 semantic validator knows of an app catalogue: per app component, the zod
 * schema of its properties object (`{ "<Name>": {…} }`'s value) in v0.8's encoding: a literal
 * property is the BoundValue of its kind (`literalString`, `literalNumber`, `literalBoolean`,
 * `literalArray`) whose value (unguarded) passes the component's own zod schema; a bindable one
 * may instead be `{path}`; a collection's `items` and `note` are `{path}`, its `itemActions`
 * buttons carry a v0.8 action (`{name, context: [{key, value}]}`).
 */
export interface AppCatalogV08 {
  catalogId: string;
  components: ReadonlyMap<string, z.ZodType>;
}

const Path = z.strictObject({ path: z.string() });
const LITERAL_KEY = {
  DynamicString: 'literalString', DynamicNumber: 'literalNumber', DynamicBoolean: 'literalBoolean', DynamicStringList: 'literalArray',
} as const;

const unguard = (v: unknown): unknown => (typeof v === 'string' ? unguardA2uiString(v) : Array.isArray(v) ? v.map(unguard) : v);

/**
 * The BoundValue of a literal. `document`: as the catalogue document describes it, the value
 * under its own schema (JSON Schema has no room for a refinement, nor for unguarding);
 * otherwise as the validator checks it, the value unguarded then parsed by the field's schema.
 */
function literalOf(field: z.ZodType, document: boolean): z.ZodType | undefined {
  const kind = bindableKind(field);
  if (kind === 'DynamicValue') return undefined;
  const key = LITERAL_KEY[kind];
  const base = key === 'literalString' ? z.string() : key === 'literalNumber' ? z.number() : key === 'literalBoolean' ? z.boolean() : z.array(z.string());
  // A string, number or boolean schema says its type itself; a list's entries might not.
  if (document) return z.strictObject({ [key]: key === 'literalArray' ? z.intersection(base, present(field)) : present(field) });
  return z.strictObject({ [key]: base }).refine((v) => field.safeParse(unguard((v as Record<string, unknown>)[key])).success, 'not a value of the property\'s schema');
}

/**
 * A written literal is there and is not null (v0.8 has none): the field without its optional,
 * default or nullable wrappers, which bindableKind looks through too.
 */
function present(field: z.ZodType): z.ZodType {
  return field instanceof z.ZodOptional || field instanceof z.ZodDefault || field instanceof z.ZodNullable ? present(field.unwrap() as z.ZodType) : field;
}

const ContextValue = z.union([
  Path, z.strictObject({ literalString: z.string() }), z.strictObject({ literalNumber: z.number() }), z.strictObject({ literalBoolean: z.boolean() }),
]);
export const ItemActionWireV08 = z.strictObject({
  label: z.strictObject({ literalString: z.string() }),
  primary: z.boolean().optional(),
  action: z.strictObject({ name: z.string(), context: z.array(z.strictObject({ key: z.string(), value: ContextValue })).optional() }),
});

export function wireSchemaV08(definition: ComponentDefinition): z.ZodType {
  return wireSchema(definition, false);
}

/**
 * The same encoding as the catalogue document publishes it (catalog-v08.ts): each literal's
 * value under the property's own schema (its enum, lengths, pattern, range), so the document
 * refuses what the validator refuses. One difference JSON Schema cannot express: a string the
 * compiler guards (text.ts: one that looks like JSON or a component id gets a trailing U+2060)
 * is checked by the validator without its mark, by the document with it.
 */
export function wireDocumentSchemaV08(definition: ComponentDefinition): z.ZodType {
  return wireSchema(definition, true);
}

function wireSchema(definition: ComponentDefinition, document: boolean): z.ZodType {
  const bindable = new Set<string>(definition.bindable ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(definition.props.shape as Record<string, z.ZodType>)) {
    const literal = literalOf(field, document);
    const options = [...(literal === undefined ? [] : [literal]), ...(bindable.has(key) ? [Path] : [])];
    // A property with no v0.8 literal and no binding cannot be written: only its absence passes.
    const schema = options.length === 0 ? z.never() : options.length === 1 ? options[0]! : z.union(options as [z.ZodType, z.ZodType]);
    shape[key] = field.safeParse(undefined).success ? schema.optional() : schema;
  }
  if (definition.item !== undefined) {
    shape[COLLECTION_PROPS.items] = Path;
    shape[COLLECTION_PROPS.note] = Path.optional();
    shape[COLLECTION_PROPS.itemActions] = z.array(ItemActionWireV08).max(4).optional();
  }
  return z.strictObject(shape);
}

export const appCatalogSpecV08: (registry: ComponentRegistry, catalogId: string) => AppCatalogV08 = cachedAppCatalogSpec(wireSchemaV08);
