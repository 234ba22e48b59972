/**
 * A checker for the JSON Schema subset OpenAI's strict structured outputs accept, written from
 * OpenAI's "Supported schemas" documentation (no library checks this subset):
 * - the root is an object schema, not `anyOf`;
 * - every object sets `additionalProperties: false` and lists every property in `required`;
 * - keywords: type, properties, required, additionalProperties, items, anyOf, enum, const,
 *   description, $ref, $defs (root), and per type: string pattern/format (a fixed list of
 *   formats), number minimum/maximum/exclusiveMinimum/exclusiveMaximum/multipleOf, array
 *   minItems/maxItems. Anything else (oneOf, allOf, minLength, maxLength, propertyNames,
 *   patternProperties, uniqueItems, default, …) is refused;
 * - `$ref` points at `#` or an existing `#/$defs/...`;
 * - at most 5000 properties, 10 levels of object nesting, 1000 values per enum, and 120 000
 *   characters of property names, definition names, enum and const values in total.
 * Returns one line per violation, each with the JSON Pointer of the offending node.
 */
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const COMMON = new Set(['type', 'description', 'title', 'anyOf', 'enum', 'const', '$ref']);
const BY_TYPE: Record<string, ReadonlySet<string>> = {
  object: new Set(['properties', 'required', 'additionalProperties']),
  array: new Set(['items', 'minItems', 'maxItems']),
  string: new Set(['pattern', 'format']),
  number: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']),
  integer: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']),
  boolean: new Set(),
  null: new Set(),
};

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);

export function checkOpenAiStrictSchema(root: unknown): string[] {
  const violations: string[] = [];
  if (!isNode(root)) return ['/: the schema is not an object'];
  if (root.type !== 'object') violations.push('/: the root must be of type "object"');
  if (root.anyOf !== undefined) violations.push('/: the root must not be anyOf');
  const defs = isNode(root.$defs) ? root.$defs : {};
  let properties = 0;
  let chars = Object.keys(defs).join('').length;
  const visit = (node: unknown, at: string, depth: number): void => {
    if (!isNode(node)) { violations.push(`${at}: not a schema object`); return; }
    const types = Array.isArray(node.type) ? node.type as string[] : typeof node.type === 'string' ? [node.type] : [];
    if (types.length === 0 && node.anyOf === undefined && node.$ref === undefined) violations.push(`${at}: needs a type, anyOf or $ref`);
    const allowed = new Set([...COMMON, ...types.flatMap((t) => [...(BY_TYPE[t] ?? [])]), ...(at === '' ? ['$defs', '$schema'] : [])]);
    for (const key of Object.keys(node)) if (!allowed.has(key)) violations.push(`${at}: keyword "${key}" is not supported`);
    for (const t of types) if (!Object.hasOwn(BY_TYPE, t)) violations.push(`${at}: unknown type "${t}"`);
    if (typeof node.format === 'string' && !FORMATS.has(node.format)) violations.push(`${at}: format "${node.format}" is not supported`);
    if (typeof node.$ref === 'string' && node.$ref !== '#') {
      const name = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
      if (name === undefined || !Object.hasOwn(defs, name)) violations.push(`${at}: $ref "${node.$ref}" does not resolve`);
    }
    if (Array.isArray(node.enum)) {
      if (node.enum.length > 1000) violations.push(`${at}: more than 1000 enum values`);
      chars += node.enum.map((v) => String(v)).join('').length;
    }
    if (Object.hasOwn(node, 'const')) chars += String(node.const).length;
    if (Array.isArray(node.anyOf)) node.anyOf.forEach((alt, i) => visit(alt, `${at}/anyOf/${i}`, depth));
    if (types.includes('array')) {
      if (node.items === undefined) violations.push(`${at}: an array needs items`);
      else visit(node.items, `${at}/items`, depth);
    }
    if (types.includes('object')) {
      if (depth + 1 > 10) violations.push(`${at}: objects nested deeper than 10 levels`);
      if (node.additionalProperties !== false) violations.push(`${at}: additionalProperties must be false`);
      const props = isNode(node.properties) ? node.properties : undefined;
      if (props === undefined) { violations.push(`${at}: an object needs properties`); return; }
      const required = Array.isArray(node.required) ? node.required : [];
      const keys = Object.keys(props);
      if (required.length !== keys.length || !keys.every((k) => required.includes(k))) {
        violations.push(`${at}: required must list every property (${keys.filter((k) => !required.includes(k)).join(', ')} missing)`);
      }
      properties += keys.length;
      chars += keys.join('').length;
      for (const key of keys) visit(props[key], `${at}/properties/${key}`, depth + 1);
    }
  };
  visit(root, '', 0);
  for (const [name, def] of Object.entries(defs)) visit(def, `/$defs/${name}`, 0);
  if (properties > 5000) violations.push(`/: ${properties} properties (limit 5000)`);
  if (chars > 120_000) violations.push(`/: ${chars} characters of names and values (limit 120000)`);
  return violations;
}
