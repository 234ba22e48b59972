import { z } from 'zod';
import * as protocol from '../../a2ui-v0_9-protocol/index.ts';
import {
  BASIC_COMPONENT_SCHEMAS, BASIC_FUNCTION_NAMES, compileSchemaPredicate, FunctionCall, type BasicComponentType, type SchemaPredicate,
} from '../../a2ui-v0_9-protocol/index.ts';
import type { ErrorCode } from '../../errors/index.ts';
import { TABLE_COMPONENT } from '../components/table-component.ts';

/**
 * One v0.9 component against the basic catalogue (the package's zod rules), then our contract
 * on top: well-formed binding paths, known functions, http(s) media, allowlisted actions, and
 * no action the official renderer would fail to send. Returns the ids it refers to.
 */
// Read once: under tsx every use of an imported binding is a getter call, and these run per component.
const { CHILD_REFS, FORBIDDEN_SEGMENTS, isDynamicValue } = protocol;

export type Finding = { code: ErrorCode; detail: string; path: readonly (string | number)[] };

/** A reference: the id, and where it sits (`prop`, then `index` in a list, then `key` in a Tabs entry). */
export interface ChildRefFound {
  id: string;
  template: boolean;
  prop: string;
  index: number;
  key?: string;
}

/** Where a reference sits in its component, built only when it is reported. */
export function refPath(ref: ChildRefFound): (string | number)[] {
  if (ref.template) return [ref.prop, 'componentId'];
  if (ref.index < 0) return [ref.prop];
  return ref.key === undefined ? [ref.prop, ref.index] : [ref.prop, ref.index, ref.key];
}

/**
 * Whole components (id and type beside the properties), strict like the catalogue's property
 * sets. A Button's context values are checked with `isDynamicValue` (same verdict as the
 * DynamicValue union, at a fraction of the cost: a form's buttons hold one per field).
 */
const LIGHT_ACTION = z.union([
  z.object({ event: z.object({ name: z.string(), context: z.record(z.string(), z.unknown()).optional() }) }),
  z.object({ functionCall: FunctionCall }),
]);
export const COMPONENT_SCHEMAS = Object.fromEntries(
  (Object.keys(BASIC_COMPONENT_SCHEMAS) as BasicComponentType[]).map((type) => {
    const base = type === 'Button' ? BASIC_COMPONENT_SCHEMAS.Button.extend({ action: LIGHT_ACTION.optional() }) : BASIC_COMPONENT_SCHEMAS[type];
    return [type, base.extend({ id: z.string(), component: z.literal(type) })];
  }),
) as unknown as Record<BasicComponentType, z.ZodType>;

/**
 * The same schemas as predicates compiled once: `true` means zod accepts, so the parse (and its
 * allocations) is needed only for a component the predicate does not pass, which is then judged
 * and described by zod itself.
 */
export const ACCEPTS: Partial<Record<BasicComponentType, SchemaPredicate>> = Object.fromEntries(
  Object.entries(COMPONENT_SCHEMAS).map(([type, schema]) => [type, compileSchemaPredicate(schema)]),
);

/** Whether zod accepts `item` as a `type` (the compiled predicate first, zod when it says no or is missing). */
export function componentSchemaIssues(type: BasicComponentType, item: unknown): z.core.$ZodIssue[] {
  if (ACCEPTS[type]?.(item) === true) return [];
  const parsed = COMPONENT_SCHEMAS[type].safeParse(item);
  return parsed.success ? [] : parsed.error.issues;
}

const FUNCTIONS: ReadonlySet<string> = new Set(BASIC_FUNCTION_NAMES);
const MEDIA = new Set(['Image', 'Video', 'AudioPlayer']);

/** What checkComponent needs of a type, found with one lookup (it runs for every component). */
interface TypeInfo {
  type: BasicComponentType;
  accepts: SchemaPredicate | undefined;
  media: boolean;
}
const TYPES: ReadonlyMap<string, TypeInfo> = new Map(
  (Object.keys(COMPONENT_SCHEMAS) as BasicComponentType[]).map((type) => [type, { type, accepts: ACCEPTS[type], media: MEDIA.has(type) }]),
);
/** Keys the official renderer takes for a binding when it resolves an action (generic-binder.js). */
const BINDING_KEYS = ['path', 'call'];

