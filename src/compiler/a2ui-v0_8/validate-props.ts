import type { ErrorCode } from '../../errors/index.ts';
import { isRecord, type LiteralKey, type PropSpec, type TypeInfo } from './catalogue.ts';
import { at, type PathNode } from '../a2ui-shared/index.ts';

/** `Object.prototype.hasOwnProperty`: in a for-in over the same object V8 folds `.call` away (Object.hasOwn it does not). */
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Structural checks of one component's properties against the catalogue table, plus the
 * exactly-one rules WC enforces and the JSON schema only describes (a2ui-v0.8.md §1.2).
 * Reports through `issue`; hands every non-reference string to `onString` (for the
 * id-equals-value check) and every template to `onTemplate`.
 */
export type Issue = (code: ErrorCode, detail: string, path: PathNode | undefined) => void;

export interface PropSink {
  issue: Issue;
  /** Locations are not passed: they are looked up again only if a string turns out to equal an id. */
  onString: (value: string, path: PathNode) => void;
  onTemplate: (componentId: unknown, dataBinding: unknown, path: PathNode) => void;
  allowedActions: ReadonlySet<string> | undefined;
  /** Build locations (for reports and onString); off on the fast path. */
  locate: boolean;
}

/**
 * A data path as we accept it: `.`, `/`, `/a/b`, or relative `a/b`; segments non-empty,
 * without `.`, `~`, `[`, `]` (WC reads those as separators, §4.4 F4). A loop, not a regex:
 * it runs for every binding of every component.
 */
export function isWellFormedPath(path: string): boolean {
  const n = path.length;
  if (n === 0) return false;
  if (path === '.' || path === '/') return true;
  let segment = 0;
  for (let i = path.charCodeAt(0) === 47 ? 1 : 0; i < n; i += 1) {
    const c = path.charCodeAt(i);
    if (c === 47) { // '/'
      if (segment === 0) return false;
      segment = 0;
    } else if (c === 46 || c === 126 || c === 91 || c === 93) return false; // . ~ [ ]
    else segment += 1;
  }
  return segment > 0;
}

export function isHttpUrl(url: string): boolean {
  return /^https?:\/\/\S+$/i.test(url);
}

function literalOk(key: LiteralKey, v: unknown): boolean {
  switch (key) {
    case 'literalString': return typeof v === 'string';
    case 'literalNumber': return typeof v === 'number' && Number.isFinite(v);
    case 'literalBoolean': return typeof v === 'boolean';
    case 'literalArray': return Array.isArray(v) && v.every((x) => typeof x === 'string');
  }
}

function collectStrings(value: unknown, path: PathNode, sink: PropSink): void {
  if (typeof value === 'string') sink.onString(value, path);
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i += 1) collectStrings(value[i], loc(sink, path, i), sink);
  else if (isRecord(value)) for (const k in value) if (hasOwn.call(value, k)) collectStrings(value[k], loc(sink, path, k), sink);
}

/**
 * The location of a child. On the fast path (`locate` false) nothing is allocated: every
 * location is one shared placeholder, and a finding makes the caller re-check the component
 * with locations on.
 */
const NOWHERE: PathNode = { parent: undefined, key: '' };
function loc(sink: PropSink, path: PathNode, key: string | number): PathNode {
  return sink.locate ? at(path, key) : NOWHERE;
}

const CONTEXT_LITERALS: readonly LiteralKey[] = ['literalString', 'literalNumber', 'literalBoolean'];
const ONE_LITERAL: Readonly<Record<LiteralKey, readonly LiteralKey[]>> = {
  literalString: ['literalString'], literalNumber: ['literalNumber'], literalBoolean: ['literalBoolean'], literalArray: ['literalArray'],
};

