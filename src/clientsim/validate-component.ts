import { issue } from './codes.ts';
import {
  ACTION_VALUE_BV, OPTION_LABEL_BV, STANDARD_TYPES, TAB_TITLE_BV, VALIDATED_TYPES, WC_TYPE_ORDER,
  type PropSpec,
} from './component-specs.ts';
import { childPointer, cloneJson, isPlainObject, own, setOwn, type JsonObject } from './json-util.ts';
import type { ComponentInstance, Issue } from './types.ts';
import { hasType, pickKeys, requireField, requireObject, validateBound } from './validate-shape.ts';

function validateArray(value: unknown, pointer: string, issues: Issue[], what: string, item: (v: unknown, p: string) => unknown): unknown[] {
  if (!Array.isArray(value)) {
    issues.push(issue('CLIENTSIM_FIELD_INVALID', `${what} must be an array`, pointer));
    return [];
  }
  return value.map((v, i) => item(v, childPointer(pointer, i)));
}

function validateChildren(value: unknown, pointer: string, issues: Issue[]): JsonObject {
  if (!requireObject(value, pointer, issues, 'children')) return {};
  const out = pickKeys(value, ['explicitList', 'template'], pointer, issues, true);
  if (Object.keys(out).length !== 1) {
    issues.push(issue('CLIENTSIM_FIELD_INVALID', "children must have exactly one of 'explicitList' or 'template'", pointer));
  }
  const list = own(out, 'explicitList');
  if (list !== undefined && !hasType(list, 'string[]')) {
    issues.push(issue('CLIENTSIM_FIELD_INVALID', 'explicitList must be an array of ids', childPointer(pointer, 'explicitList')));
  }
  const template = own(out, 'template');
  if (template !== undefined) {
    const at = childPointer(pointer, 'template');
    if (requireObject(template, at, issues, 'template')) {
      const picked = pickKeys(template, ['componentId', 'dataBinding'], at, issues, false);
      requireField(picked, 'componentId', 'string', at, issues, true);
      requireField(picked, 'dataBinding', 'string', at, issues, true);
      setOwn(out, 'template', picked);
    }
  }
  return out;
}

function validateAction(value: unknown, pointer: string, issues: Issue[]): JsonObject {
  if (!requireObject(value, pointer, issues, 'action')) return {};
  const out = pickKeys(value, ['name', 'context'], pointer, issues, false);
  requireField(out, 'name', 'string', pointer, issues, true);
  const context = own(out, 'context');
  if (context !== undefined) {
    setOwn(out, 'context', validateArray(context, childPointer(pointer, 'context'), issues, 'context', (entry, at) => {
      if (!requireObject(entry, at, issues, 'context entry')) return {};
      const picked = pickKeys(entry, ['key', 'value'], at, issues, false);
      requireField(picked, 'key', 'string', at, issues, true);
      if (own(picked, 'value') === undefined) issues.push(issue('CLIENTSIM_FIELD_INVALID', "missing required 'value'", at));
      else setOwn(picked, 'value', validateBound(own(picked, 'value'), ACTION_VALUE_BV, childPointer(at, 'value'), issues));
      return picked;
    }));
  }
  return out;
}

function validateTabItems(value: unknown, pointer: string, issues: Issue[]): unknown[] {
  return validateArray(value, pointer, issues, 'tabItems', (item, at) => {
    if (!requireObject(item, at, issues, 'tab item')) return {};
    const picked = pickKeys(item, ['title', 'child'], at, issues, true);
    requireField(picked, 'child', 'string', at, issues, true);
    if (own(picked, 'title') === undefined) issues.push(issue('CLIENTSIM_FIELD_INVALID', "missing required 'title'", at));
    else setOwn(picked, 'title', validateBound(own(picked, 'title'), TAB_TITLE_BV, childPointer(at, 'title'), issues));
    return picked;
  });
}

function validateOptions(value: unknown, pointer: string, issues: Issue[]): unknown[] {
  return validateArray(value, pointer, issues, 'options', (item, at) => {
    if (!requireObject(item, at, issues, 'option')) return {};
    const picked = pickKeys(item, ['label', 'value'], at, issues, false);
    requireField(picked, 'value', 'string', at, issues, true);
    if (own(picked, 'label') === undefined) issues.push(issue('CLIENTSIM_FIELD_INVALID', "missing required 'label'", at));
    else setOwn(picked, 'label', validateBound(own(picked, 'label'), OPTION_LABEL_BV, childPointer(at, 'label'), issues));
    return picked;
  });
}