/**
 * A data path as we accept it in a binding: absolute (`/a/b`) or relative to a template item
 * (`a/b`, `.`); segments non-empty, RFC 6901 escapes only, no prototype names (the client
 * refuses to read through them).
 */
export function isWellFormedPath(path: string, relative: boolean): boolean {
  const n = path.length;
  if (path === '/' || (relative && path === '.')) return true;
  if (n === 0) return false;
  // A loop, not split + regexes: it runs for every binding of every component.
  let i = path.charCodeAt(0) === 47 ? 1 : 0;
  if (i === 0 && !relative) return false;
  let start = i;
  for (; i <= n; i += 1) {
    const c = i < n ? path.charCodeAt(i) : 47;
    if (c === 47) { // '/'
      if (i === start) return false;
      // Escapes cannot spell a prototype name (they only make '/' and '~'): the raw segment decides.
      if ((i - start === 9 || i - start === 11) && FORBIDDEN_SEGMENTS.has(path.slice(start, i))) return false;
      start = i + 1;
    } else if (c === 126) { // '~' must be ~0 or ~1
      const d = path.charCodeAt(i + 1);
      if (d !== 48 && d !== 49) return false;
    }
  }
  return true;
}

export function isHttpUrl(url: string): boolean {
  return /^https?:\/\/\S+$/i.test(url);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}


/**
 * A Button's action context and its findings, relative to the context, kept by the validator
 * from one Button to the next: a form's buttons share one context object with an entry per
 * field, so it is checked once per stream, not once per button. Valid while nobody writes to
 * the messages being validated (nobody does: they are values).
 */
export interface SharedContext {
  context: Record<string, unknown> | undefined;
  /** The walk's findings (bindings and function calls inside the context). */
  walk: Finding[];
  /** Entries that are not dynamic values. */
  values: Finding[];
  /** Keys the official renderer reads as a binding. */
  reserved: Finding[];
}

export function newSharedContext(): SharedContext {
  return { context: undefined, walk: [], values: [], reserved: [] };
}

function prefixed(into: Finding[], prefix: readonly (string | number)[], relative: readonly Finding[]): void {
  for (const f of relative) into.push({ code: f.code, detail: f.detail, path: [...prefix, ...f.path] });
}

function shareContext(shared: SharedContext, context: Record<string, unknown>): void {
  if (shared.context === context) return;
  shared.context = undefined;
  const walked: Finding[] = [];
  walk(context, [], walked, shared);
  const values: Finding[] = [];
  for (const key in context) {
    if (Object.prototype.hasOwnProperty.call(context, key) && !isDynamicValue(context[key])) {
      values.push({ code: 'A2UI_S2C_SCHEMA_INVALID', detail: `Button: context "${key}" is not a dynamic value`, path: [key] });
    }
  }
  const reserved: Finding[] = [];
  reservedKeys(context, [], reserved);
  shared.context = context;
  shared.walk = walked;
  shared.values = values;
  shared.reserved = reserved;
}

function reservedKeys(object: Record<string, unknown>, where: readonly (string | number)[], findings: Finding[]): void {
  for (const key of BINDING_KEYS) {
    if (Object.hasOwn(object, key)) {
      findings.push({
        code: 'A2UI_S2C_ACTION_KEY_RESERVED',
        detail: `an action with a "${key}" key: the official renderer takes the whole object for a binding and the click fails`,
        path: [...where, key],
      });
    }
  }
}

/**
 * Every binding path and function call inside `value` (Icon names are icons, not data). `path`
 * is the location, pushed and popped on the way (copied only for a finding). The shared
 * context's findings are taken as already found.
 */
function walk(value: unknown, path: (string | number)[], findings: Finding[], shared: SharedContext): void {
  if (value === shared.context) { prefixed(findings, path, shared.walk); return; }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      if (typeof value[i] !== 'object' || value[i] === null) continue;
      path.push(i);
      walk(value[i], path, findings, shared);
      path.pop();
    }
    return;
  }
  if (!isRecord(value)) return;
  if (typeof value.path === 'string' && !isWellFormedPath(value.path, true)) {
    findings.push({ code: 'A2UI_S2C_PATH_INVALID', detail: `malformed path ${JSON.stringify(value.path)}`, path: [...path, 'path'] });
  }
  if (typeof value.call === 'string' && isRecord(value.args) && !FUNCTIONS.has(value.call)) {
    findings.push({ code: 'A2UI_S2C_SCHEMA_INVALID', detail: `no function "${value.call}" in the basic catalogue`, path: [...path, 'call'] });
  }
  for (const k in value) {
    if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
    const child = value[k];
    if (typeof child !== 'object' || child === null) continue;
    path.push(k);
    walk(child, path, findings, shared);
    path.pop();
  }
}

