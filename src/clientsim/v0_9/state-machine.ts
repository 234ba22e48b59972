import {
  BASIC_CATALOG_IDS, BASIC_COMPONENT_SCHEMAS, isBasicComponentType, ServerMessage, setData,
} from '../../a2ui-v0_9-protocol/index.ts';
import { childPointer, isPlainObject, own } from '../json-util.ts';
import { CLIENTSIM_V09_CODES, type ClientSimV09Code } from './codes.ts';
import { buildTreeV09 } from './tree.ts';
import type { AppCatalogSimV09, ComponentV09, SimStateV09, SurfaceStateV09, ViolationV09 } from './types.ts';

/*
 * The ClientSim v0.9 state machine, modelled on @a2ui/web_core 0.11's v0.9 MessageProcessor
 * (src/v0_9/processing/message-processor.js) behind the package's own envelope schema:
 *
 *   surface \ message   createSurface        updateComponents   updateDataModel   deleteSurface
 *   absent              → live               error              error             absent (no-op)
 *   live                error (exists)       live               live              → absent
 *
 * updateComponents validates every component before it changes anything (as the processor
 * does); an updateDataModel whose write the data model refuses changes nothing. A message with
 * an error is not applied at all, so a surface is never half-updated.
 */
type Issue = { code: ClientSimV09Code; detail: string; pointer?: string };

export interface StepResultV09 {
  readonly state: SimStateV09;
  readonly violations: ViolationV09[];
}

export interface StateOptionsV09 {
  /** Catalogues the client has (default: the basic catalogue). */
  readonly catalogIds?: readonly string[];
  /** The app catalogue the client also has: surfaces created with it may hold its components. */
  readonly appCatalog?: AppCatalogSimV09;
}

export function initialStateV09(): SimStateV09 {
  return { surfaces: new Map(), messageCount: 0 };
}

function toViolation(found: Issue, messageIndex: number, surfaceId: string | undefined): ViolationV09 {
  return {
    code: found.code, severity: CLIENTSIM_V09_CODES[found.code].severity, messageIndex,
    ...(surfaceId === undefined ? {} : { surfaceId }), ...(found.pointer === undefined ? {} : { pointer: found.pointer }), detail: found.detail,
  };
}

function hasError(issues: readonly Issue[]): boolean {
  return issues.some((i) => CLIENTSIM_V09_CODES[i.code].severity === 'error');
}

/** Deep copy, so later changes to the caller's message objects never reach the state. */
function cloneJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value)) as unknown;
}

function updateComponents(surface: SurfaceStateV09, list: readonly Record<string, unknown>[], issues: Issue[], app?: AppCatalogSimV09): SurfaceStateV09 {
  // App components are known only on a surface created with the app catalogue.
  const custom = app !== undefined && surface.catalogId === app.catalogId ? app.components : undefined;
  // Validation pass (nothing changes unless every component passes).
  list.forEach((item, j) => {
    const at = `/updateComponents/components/${j}`;
    const id = own(item, 'id');
    if (typeof id !== 'string' || id === '') {
      issues.push({ code: 'CLIENTSIM_ID_MISSING', detail: `component ${j} has no id`, pointer: childPointer(at, 'id') });
      return;
    }
    // Validated against the type the message gives, else the one held before the message.
    const type = (own(item, 'component') as string | undefined) || surface.components.get(id)?.type;
    if (type === undefined) return;
    if (!isBasicComponentType(type)) {
      const schema = custom?.get(type);
      if (schema === undefined) {
        issues.push({ code: 'CLIENTSIM_UNKNOWN_COMPONENT_TYPE', detail: `'${id}' has type '${type}'`, pointer: childPointer(at, 'component') });
        return;
      }
      const checked = schema.safeParse({ ...item, id, component: type });
      if (!checked.success) {
        const first = checked.error?.issues[0];
        issues.push({
          code: 'CLIENTSIM_COMPONENT_INVALID', detail: `'${id}' (${type}, app catalogue): ${first?.message ?? 'invalid'}`,
          pointer: (first?.path ?? []).reduce<string>((p, k) => childPointer(p, String(k)), at),
        });
      }
      return;
    }
    const result = BASIC_COMPONENT_SCHEMAS[type].safeParse(propertiesOf(item));
    if (!result.success) {
      const first = result.error.issues[0];
      issues.push({
        code: 'CLIENTSIM_COMPONENT_INVALID', detail: `'${id}' (${type}): ${first?.message ?? 'invalid'}`,
        pointer: (first?.path ?? []).reduce<string>((p, k) => childPointer(p, String(k)), at),
      });
    }
  });
  if (hasError(issues)) return surface;
  // Mutation pass: in order, so a repeated id ends as its last definition.
  const components = new Map(surface.components);
  const seen = new Set<string>();
  list.forEach((item, j) => {
    const id = own(item, 'id') as string;
    if (seen.has(id)) issues.push({ code: 'CLIENTSIM_DUPLICATE_ID', detail: `'${id}' twice in one updateComponents`, pointer: `/updateComponents/components/${j}/id` });
    seen.add(id);
    const existing = components.get(id);
    const type = (own(item, 'component') as string) || existing?.type;
    if (type === undefined) {
      // Divergence (deliberate): the processor throws here, after applying the components
      // before this one; ClientSim applies none of the message.
      issues.push({ code: 'CLIENTSIM_COMPONENT_INVALID', detail: `new component '${id}' has no type`, pointer: `/updateComponents/components/${j}/component` });
      return;
    }
    const properties = cloneJson(propertiesOf(item)) as Record<string, unknown>;
    if (existing !== undefined && type !== existing.type) {
      issues.push({ code: 'CLIENTSIM_TYPE_CHANGED', detail: `'${id}' was a ${existing.type}, now a ${type}`, pointer: `/updateComponents/components/${j}/component` });
      // The processor removes and re-adds a component whose type changed: it moves to the end.
      components.delete(id);
    }
    const next: ComponentV09 = !isBasicComponentType(type) && custom?.has(type) === true ? { id, type, properties, app: true } : { id, type, properties };
    components.set(id, next);
  });
  return hasError(issues) ? surface : { ...surface, components };
}

