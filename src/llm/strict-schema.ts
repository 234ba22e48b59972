/**
 * OpenAI's strict structured outputs accept a subset of JSON Schema: every object lists all its
 * properties in `required` and sets `additionalProperties: false`, no `oneOf`, and only some
 * keywords. `toStrictJsonSchema` derives that variant from the schema zod generates (the one
 * the validator uses), and `fromStrictValue` maps a strict answer back to the original shape
 * before validation. The shapes are still described once, in zod.
 *
 * Representation changes, both undone by `fromStrictValue`:
 * - an optional property becomes required and nullable; null means "absent";
 * - a free-form map (`additionalProperties: <schema>`, which strict mode cannot express) becomes
 *   `{"entries": [{"key": …, "value": …}]}`.
 */

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

// Keywords OpenAI documents for strict mode; anything else is left out (and enforced by our validator).
const KEEP = new Set([
  'type', 'description', 'enum', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'multipleOf', 'minItems', 'maxItems',
]);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const STRUCTURAL = new Set(['properties', 'required', 'additionalProperties', 'items', 'anyOf', 'oneOf', 'allOf', '$ref', '$defs', 'const', 'propertyNames']);

export interface StrictSchema {
  schema: Node;
  /** Keywords of the original that strict mode does not take (the validator still enforces them). */
  dropped: string[];
}

export function toStrictJsonSchema(original: Node): StrictSchema {
  const dropped = new Set<string>();
  const convert = (node: unknown): Node => {
    if (!isNode(node)) return {};
    if (typeof node.$ref === 'string') return { $ref: node.$ref };
    const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    if (alternatives !== undefined) return withDescription({ anyOf: alternatives.map(convert) }, node);
    if (Array.isArray(node.allOf)) {
      if (node.allOf.length !== 1) throw new Error('allOf with several schemas has no strict-mode equivalent');
      return convert({ ...node.allOf[0] as Node, ...(typeof node.description === 'string' ? { description: node.description } : {}) });
    }
    const out: Node = {};
    for (const [key, value] of Object.entries(node)) {
      if (KEEP.has(key) && !(key === 'format' && !FORMATS.has(String(value)))) out[key] = value;
      else if (!STRUCTURAL.has(key) && key !== '$schema') dropped.add(key);
      else if (key === 'format') dropped.add('format');
    }
    if (Object.hasOwn(node, 'const')) out.enum = [node.const];
    if (node.type === 'array') out.items = convert(node.items);
    if (node.type === 'object') return { ...out, ...strictObject(node, convert) };
    return out;
  };
  const schema = convert(original);
  if (isNode(original.$defs)) {
    schema.$defs = Object.fromEntries(Object.entries(original.$defs).map(([name, def]) => [name, convert(def)]));
  }
  return { schema, dropped: [...dropped].sort() };
}

