import { z } from 'zod';
import { isBasicComponentType } from '../../a2ui-v0_9-protocol/index.ts';
import {
  AccessibilityAttributes, Action, CheckRule, ChildList, ComponentId, DataBinding, DynamicBoolean, DynamicNumber, DynamicString, DynamicStringList,
  DynamicValue,
} from '../../a2ui-v0_9-protocol/common.ts';
import { COMMON_TYPES } from './catalog-v09.ts';
import type { AppCatalogV09 } from './wire-v09.ts';

/**
 * An app catalogue read back from its v0.9 catalogue document (e.g. one written by
 * appCatalogV09, for `surfacer validate --catalog FILE`): its id and, per component that is not a
 * basic one, a zod schema of the whole wire component built from the JSON Schema. The basic
 * components are the validator's own. Understood: the protocol's common types (by `$ref` into
 * common_types.json), local `$ref`s, objects (`additionalProperties: false` = strict), arrays,
 * `anyOf`/`oneOf`, `enum`, `const`, and string/number/integer/boolean with their usual bounds;
 * anything else accepts any value. Errors as values: a document that is not a catalogue is a
 * message, never a throw.
 */
const COMMON: Readonly<Record<string, z.ZodType>> = {
  DynamicString, DynamicNumber, DynamicBoolean, DynamicStringList, DynamicValue, ComponentId, ChildList, Action, CheckRule,
  AccessibilityAttributes, DataBinding,
};

type Json = { [key: string]: unknown };
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function resolveLocal(doc: Json, ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isJson(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function refTarget(ref: string, doc: Json, depth: number): z.ZodType {
  if (ref.startsWith(`${COMMON_TYPES}#/$defs/`)) return COMMON[ref.slice(`${COMMON_TYPES}#/$defs/`.length)] ?? z.any();
  if (ref.startsWith('#/')) return toZod(resolveLocal(doc, ref), doc, depth + 1);
  return z.any();
}

function toZod(node: unknown, doc: Json, depth: number): z.ZodType {
  if (!isJson(node) || depth > 32) return z.any();
  if (typeof node.$ref === 'string') {
    const target = refTarget(node.$ref, doc, depth);
    // Keywords beside a `$ref` apply too (JSON Schema 2020-12): a bindable property's `anyOf`.
    const { $ref: _ref, description: _description, ...rest } = node;
    return Object.keys(rest).length === 0 ? target : z.intersection(target, toZod(rest, doc, depth + 1));
  }
  if (Object.hasOwn(node, 'const')) return z.literal(node.const as z.core.util.Literal);
  if (Array.isArray(node.enum) && node.enum.length > 0) {
    const values = node.enum as z.core.util.Literal[];
    return values.length === 1 ? z.literal(values[0]!) : z.union(values.map((v) => z.literal(v)) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  }
  const options = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (options !== undefined && options.length > 0) {
    const members = options.map((o) => toZod(o, doc, depth + 1));
    return members.length === 1 ? members[0]! : z.union(members as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  }
  switch (node.type) {
    case 'object': return objectOf(node, doc, depth);
    case 'array': {
      let schema = z.array(toZod(node.items, doc, depth + 1));
      if (typeof node.minItems === 'number') schema = schema.min(node.minItems);
      if (typeof node.maxItems === 'number') schema = schema.max(node.maxItems);
      return schema;
    }
    case 'string': {
      let schema = z.string();
      if (typeof node.minLength === 'number') schema = schema.min(node.minLength);
      if (typeof node.maxLength === 'number') schema = schema.max(node.maxLength);
      if (typeof node.pattern === 'string') {
        try { schema = schema.regex(new RegExp(node.pattern, 'u')); } catch { /* a pattern JS cannot read checks nothing */ }
      }
      return schema;
    }
    case 'number':
    case 'integer': {
      let schema = node.type === 'integer' ? z.number().int() : z.number();
      if (typeof node.minimum === 'number') schema = schema.min(node.minimum);
      if (typeof node.maximum === 'number') schema = schema.max(node.maximum);
      if (typeof node.exclusiveMinimum === 'number') schema = schema.gt(node.exclusiveMinimum);
      if (typeof node.exclusiveMaximum === 'number') schema = schema.lt(node.exclusiveMaximum);
      return schema;
    }
    case 'boolean': return z.boolean();
    default: return z.any();
  }
}

function objectOf(node: Json, doc: Json, depth: number): z.ZodType {
  const required = new Set(Array.isArray(node.required) ? node.required.filter((k): k is string => typeof k === 'string') : []);
  const shape: Record<string, z.ZodType> = {};
  for (const [key, prop] of Object.entries(isJson(node.properties) ? node.properties : {})) {
    const schema = toZod(prop, doc, depth + 1);
    shape[key] = required.has(key) ? schema : schema.optional();
  }
  return node.additionalProperties === false || node.unevaluatedProperties === false ? z.strictObject(shape) : z.object(shape);
}

/** A component entry: its own properties and required keys, gathered from `allOf` (common parts skipped). */
function componentSchema(entry: Json, type: string, doc: Json): z.ZodType {
  const parts = Array.isArray(entry.allOf) ? entry.allOf.filter(isJson) : [];
  const properties: Json = { ...(isJson(entry.properties) ? entry.properties : {}) };
  const required = new Set<string>(Array.isArray(entry.required) ? entry.required.filter((k): k is string => typeof k === 'string') : []);
  for (const part of parts) {
    const resolved = typeof part.$ref === 'string' && part.$ref.startsWith('#/') ? resolveLocal(doc, part.$ref) : part;
    if (!isJson(resolved)) continue;
    Object.assign(properties, isJson(resolved.properties) ? resolved.properties : {});
    for (const k of Array.isArray(resolved.required) ? resolved.required : []) if (typeof k === 'string') required.add(k);
  }
  const shape: Record<string, z.ZodType> = {
    id: z.string(), component: z.literal(type), accessibility: AccessibilityAttributes.optional(), weight: z.number().optional(),
  };
  for (const [key, prop] of Object.entries(properties)) {
    if (key === 'component' || key === 'id') continue;
    const schema = toZod(prop, doc, 1);
    shape[key] = required.has(key) ? schema : schema.optional();
  }
  return z.strictObject(shape);
}

export function appCatalogFromDocumentV09(document: unknown): { ok: true; catalog: AppCatalogV09 } | { ok: false; message: string } {
  if (!isJson(document)) return { ok: false, message: 'a catalogue is a JSON object' };
  const catalogId = document.catalogId ?? document.$id;
  if (typeof catalogId !== 'string' || catalogId === '') return { ok: false, message: 'the catalogue names no catalogId' };
  if (!isJson(document.components)) return { ok: false, message: 'the catalogue has no components object' };
  const components = new Map<string, z.ZodType>();
  for (const [type, entry] of Object.entries(document.components)) {
    if (isBasicComponentType(type) || !isJson(entry)) continue;
    components.set(type, componentSchema(entry, type, document));
  }
  return { ok: true, catalog: { catalogId, components } };
}