function propertiesOf(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (k !== 'id' && k !== 'component') out[k] = v;
  return out;
}

function updateDataModel(surface: SurfaceStateV09, body: Record<string, unknown>, issues: Issue[]): SurfaceStateV09 {
  const path = (own(body, 'path') as string | undefined) || '/';
  const result = setData(surface.dataModel, path, cloneJson(own(body, 'value')));
  if (!result.ok) {
    issues.push({ code: 'CLIENTSIM_DATA_WRITE_REFUSED', detail: `cannot set '${path}': ${result.reason}`, pointer: '/updateDataModel/path' });
    return surface;
  }
  return { ...surface, dataModel: result.data };
}

/** Pure transition: validates `raw` and returns the next state plus everything it found. */
export function applyMessageV09(state: SimStateV09, raw: unknown, options: StateOptionsV09 = {}): StepResultV09 {
  const index = state.messageCount;
  const rejected = (issue: Issue, surfaceId?: string): StepResultV09 => ({
    state: { ...state, messageCount: index + 1 }, violations: [toViolation(issue, index, surfaceId)],
  });
  if (!isPlainObject(raw)) return rejected({ code: 'CLIENTSIM_NOT_AN_OBJECT', detail: 'a message must be a JSON object' });
  const envelope = ServerMessage.safeParse(raw);
  if (!envelope.success) {
    const first = envelope.error.issues[0];
    return rejected({
      code: 'CLIENTSIM_ENVELOPE_INVALID', detail: first?.message ?? 'invalid',
      pointer: (first?.path ?? []).reduce<string>((p, k) => childPointer(p, String(k)), ''),
    });
  }
  const kind = (['createSurface', 'updateComponents', 'updateDataModel', 'deleteSurface'] as const).find((k) => Object.hasOwn(raw, k))!;
  const body = raw[kind] as Record<string, unknown>;
  const surfaceId = body.surfaceId as string;
  const current = state.surfaces.get(surfaceId);
  const surfaces = new Map(state.surfaces);
  const done = (issues: Issue[]): StepResultV09 => ({
    state: { surfaces, messageCount: index + 1 }, violations: issues.map((i) => toViolation(i, index, surfaceId)),
  });
  if (kind === 'deleteSurface') {
    surfaces.delete(surfaceId);
    return done([]);
  }
  if (kind === 'createSurface') {
    const catalogId = body.catalogId as string;
    if (!(options.catalogIds ?? BASIC_CATALOG_IDS).includes(catalogId) && catalogId !== options.appCatalog?.catalogId) {
      return rejected({ code: 'CLIENTSIM_CATALOG_UNKNOWN', detail: `catalog '${catalogId}'`, pointer: '/createSurface/catalogId' }, surfaceId);
    }
    if (current !== undefined) return rejected({ code: 'CLIENTSIM_SURFACE_EXISTS', detail: `surface '${surfaceId}' exists` }, surfaceId);
    surfaces.set(surfaceId, {
      catalogId, theme: cloneJson(body.theme) ?? {}, sendDataModel: body.sendDataModel === true,
      components: new Map(), dataModel: {}, touchedAt: index,
    });
    return done([]);
  }
  if (current === undefined) return rejected({ code: 'CLIENTSIM_SURFACE_NOT_FOUND', detail: `no surface '${surfaceId}'` }, surfaceId);
  const issues: Issue[] = [];
  const next = kind === 'updateComponents'
    ? updateComponents(current, body.components as Record<string, unknown>[], issues, options.appCatalog)
    : updateDataModel(current, body, issues);
  if (hasError(issues)) return { state: { ...state, messageCount: index + 1 }, violations: issues.map((i) => toViolation(i, index, surfaceId)) };
  surfaces.set(surfaceId, { ...next, touchedAt: index });
  return done(issues);
}

/** End-of-stream findings: surfaces that render nothing, placeholders that stay. */
export function endOfStreamV09(state: SimStateV09): ViolationV09[] {
  const out: ViolationV09[] = [];
  for (const [surfaceId, surface] of state.surfaces) {
    const at = (code: ClientSimV09Code, detail: string): void => { out.push(toViolation({ code, detail }, surface.touchedAt, surfaceId)); };
    if (!surface.components.has('root')) {
      at('CLIENTSIM_ROOT_MISSING', `surface '${surfaceId}' has no component 'root'`);
      continue;
    }
    for (const node of buildTreeV09(surface).nodes) {
      if (node.state === 'pending') at('CLIENTSIM_DANGLING_REFERENCE', `'${node.id}' is referred to but never defined`);
      if (node.state === 'cyclic') at('CLIENTSIM_CYCLE', `'${node.id}' at ${node.dataPath} is inside itself`);
    }
  }
  return out;
}
