import type { DirectiveDefinition, DirectiveRegistry } from './registry.ts';
import { isPlainObject } from '../ui-ir/index.ts';
import { payloadJsonSchema } from './json-schema.ts';

/**
 * Renders the directive catalogue (prompt and docs) from each payload's generated JSON Schema,
 * so what the model reads is what the validator enforces.
 */
type Json = Record<string, unknown>;

const isJson: (value: unknown) => value is Json = isPlainObject;

/** A one-line type summary of a JSON Schema node; objects are expanded two levels deep. */
export function summariseSchema(node: unknown, defs: Json = {}, depth = 0): string {
  if (!isJson(node)) return 'any';
  if (typeof node.$ref === 'string') {
    const target = defs[node.$ref.replace(/^#\/\$defs\//, '')];
    return node.$ref !== '#' && isJson(target) && depth < 3 ? summariseSchema(target, defs, depth + 1) : 'value';
  }
  if (Object.hasOwn(node, 'const')) return JSON.stringify(node.const);
  if (Array.isArray(node.enum)) return `one of ${node.enum.map((v) => JSON.stringify(v)).join(' | ')}`;
  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (alternatives !== undefined) return [...new Set(alternatives.map((a) => summariseSchema(a, defs, depth)))].join(' | ');
  switch (node.type) {
    case 'array': return `list of ${summariseSchema(node.items, defs, depth)}`;
    case 'object': {
      if (!isJson(node.properties) || depth >= 2) return 'object';
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      const entries = Object.entries(node.properties).map(([k, v]) => {
        const note = isJson(v) && typeof v.description === 'string' ? ` (${v.description})` : '';
        return `${k}${required.has(k) ? '' : '?'}: ${summariseSchema(v, defs, depth + 1)}${note}`;
      });
      return `{${entries.join(', ')}}`;
    }
    case 'integer': case 'number': {
      const range = [node.minimum, node.maximum].every((v) => typeof v === 'number') ? ` ${node.minimum}..${node.maximum}` : '';
      return `${String(node.type)}${range}`;
    }
    default: return typeof node.type === 'string' ? node.type : 'value';
  }
}

type Field = { name: string; required: boolean; summary: string; description?: string };

function branchFields(branch: Json, defs: Json): Field[] {
  const required = new Set(Array.isArray(branch.required) ? branch.required : []);
  return Object.entries(isJson(branch.properties) ? branch.properties : {}).map(([name, prop]) => {
    const field: Field = { name, required: required.has(name), summary: summariseSchema(prop, defs, 1) };
    if (isJson(prop) && typeof prop.description === 'string') field.description = prop.description;
    return field;
  });
}

const fieldLine = (f: Field, indent = ''): string =>
  `${indent}- \`${f.name}\`${f.required ? '' : ' (optional)'}: ${f.summary}${f.description ? ` — ${f.description}` : ''}`;

/**
 * Payload lines. A union payload with a discriminator (a key that is a constant in every
 * branch, e.g. `template`) lists the shared fields once, then what changes per branch.
 */
export function payloadLines(schema: Json): string[] {
  const defs = isJson(schema.$defs) ? schema.$defs : {};
  const branches = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : [schema]).filter(isJson);
  const perBranch = branches.map((b) => branchFields(b, defs));
  if (perBranch.length === 1) return perBranch[0]!.map((f) => fieldLine(f));
  const first = perBranch[0] ?? [];
  const discriminator = first.find((f) => perBranch.every((fields) => fields.some((g) => g.name === f.name && /^"/.test(g.summary))))?.name;
  const same = (name: string): boolean => new Set(perBranch.map((fields) => JSON.stringify(fields.find((g) => g.name === name) ?? null))).size === 1;
  const names = [...new Set(perBranch.flat().map((f) => f.name))];
  const lines: string[] = [];
  for (const name of names) {
    if (name === discriminator) {
      const values = perBranch.map((fields) => fields.find((g) => g.name === name)!.summary);
      lines.push(fieldLine({ name, required: true, summary: values.join(' | ') }));
    } else if (same(name)) {
      lines.push(fieldLine(first.find((g) => g.name === name)!));
    }
  }
  if (discriminator === undefined) return [...lines, ...perBranch.flat().filter((f) => !same(f.name)).map((f) => fieldLine(f))];
  perBranch.forEach((fields) => {
    const tag = fields.find((g) => g.name === discriminator)!.summary;
    const varying = fields.filter((f) => f.name !== discriminator && !same(f.name));
    if (varying.length > 0) lines.push(`- when \`${discriminator}\` is ${tag}:`, ...varying.map((f) => fieldLine(f, '  ')));
  });
  return lines;
}

export function renderDirectiveEntry(definition: DirectiveDefinition): string {
  const lines = [`### \`${definition.type}\``, '', definition.description, ''];
  if (definition.aliases.length > 0) {
    lines.push(`Also understood (but write \`${definition.type}\`): ${definition.aliases.map((a) => `\`${a}\``).join(', ')}`, '');
  }
  lines.push('Payload:', ...payloadLines(payloadJsonSchema(definition)));
  if (definition.example !== undefined) {
    lines.push('', 'Example:', '```json', JSON.stringify({ type: definition.type, payload: definition.example }), '```');
  }
  return lines.join('\n');
}

/** The directive catalogue, generated from the registry for prompts and docs. */
export function renderDirectiveCatalogue(registry: DirectiveRegistry): string {
  return registry.definitions.map(renderDirectiveEntry).join('\n\n');
}