/** The Button's event, if any, and its record context (shared, see SharedContext). */
function buttonEvent(action: unknown): Record<string, unknown> | undefined {
  return isRecord(action) && isRecord(action.event) ? action.event : undefined;
}

const EVENT_AT: readonly string[] = ['action', 'event'];
const CONTEXT_AT: readonly string[] = ['action', 'event', 'context'];

function checkAction(event: Record<string, unknown>, allowedActions: ReadonlySet<string> | undefined, findings: Finding[], shared: SharedContext): void {
  if (allowedActions !== undefined && typeof event.name === 'string' && !allowedActions.has(event.name)) {
    findings.push({ code: 'A2UI_S2C_ACTION_NOT_ALLOWED', detail: `action "${event.name}" is not allowlisted`, path: [...EVENT_AT, 'name'] });
  }
  const hasContext = isRecord(event.context);
  if (hasContext) prefixed(findings, CONTEXT_AT, shared.values);
  reservedKeys(event, EVENT_AT, findings);
  if (hasContext) prefixed(findings, CONTEXT_AT, shared.reserved);
}

const NO_REFS = Object.freeze([]) as unknown as ChildRefFound[];
const NO_ISSUES: readonly z.core.$ZodIssue[] = Object.freeze([]);

/** The ids `item` refers to, by the catalogue's reference properties. */
export function childRefsOf(type: string, item: Record<string, unknown>): ChildRefFound[] {
  // App components have no entry: they refer to no other component.
  const specs: readonly protocol.ChildRef[] = Object.hasOwn(CHILD_REFS, type) ? CHILD_REFS[type as BasicComponentType] : [];
  // Most components (text, inputs) refer to nothing: one shared empty list, never written to.
  if (specs.length === 0) return NO_REFS;
  const refs: ChildRefFound[] = [];
  for (let s = 0; s < specs.length; s += 1) {
    const spec = specs[s]!;
    const value = item[spec.prop];
    if (spec.kind === 'single') {
      if (typeof value === 'string') refs.push({ id: value, template: false, prop: spec.prop, index: -1 });
    } else if (spec.kind === 'list') {
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i += 1) if (typeof value[i] === 'string') refs.push({ id: value[i] as string, template: false, prop: spec.prop, index: i });
      } else if (isRecord(value) && typeof value.componentId === 'string') refs.push({ id: value.componentId, template: true, prop: spec.prop, index: -1 });
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        const entry: unknown = value[i];
        if (isRecord(entry) && typeof entry[spec.key] === 'string') refs.push({ id: entry[spec.key] as string, template: false, prop: spec.prop, index: i, key: spec.key });
      }
    }
  }
  return refs;
}

/**
 * `item` has a string `id` and a string `component` (checked by the caller). Its findings go to
 * `findings` (the caller's, reused from component to component: nothing is allocated for a
 * clean one); returns the ids it refers to, or the one finding that stops the check (a type
 * outside the catalogue).
 */