/** A BoundValue: exactly one of `path` / one of `literals`, nothing else. */
function checkBound(
  value: unknown, literals: readonly LiteralKey[], path: PathNode, sink: PropSink,
  spec?: { literalEnum?: readonly string[] | undefined; url?: boolean | undefined },
): void {
  if (!isRecord(value)) return sink.issue('A2UI_S2C_BOUND_VALUE_INVALID', 'a bound value must be an object', path);
  let key: string | undefined;
  let count = 0;
  for (const k in value) {
    if (!hasOwn.call(value, k)) continue;
    if (k !== 'path' && !(literals as readonly string[]).includes(k)) {
      return sink.issue('A2UI_S2C_BOUND_VALUE_INVALID', `bound value has "${k}"; allowed: path, ${literals.join(', ')}`, path);
    }
    count += 1;
    key = k;
  }
  if (count !== 1 || key === undefined) {
    return sink.issue('A2UI_S2C_BOUND_VALUE_INVALID', `bound value needs exactly one of path/${literals.join('/')}, found ${count}${count ? ` (${Object.keys(value).join(', ')})` : ''}`, path);
  }
  const v = value[key];
  if (key === 'path') {
    if (typeof v !== 'string') sink.issue('A2UI_S2C_BOUND_VALUE_INVALID', 'path must be a string', loc(sink, path, key));
    else {
      if (!isWellFormedPath(v)) sink.issue('A2UI_S2C_PATH_INVALID', `malformed path ${JSON.stringify(v)}`, loc(sink, path, key));
      sink.onString(v, loc(sink, path, key));
    }
    return;
  }
  if (!literalOk(key as LiteralKey, v)) return sink.issue('A2UI_S2C_BOUND_VALUE_INVALID', `${key} has the wrong type`, loc(sink, path, key));
  if (typeof v === 'string') {
    sink.onString(v, loc(sink, path, key));
    if (spec?.literalEnum && !spec.literalEnum.includes(v)) {
      sink.issue('A2UI_S2C_SCHEMA_INVALID', `${JSON.stringify(v)} is not one of the allowed names`, loc(sink, path, key));
    }
    if (spec?.url && !isHttpUrl(v)) {
      sink.issue('A2UI_S2C_URL_NOT_ALLOWED', `only http(s) URLs are allowed, got ${JSON.stringify(v.slice(0, 80))}`, loc(sink, path, key));
    }
  } else if (Array.isArray(v)) collectStrings(v, loc(sink, path, key), sink);
}

function checkKeys(value: Record<string, unknown>, allowed: readonly string[], required: readonly string[], path: PathNode, sink: PropSink): boolean {
  let ok = true;
  for (const k in value) {
    if (hasOwn.call(value, k) && !allowed.includes(k)) { sink.issue('A2UI_S2C_SCHEMA_INVALID', `unknown property "${k}"`, loc(sink, path, k)); ok = false; }
  }
  for (const k of required) {
    if (!hasOwn.call(value, k)) { sink.issue('A2UI_S2C_SCHEMA_INVALID', `missing required property "${k}"`, path); ok = false; }
  }
  return ok;
}

function checkChildren(value: unknown, path: PathNode, sink: PropSink): void {
  if (!isRecord(value)) return sink.issue('A2UI_S2C_SCHEMA_INVALID', 'children must be an object', path);
  checkKeys(value, ['explicitList', 'template'], [], path, sink);
  const hasList = hasOwn.call(value, 'explicitList');
  const hasTemplate = hasOwn.call(value, 'template');
  if (hasList === hasTemplate) sink.issue('A2UI_S2C_SCHEMA_INVALID', 'children needs exactly one of explicitList/template', path);
  if (hasList && !(Array.isArray(value.explicitList) && value.explicitList.every((x) => typeof x === 'string'))) {
    sink.issue('A2UI_S2C_SCHEMA_INVALID', 'explicitList must be an array of ids', loc(sink, path, 'explicitList'));
  }
  if (!hasTemplate) return;
  const t = value.template;
  const tp = loc(sink, path, 'template');
  if (!isRecord(t)) return sink.issue('A2UI_S2C_SCHEMA_INVALID', 'template must be an object', tp);
  if (!checkKeys(t, ['componentId', 'dataBinding'], ['componentId', 'dataBinding'], tp, sink)) return;
  if (typeof t.componentId !== 'string') sink.issue('A2UI_S2C_SCHEMA_INVALID', 'componentId must be a string', loc(sink, tp, 'componentId'));
  if (typeof t.dataBinding !== 'string') sink.issue('A2UI_S2C_SCHEMA_INVALID', 'dataBinding must be a string', loc(sink, tp, 'dataBinding'));
  else {
    if (!isWellFormedPath(t.dataBinding)) sink.issue('A2UI_S2C_PATH_INVALID', `malformed dataBinding ${JSON.stringify(t.dataBinding)}`, loc(sink, tp, 'dataBinding'));
    sink.onString(t.dataBinding, loc(sink, tp, 'dataBinding'));
  }
  sink.onTemplate(t.componentId, t.dataBinding, tp);
}

