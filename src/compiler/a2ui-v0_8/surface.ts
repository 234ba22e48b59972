import type { SurfacerError } from '../../errors/index.ts';
import type { Surface } from '../../ui-ir/index.ts';
import { encodeA2uiSurfaceId, type UpdatePlan as SharedUpdatePlan } from '../a2ui-shared/index.ts';
import { childIds } from './catalogue.ts';
import type { ComponentCompileOptions } from '../components/check.ts';
import { buildComponents } from './components.ts';
import { diffDataMessages, initDataMessages } from './data-messages.ts';
import { projectSurfaceData, type A2Map } from './data.ts';
import type { A2uiComponent, A2uiMessage, A2uiStyles } from './types.ts';

/**
 * One surface compiled to its parts (components + projected data), and the message lists
 * built from them: a full init, or the smallest update from a previous compilation.
 */
export interface SurfaceParts {
  a2uiSurfaceId: string;
  /** The app catalogue's id when its components are emitted as themselves (beginRendering names it). */
  catalogId?: string | undefined;
  components: A2uiComponent[];
  rootId: string;
  model: A2Map;
  warnings: SurfacerError[];
  /** soft_fail drops already applied (e.g. a button whose action is not allowlisted). */
  dropped: SurfacerError[];
}

export interface PartsOptions {
  allowedActions?: ReadonlySet<string> | undefined;
  /** The app's components, when the client holds the app catalogue. */
  components?: ComponentCompileOptions | undefined;
}

export function compileParts(surface: Surface, options: PartsOptions): SurfaceParts {
  const app = options.components?.catalog === 'app' ? options.components : undefined;
  const build = buildComponents(surface, { allowedActions: options.allowedActions, components: app });
  const warnings = [...build.warnings];
  const model = projectSurfaceData(surface, warnings, app?.registry);
  return {
    a2uiSurfaceId: encodeA2uiSurfaceId(surface.id, surface.epoch), catalogId: app?.catalogId,
    components: build.components, rootId: build.rootId, model, warnings, dropped: build.dropped,
  };
}

export function initMessages(parts: SurfaceParts, styles: A2uiStyles | undefined): A2uiMessage[] {
  const surfaceId = parts.a2uiSurfaceId;
  const begin: { surfaceId: string; root: string; catalogId?: string; styles?: A2uiStyles } = { surfaceId, root: parts.rootId };
  // The standard catalogue is the default: named only when it is the app's.
  if (parts.catalogId !== undefined) begin.catalogId = parts.catalogId;
  if (styles !== undefined) begin.styles = styles;
  return [
    { surfaceUpdate: { surfaceId, components: parts.components } },
    ...initDataMessages(surfaceId, parts.model),
    { beginRendering: begin },
  ];
}

export type UpdatePlan = SharedUpdatePlan<A2uiMessage>;

/**
 * The smallest correct update from `prev` to `next` (same A2UI surface id):
 * - components: nothing when no component changed; the whole closed set when the view's
 *   structure changed (the set of ids, or any parent's children); otherwise only the changed
 *   components plus everything reachable from them, so the message stays closed;
 * - data: `diffDataMessages` (narrow paths, /draft never replaced), or a rebuild when a key
 *   would have to disappear.
 */
export function updateMessages(prev: SurfaceParts, next: SurfaceParts, viewChanged: boolean): UpdatePlan {
  // The catalogue is fixed at beginRendering: a client that now gets the other one starts over.
  if (prev.catalogId !== next.catalogId) return { kind: 'rebuild', reason: 'the client now gets another catalogue' };
  const surfaceId = next.a2uiSurfaceId;
  const data = diffDataMessages(surfaceId, prev.model, next.model);
  if (!data.ok) return { kind: 'rebuild', reason: data.reason };
  const before = new Map(prev.components.map((c) => [c.id, JSON.stringify(c)]));
  const changed = next.components.filter((c) => before.get(c.id) !== JSON.stringify(c));
  const messages: A2uiMessage[] = [];
  let fullComponents = false;
  if (changed.length > 0) {
    const sameIds = before.size === next.components.length && next.components.every((c) => before.has(c.id));
    fullComponents = viewChanged || !sameIds;
    const components = fullComponents ? next.components : closure(next.components, changed);
    messages.push({ surfaceUpdate: { surfaceId, components } });
  }
  messages.push(...data.messages);
  return { kind: 'update', messages, fullComponents };
}

/** `changed` and every component reachable from them, in the order of `all`. */
function closure(all: readonly A2uiComponent[], changed: readonly A2uiComponent[]): A2uiComponent[] {
  const byId = new Map(all.map((c) => [c.id, c]));
  const keep = new Set<string>();
  const stack = changed.map((c) => c.id);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (keep.has(id)) continue;
    keep.add(id);
    const c = byId.get(id);
    const [type, props] = c ? Object.entries(c.component)[0] ?? [] : [];
    if (type === undefined || props === undefined) continue;
    stack.push(...childIds(type, props));
  }
  return all.filter((c) => keep.has(c.id));
}

export function deleteMessage(a2uiSurfaceId: string): A2uiMessage {
  return { deleteSurface: { surfaceId: a2uiSurfaceId } };
}

/** The plain-text stand-in for a surface that failed (surface_fail): it must itself validate. */
export function fallbackMessages(surfaceIrId: string, a2uiSurfaceId: string): A2uiMessage[] {
  const root = `${surfaceIrId}.fallback.Column`;
  const text = `${surfaceIrId}.fallback.Text`;
  return [
    deleteMessage(a2uiSurfaceId),
    {
      surfaceUpdate: {
        surfaceId: a2uiSurfaceId,
        components: [
          { id: root, component: { Column: { children: { explicitList: [text] } } } },
          { id: text, component: { Text: { text: { literalString: 'This panel could not be shown.' }, usageHint: 'body' } } },
        ],
      },
    },
    { beginRendering: { surfaceId: a2uiSurfaceId, root } },
  ];
}