export function checkComponent(
  item: Record<string, unknown>, type: string, allowedActions: ReadonlySet<string> | undefined, findings: Finding[],
  shared: SharedContext = newSharedContext(), custom?: ReadonlyMap<string, z.ZodType>,
): ChildRefFound[] | Finding {
  const info = TYPES.get(type);
  if (info === undefined) {
    const schema = custom?.get(type);
    if (schema !== undefined) return checkCustomComponent(item, type, schema, allowedActions, findings);
    return {
      code: 'A2UI_S2C_COMPONENT_NOT_ALLOWED',
      detail: `component "${String(item.id)}" has type "${type}", not in the ${custom === undefined ? 'basic' : 'surface\'s'} catalogue`, path: ['component'],
    };
  }
  const issues = info.accepts?.(item) === true ? NO_ISSUES : componentSchemaIssues(info.type, item);
  if (issues.length > 0) {
    for (const issue of issues) {
      findings.push({ code: 'A2UI_S2C_SCHEMA_INVALID', detail: `${type}: ${issue.message}`, path: issue.path as (string | number)[] });
    }
    return NO_REFS;
  }
  const event = type === 'Button' ? buttonEvent(item.action) : undefined;
  if (event !== undefined && isRecord(event.context)) shareContext(shared, event.context);
  // One location array for the whole component, pushed and popped (copied only for a finding).
  const at: (string | number)[] = [];
  for (const k in item) {
    if (!Object.prototype.hasOwnProperty.call(item, k) || k === 'id' || k === 'component' || (type === 'Icon' && k === 'name')) continue;
    const value = item[k];
    if (typeof value !== 'object' || value === null) continue;
    at.push(k);
    walk(value, at, findings, shared);
    at.pop();
  }
  if (info.media && typeof item.url === 'string' && !isHttpUrl(item.url)) {
    findings.push({ code: 'A2UI_S2C_URL_NOT_ALLOWED', detail: `only http(s) URLs are allowed, got ${JSON.stringify(item.url.slice(0, 80))}`, path: ['url'] });
  }
  if (event !== undefined) checkAction(event, allowedActions, findings, shared);
  const refs = childRefsOf(info.type, item);
  for (let i = 0; i < refs.length; i += 1) {
    const ref = refs[i]!;
    if (ref.id !== item.id) continue;
    findings.push({ code: 'A2UI_S2C_SELF_REFERENCE', detail: `component "${ref.id}" refers to itself`, path: refPath(ref) });
    refs.splice(i, 1);
    i -= 1;
  }
  return refs;
}

/**
 * An app component (its type is in the surface's app catalogue): the whole component against
 * the schema built from its definition (compiler/components/wire-v09.ts: unknown or ill-typed
 * properties are findings), well-formed bindings, and its item buttons' actions like a
 * Button's (allowlisted, no reserved key). It refers to no other component.
 */
function checkCustomComponent(
  item: Record<string, unknown>, type: string, schema: z.ZodType, allowedActions: ReadonlySet<string> | undefined, findings: Finding[],
): ChildRefFound[] {
  const parsed = schema.safeParse(item);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) findings.push({ code: 'A2UI_S2C_SCHEMA_INVALID', detail: `${type}: ${issue.message}`, path: issue.path as (string | number)[] });
    return NO_REFS;
  }
  const shared = newSharedContext();
  const at: (string | number)[] = [];
  for (const k in item) {
    if (!Object.prototype.hasOwnProperty.call(item, k) || k === 'id' || k === 'component') continue;
    const value = item[k];
    if (typeof value !== 'object' || value === null) continue;
    at.push(k);
    walk(value, at, findings, shared);
    at.pop();
  }
  for (const [where, action] of customActions(item, type)) {
    const event = buttonEvent(action);
    if (event === undefined) continue;
    const own: Finding[] = [];
    if (isRecord(event.context)) shareContext(shared, event.context);
    checkAction(event, allowedActions, own, shared);
    // checkAction's paths start at a Button's `action`; here the action sits at `where`.
    for (const f of own) findings.push({ code: f.code, detail: f.detail, path: [...where, ...f.path.slice(1)] });
  }
  return NO_REFS;
}

/**
 * Where a custom component carries actions, each with its path: an app component's item buttons,
 * and Surfacer's Table's sort headings, pager and row buttons (table-component.ts). Each is
 * checked as a Button's (allowlisted, no reserved key).
 */
function customActions(item: Record<string, unknown>, type: string): Array<[(string | number)[], unknown]> {
  const out: Array<[(string | number)[], unknown]> = [];
  const each = (list: unknown, key: string, actionKey: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((entry: unknown, i) => { if (isRecord(entry) && entry[actionKey] !== undefined) out.push([[key, i, actionKey], entry[actionKey]]); });
  };
  each(item.itemActions, 'itemActions', 'action');
  if (type === TABLE_COMPONENT) {
    each(item.columns, 'columns', 'sortAction');
    each(item.rowActions, 'rowActions', 'action');
    for (const key of ['previousAction', 'nextAction']) if (item[key] !== undefined) out.push([[key], item[key]]);
  }
  return out;
}