function validateProp(spec: PropSpec, value: unknown, pointer: string, issues: Issue[]): unknown {
  const invalid = (what: string): unknown => {
    issues.push(issue('CLIENTSIM_FIELD_INVALID', `must be ${what}`, pointer));
    return value;
  };
  switch (spec.kind) {
    case 'bound': return validateBound(value, spec.bound, pointer, issues);
    case 'enum': return typeof value === 'string' && spec.values.includes(value) ? value : invalid(`one of ${spec.values.join(', ')}`);
    case 'string': case 'ref': return typeof value === 'string' ? value : invalid('a string');
    case 'number': return hasType(value, 'number') ? value : invalid('a number');
    case 'boolean': return typeof value === 'boolean' ? value : invalid('a boolean');
    case 'children': return validateChildren(value, pointer, issues);
    case 'action': return validateAction(value, pointer, issues);
    case 'tabItems': return validateTabItems(value, pointer, issues);
    case 'options': return validateOptions(value, pointer, issues);
  }
}

function validateProps(specs: Readonly<Record<string, PropSpec>>, props: JsonObject, pointer: string, issues: Issue[]): JsonObject {
  const known = Object.keys(specs);
  const out = pickKeys(props, known, pointer, issues, false);
  for (const key of known) {
    const spec = specs[key]!;
    const value = own(out, key);
    if (value === undefined) {
      if (spec.required === true) issues.push(issue('CLIENTSIM_FIELD_INVALID', `missing required '${key}'`, pointer));
      continue;
    }
    setOwn(out, key, validateProp(spec, value, childPointer(pointer, key), issues));
  }
  return out;
}

/** WC's zod output puts its known type keys first (shape order), then unknown ones in input order. */
function orderTypeKeys(keys: readonly string[]): string[] {
  const known = WC_TYPE_ORDER.filter((k) => keys.includes(k));
  return [...known, ...keys.filter((k) => !WC_TYPE_ORDER.includes(k))];
}

/** App component types and the zod schemas of their v0.8 properties (compiler/components/wire-v08.ts). */
export type AppComponentSchemas = ReadonlyMap<string, {
  safeParse(value: unknown): { success: boolean; error?: { issues: ReadonlyArray<{ message: string; path: ReadonlyArray<PropertyKey> }> } };
}>;

export function validateComponent(raw: unknown, pointer: string, issues: Issue[], custom?: AppComponentSchemas): ComponentInstance | undefined {
  if (!requireObject(raw, pointer, issues, 'component instance')) return undefined;
  const wrapper = pickKeys(raw, ['id', 'weight', 'component'], pointer, issues, true);
  requireField(wrapper, 'id', 'string', pointer, issues, true);
  requireField(wrapper, 'weight', 'number', pointer, issues, false);
  const id = own(wrapper, 'id');
  const body = own(wrapper, 'component');
  const bodyPointer = childPointer(pointer, 'component');
  if (body === undefined) issues.push(issue('CLIENTSIM_FIELD_INVALID', "missing required 'component'", pointer));
  if (typeof id !== 'string' || !isPlainObject(body)) {
    if (body !== undefined) requireObject(body, bodyPointer, issues, 'component');
    return undefined;
  }
  if (id.includes(':')) issues.push(issue('CLIENTSIM_ID_AMBIGUOUS', `component id '${id}' contains ':'`, childPointer(pointer, 'id')));
  const types = orderTypeKeys(Object.keys(body));
  if (types.length !== 1) {
    issues.push(issue('CLIENTSIM_COMPONENT_TYPE_COUNT', `component '${id}' has ${types.length} type keys${types.length > 0 ? `; '${types[0]}' is used` : ''}`, bodyPointer));
  }
  const component: JsonObject = {};
  for (const type of types) {
    const at = childPointer(bodyPointer, type);
    const props = own(body, type);
    const app = STANDARD_TYPES.has(type) ? undefined : custom?.get(type);
    if (app !== undefined) {
      // An app component of the app catalogue the client holds: its properties by its schema.
      const checked = app.safeParse(props);
      if (!checked.success) {
        const first = checked.error?.issues[0];
        issues.push(issue('CLIENTSIM_FIELD_INVALID', `${type}: ${first?.message ?? 'invalid'}`, (first?.path ?? []).reduce<string>((p, k) => childPointer(p, String(k)), at)));
      }
    } else if (!STANDARD_TYPES.has(type)) issues.push(issue('CLIENTSIM_UNKNOWN_COMPONENT_TYPE', `unknown component type '${type}'`, at));
    const specs = VALIDATED_TYPES.get(type);
    if (specs === undefined) setOwn(component, type, cloneJson(props));
    else if (requireObject(props, at, issues, `${type} properties`)) setOwn(component, type, validateProps(specs, props, at, issues));
  }
  const weight = own(wrapper, 'weight');
  return typeof weight === 'number' ? { id, weight, component } : { id, component };
}
