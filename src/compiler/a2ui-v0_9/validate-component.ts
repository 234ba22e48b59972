import { z } from 'zod';
import {
  BASIC_COMPONENT_SCHEMAS, BASIC_FUNCTION_NAMES, CHILD_REFS, FORBIDDEN_SEGMENTS, isBasicComponentType, type BasicComponentType,
} from '../../a2ui-v0_9-protocol/index.ts';
import type { ErrorCode } from '../../errors/index.ts';

/**
 * One v0.9 component against the basic catalogue (the package's zod rules), then our contract
 * on top: well-formed binding paths, known functions, http(s) media, allowlisted actions, and
 * no action the official renderer would fail to send. Returns the ids it refers to.
 */
export type Finding = { code: ErrorCode; detail: string; path: readonly (string | number)[] };

export interface ChildRefFound {
  id: string;
  template: boolean;
  path: readonly (string | number)[];
}

/** Whole components (id and type beside the properties), strict like the catalogue's property sets. */
const COMPONENT_SCHEMAS = Object.fromEntries(
  (Object.keys(BASIC_COMPONENT_SCHEMAS) as BasicComponentType[]).map((type) => [
    type, BASIC_COMPONENT_SCHEMAS[type].extend({ id: z.string(), component: z.literal(type) }),
  ]),
) as unknown as Record<BasicComponentType, z.ZodType>;

const FUNCTIONS: ReadonlySet<string> = new Set(BASIC_FUNCTION_NAMES);
const MEDIA = new Set(['Image', 'Video', 'AudioPlayer']);
/** Keys the official renderer takes for a binding when it resolves an action (generic-binder.js). */
const BINDING_KEYS = ['path', 'call'];

/**
 * A data path as we accept it in a binding: absolute (`/a/b`) or relative to a template item
 * (`a/b`, `.`); segments non-empty, RFC 6901 escapes only, no prototype names (the client
 * refuses to read through them).
 */
export function isWellFormedPath(path: string, relative: boolean): boolean {
  if (path === '/' || (relative && path === '.')) return true;
  if (path === '' || (!relative && !path.startsWith('/'))) return false;
  const body = path.startsWith('/') ? path.slice(1) : path;
  for (const raw of body.split('/')) {
    if (raw === '' || /~(?![01])/.test(raw)) return false;
    if (FORBIDDEN_SEGMENTS.has(raw.replace(/~1/g, '/').replace(/~0/g, '~'))) return false;
  }
  return true;
}

export function isHttpUrl(url: string): boolean {
  return /^https?:\/\/\S+$/i.test(url);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface ComponentCheck {
  type: BasicComponentType;
  findings: Finding[];
  refs: ChildRefFound[];
}

/** Every binding path and function call inside `value` (Icon names are icons, not data). */
function walk(value: unknown, path: (string | number)[], findings: Finding[]): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) walk(value[i], [...path, i], findings);
    return;
  }
  if (!isRecord(value)) return;
  if (typeof value.path === 'string' && !isWellFormedPath(value.path, true)) {
    findings.push({ code: 'A2UI_S2C_PATH_INVALID', detail: `malformed path ${JSON.stringify(value.path)}`, path: [...path, 'path'] });
  }
  if (typeof value.call === 'string' && isRecord(value.args) && !FUNCTIONS.has(value.call)) {
    findings.push({ code: 'A2UI_S2C_SCHEMA_INVALID', detail: `no function "${value.call}" in the basic catalogue`, path: [...path, 'call'] });
  }
  for (const k of Object.keys(value)) if (typeof value[k] === 'object') walk(value[k], [...path, k], findings);
}

function checkAction(action: unknown, allowedActions: ReadonlySet<string> | undefined, findings: Finding[]): void {
  if (!isRecord(action) || !isRecord(action.event)) return;
  const event = action.event;
  const at = ['action', 'event'];
  if (allowedActions !== undefined && typeof event.name === 'string' && !allowedActions.has(event.name)) {
    findings.push({ code: 'A2UI_S2C_ACTION_NOT_ALLOWED', detail: `action "${event.name}" is not allowlisted`, path: [...at, 'name'] });
  }
  const context = isRecord(event.context) ? event.context : {};
  for (const [where, object] of [[at, event], [[...at, 'context'], context]] as const) {
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
}

/** The ids `item` refers to, by the catalogue's reference properties. */
export function childRefsOf(type: BasicComponentType, item: Record<string, unknown>): ChildRefFound[] {
  const refs: ChildRefFound[] = [];
  const add = (ref: unknown, template: boolean, path: (string | number)[]): void => {
    if (typeof ref === 'string') refs.push({ id: ref, template, path });
  };
  for (const spec of CHILD_REFS[type]) {
    const value = item[spec.prop];
    if (spec.kind === 'single') add(value, false, [spec.prop]);
    else if (spec.kind === 'list') {
      if (Array.isArray(value)) value.forEach((ref, i) => add(ref, false, [spec.prop, i]));
      else if (isRecord(value)) add(value.componentId, true, [spec.prop, 'componentId']);
    } else if (Array.isArray(value)) value.forEach((entry, i) => { if (isRecord(entry)) add(entry[spec.key], false, [spec.prop, i, spec.key]); });
  }
  return refs;
}

/** `item` has a string `id` and a string `component` (checked by the caller). */
export function checkComponent(item: Record<string, unknown>, type: string, allowedActions: ReadonlySet<string> | undefined): ComponentCheck | Finding {
  if (!isBasicComponentType(type)) {
    return { code: 'A2UI_S2C_COMPONENT_NOT_ALLOWED', detail: `component "${String(item.id)}" has type "${type}", not in the basic catalogue`, path: ['component'] };
  }
  const findings: Finding[] = [];
  const parsed = COMPONENT_SCHEMAS[type].safeParse(item);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      findings.push({ code: 'A2UI_S2C_SCHEMA_INVALID', detail: `${type}: ${issue.message}`, path: issue.path as (string | number)[] });
    }
    return { type, findings, refs: [] };
  }
  for (const k of Object.keys(item)) {
    if (k === 'id' || k === 'component') continue;
    if (type === 'Icon' && k === 'name') continue;
    walk(item[k], [k], findings);
  }
  if (MEDIA.has(type) && typeof item.url === 'string' && !isHttpUrl(item.url)) {
    findings.push({ code: 'A2UI_S2C_URL_NOT_ALLOWED', detail: `only http(s) URLs are allowed, got ${JSON.stringify(item.url.slice(0, 80))}`, path: ['url'] });
  }
  if (type === 'Button') checkAction(item.action, allowedActions, findings);
  const refs: ChildRefFound[] = [];
  for (const ref of childRefsOf(type, item)) {
    if (ref.id === item.id) findings.push({ code: 'A2UI_S2C_SELF_REFERENCE', detail: `component "${ref.id}" refers to itself`, path: ref.path });
    else refs.push(ref);
  }
  return { type, findings, refs };
}