function strictObject(node: Node, convert: (node: unknown) => Node): Node {
  if (isNode(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const properties = Object.fromEntries(Object.entries(node.properties).map(([key, prop]) => {
      const converted = convert(prop);
      return [key, required.has(key) || acceptsNull(prop) ? converted : nullable(converted)];
    }));
    return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  }
  if (isNode(node.additionalProperties)) {
    const key: Node = { type: 'string' };
    if (isNode(node.propertyNames) && typeof node.propertyNames.pattern === 'string') key.pattern = node.propertyNames.pattern;
    const entry = {
      type: 'object', properties: { key, value: convert(node.additionalProperties) }, required: ['key', 'value'], additionalProperties: false,
    };
    return {
      type: 'object', description: 'a map, written as {"entries": [{"key": ..., "value": ...}]}',
      properties: { entries: { type: 'array', items: entry } }, required: ['entries'], additionalProperties: false,
    };
  }
  return { type: 'object', properties: {}, required: [], additionalProperties: false };
}

function nullable(node: Node): Node {
  if (typeof node.type === 'string' && node.anyOf === undefined) {
    const out: Node = { ...node, type: [node.type, 'null'] };
    if (Array.isArray(node.enum)) out.enum = [...node.enum, null];
    return out;
  }
  const { description, ...rest } = node;
  return withDescription({ anyOf: [rest, { type: 'null' }] }, { description });
}

function withDescription(out: Node, from: Node): Node {
  return typeof from.description === 'string' ? { ...out, description: from.description } : out;
}

function acceptsNull(node: unknown): boolean {
  if (!isNode(node)) return false;
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : [];
  return alternatives.some(acceptsNull);
}

/** Walks a value beside the original schema; `direction` says which representation the value is in. */
type Direction = 'from_strict' | 'to_strict';

function resolve(node: unknown, root: Node): Node | undefined {
  if (!isNode(node)) return undefined;
  if (typeof node.$ref !== 'string') return node;
  if (node.$ref === '#') return root;
  const name = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
  const defs = isNode(root.$defs) ? root.$defs : {};
  return name !== undefined && Object.hasOwn(defs, name) ? resolve(defs[name], root) : undefined;
}

const isRecordSchema = (node: Node): boolean => !isNode(node.properties) && isNode(node.additionalProperties);

/** Whether `value` (in the given representation) can be an instance of `node`: type and constant keys only. */
function fits(value: unknown, node: Node, root: Node, direction: Direction): boolean {
  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (alternatives !== undefined) return alternatives.some((a) => { const r = resolve(a, root); return r !== undefined && fits(value, r, root, direction); });
  if (Object.hasOwn(node, 'const')) return value === node.const;
  if (Array.isArray(node.enum)) return node.enum.includes(value);
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? undefined : [node.type];
  if (types === undefined) return true;
  return types.some((type) => {
    switch (type) {
      case 'null': return value === null;
      case 'boolean': return typeof value === 'boolean';
      case 'string': return typeof value === 'string';
      case 'integer': return Number.isInteger(value);
      case 'number': return typeof value === 'number';
      case 'array': return Array.isArray(value);
      case 'object': return isNode(value) && objectFits(value, node, root, direction);
      default: return false;
    }
  });
}

function objectFits(value: Node, node: Node, root: Node, direction: Direction): boolean {
  if (isRecordSchema(node)) return direction === 'to_strict' || (Object.keys(value).length === 1 && Array.isArray(value.entries));
  const properties = isNode(node.properties) ? node.properties : {};
  return Object.keys(value).every((key) => {
    if (!Object.hasOwn(properties, key)) return false;
    const prop = resolve(properties[key], root);
    const constant = prop !== undefined && (Object.hasOwn(prop, 'const') || Array.isArray(prop.enum));
    return !constant || fits(value[key], prop, root, direction) || (direction === 'from_strict' && value[key] === null);
  });
}

function setOwn(target: Node, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function walk(value: unknown, schema: unknown, root: Node, direction: Direction): unknown {
  const node = resolve(schema, root);
  if (node === undefined) return value;
  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (alternatives !== undefined) {
    const branch = alternatives.map((a) => resolve(a, root)).find((b) => b !== undefined && fits(value, b, root, direction));
    return branch === undefined ? value : walk(value, branch, root, direction);
  }
  if (Array.isArray(value)) return node.type === 'array' ? value.map((v) => walk(v, node.items, root, direction)) : value;
  if (!isNode(value) || node.type !== 'object') return value;
  const out: Node = {};
  if (isRecordSchema(node)) {
    if (direction === 'to_strict') {
      return { entries: Object.entries(value).map(([key, v]) => ({ key, value: walk(v, node.additionalProperties, root, direction) })) };
    }
    if (!Array.isArray(value.entries)) return value;
    for (const entry of value.entries) {
      if (isNode(entry) && typeof entry.key === 'string') setOwn(out, entry.key, walk(entry.value, node.additionalProperties, root, direction));
    }
    return out;
  }
  const properties = isNode(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  for (const key of Object.keys(value)) {
    const prop = Object.hasOwn(properties, key) ? properties[key] : undefined;
    const absent = direction === 'from_strict' && value[key] === null && !required.has(key) && !acceptsNull(resolve(prop, root));
    if (!absent) setOwn(out, key, walk(value[key], prop, root, direction));
  }
  if (direction === 'to_strict') {
    for (const key of Object.keys(properties)) if (!Object.hasOwn(value, key) && !required.has(key)) setOwn(out, key, null);
  }
  return out;
}

/** A strict-mode answer → the shape the original schema describes (null → absent, entries → map). */
export function fromStrictValue(value: unknown, original: Node): unknown {
  return walk(value, original, original, 'from_strict');
}

/** The inverse: what a strict-mode model writes for a value of the original shape (tests, fakes). */
export function toStrictValue(value: unknown, original: Node): unknown {
  return walk(value, original, original, 'to_strict');
}