function checkAction(value: unknown, path: PathNode, sink: PropSink): void {
  if (!isRecord(value)) return sink.issue('A2UI_S2C_SCHEMA_INVALID', 'action must be an object', path);
  if (!checkKeys(value, ['name', 'context'], ['name'], path, sink)) return;
  if (typeof value.name !== 'string' || value.name === '') sink.issue('A2UI_S2C_SCHEMA_INVALID', 'action name must be a non-empty string', loc(sink, path, 'name'));
  else {
    sink.onString(value.name, loc(sink, path, 'name'));
    if (sink.allowedActions && !sink.allowedActions.has(value.name)) {
      sink.issue('A2UI_S2C_ACTION_NOT_ALLOWED', `action "${value.name}" is not allowlisted`, loc(sink, path, 'name'));
    }
  }
  if (!hasOwn.call(value, 'context')) return;
  const context = value.context;
  const cp = loc(sink, path, 'context');
  if (!Array.isArray(context)) return sink.issue('A2UI_S2C_SCHEMA_INVALID', 'context must be an array', cp);
  for (let i = 0; i < context.length; i += 1) {
    const entry: unknown = context[i];
    const ep = loc(sink, cp, i);
    if (!isRecord(entry)) { sink.issue('A2UI_S2C_SCHEMA_INVALID', 'context entry must be an object', ep); continue; }
    if (!checkKeys(entry, ['key', 'value'], ['key', 'value'], ep, sink)) continue;
    if (typeof entry.key !== 'string' || entry.key === '') sink.issue('A2UI_S2C_SCHEMA_INVALID', 'context key must be a non-empty string', loc(sink, ep, 'key'));
    else sink.onString(entry.key, loc(sink, ep, 'key'));
    checkBound(entry.value, CONTEXT_LITERALS, loc(sink, ep, 'value'), sink);
  }
}

function checkList(value: unknown, path: PathNode, sink: PropSink, what: string, keys: readonly string[],
  each: (item: Record<string, unknown>, p: PathNode) => void): void {
  if (!Array.isArray(value)) return sink.issue('A2UI_S2C_SCHEMA_INVALID', `${what} must be an array`, path);
  for (let i = 0; i < value.length; i += 1) {
    const item: unknown = value[i];
    const p = loc(sink, path, i);
    if (!isRecord(item)) sink.issue('A2UI_S2C_SCHEMA_INVALID', `each of ${what} must be an object`, p);
    else if (checkKeys(item, keys, keys, p, sink)) each(item, p);
  }
}

function checkProp(name: string, spec: PropSpec, value: unknown, path: PathNode, sink: PropSink): void {
  switch (spec.kind) {
    case 'bound': return checkBound(value, ONE_LITERAL[spec.literal], path, sink, spec);
    case 'ref':
      if (typeof value !== 'string') sink.issue('A2UI_S2C_SCHEMA_INVALID', `${name} must be a component id`, path);
      return;
    case 'children': return checkChildren(value, path, sink);
    case 'enum':
      if (typeof value !== 'string' || !spec.values.includes(value)) sink.issue('A2UI_S2C_SCHEMA_INVALID', `${name} must be one of ${spec.values.join(', ')}`, path);
      else sink.onString(value, path);
      return;
    case 'string':
      if (typeof value !== 'string') sink.issue('A2UI_S2C_SCHEMA_INVALID', `${name} must be a string`, path);
      else sink.onString(value, path);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') sink.issue('A2UI_S2C_SCHEMA_INVALID', `${name} must be a boolean`, path);
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) sink.issue('A2UI_S2C_SCHEMA_INVALID', `${name} must be a number`, path);
      return;
    case 'integer':
      if (!Number.isInteger(value)) sink.issue('A2UI_S2C_SCHEMA_INVALID', `${name} must be an integer`, path);
      return;
    case 'action': return checkAction(value, path, sink);
    case 'tabItems':
      return checkList(value, path, sink, 'tabItems', ['title', 'child'], (item, p) => {
        checkBound(item.title, ONE_LITERAL.literalString, loc(sink, p, 'title'), sink);
        if (typeof item.child !== 'string') sink.issue('A2UI_S2C_SCHEMA_INVALID', 'tab child must be a component id', loc(sink, p, 'child'));
      });
    case 'options':
      return checkList(value, path, sink, 'options', ['label', 'value'], (item, p) => {
        checkBound(item.label, ONE_LITERAL.literalString, loc(sink, p, 'label'), sink);
        if (typeof item.value !== 'string') sink.issue('A2UI_S2C_SCHEMA_INVALID', 'option value must be a string', loc(sink, p, 'value'));
        else sink.onString(item.value, loc(sink, p, 'value'));
      });
  }
}

export function checkComponentProps(info: TypeInfo, props: unknown, path: PathNode, sink: PropSink): void {
  const type = info.type;
  if (!isRecord(props)) return sink.issue('A2UI_S2C_SCHEMA_INVALID', `${type} properties must be an object`, path);
  const spec = info.spec;
  const specs = info.props;
  for (const name in props) {
    if (!hasOwn.call(props, name)) continue;
    const propSpec = specs[name];
    if (propSpec === undefined) {
      sink.issue('A2UI_S2C_SCHEMA_INVALID', `${type} has no property "${name}"`, loc(sink, path, name));
      continue;
    }
    checkProp(name, propSpec, props[name], loc(sink, path, name), sink);
  }
  for (const name of spec.required) {
    if (!hasOwn.call(props, name)) sink.issue('A2UI_S2C_SCHEMA_INVALID', `${type} is missing required property "${name}"`, path);
  }
}
