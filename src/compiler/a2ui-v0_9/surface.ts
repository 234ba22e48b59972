import { BASIC_CATALOG_ID } from '../../a2ui-v0_9-protocol/index.ts';
import type { SurfacerError } from '../../errors/index.ts';
import type { Surface } from '../../ui-ir/index.ts';
import type { ComponentCompileOptions } from '../components/check.ts';
import { encodeA2uiSurfaceId, type UpdatePlan } from '../a2ui-shared/index.ts';
import { buildComponents, ROOT_ID } from './components.ts';
import { diffDataMessages, initDataMessages } from './data-messages.ts';
import { projectSurfaceData } from './data.ts';
import type { A2uiV09Component, A2uiV09Message, A2uiV09Version, JsonObject } from './types.ts';

/**
 * One surface compiled to its parts (components + data model), and the message lists built
 * from them: a full init, or the smallest update from a previous compilation.
 */
export interface SurfaceParts {
  a2uiSurfaceId: string;
  /** The catalogue createSurface names: the app's when its components are emitted as themselves. */
  catalogId: string;
  components: A2uiV09Component[];
  model: JsonObject;
  warnings: SurfacerError[];
  dropped: SurfacerError[];
}

export function compileParts(surface: Surface, allowedActions: ReadonlySet<string> | undefined, components?: ComponentCompileOptions): SurfaceParts {
  const app = components?.catalog === 'app' ? components : undefined;
  const build = buildComponents(surface, allowedActions, app);
  const warnings = [...build.warnings];
  const model = projectSurfaceData(surface, warnings, app?.registry);
  return {
    a2uiSurfaceId: encodeA2uiSurfaceId(surface.id, surface.epoch),
    catalogId: app?.catalogId ?? BASIC_CATALOG_ID,
    components: build.components, model, warnings, dropped: build.dropped,
  };
}

/** createSurface (the parts' catalogue, the app's theme), every component, the whole data model. */
export function initMessages(version: A2uiV09Version, parts: SurfaceParts, theme?: JsonObject): A2uiV09Message[] {
  const surfaceId = parts.a2uiSurfaceId;
  return [
    { version, createSurface: { surfaceId, catalogId: parts.catalogId, ...(theme === undefined ? {} : { theme }) } },
    { version, updateComponents: { surfaceId, components: parts.components } },
    ...initDataMessages(version, surfaceId, parts.model),
  ];
}

/**
 * The smallest correct update from `prev` to `next` (same A2UI surface id): the components that
 * are new or changed (v0.9 updates components by id and resolves references against everything
 * the client holds, so unchanged ones need not travel; ones the view no longer uses stay on the
 * client unreferenced, which renders nothing), then the data changes, deletions included.
 * v0.9 never needs a rebuild.
 */
export function updateMessages(version: A2uiV09Version, prev: SurfaceParts, next: SurfaceParts): UpdatePlan<A2uiV09Message> {
  // The catalogue is fixed at createSurface: a client that now gets the other one starts over.
  if (prev.catalogId !== next.catalogId) return { kind: 'rebuild', reason: 'the client now gets another catalogue' };
  const surfaceId = next.a2uiSurfaceId;
  const before = new Map(prev.components.map((c) => [c.id, JSON.stringify(c)]));
  const changed = next.components.filter((c) => before.get(c.id) !== JSON.stringify(c));
  const messages: A2uiV09Message[] = [];
  if (changed.length > 0) messages.push({ version, updateComponents: { surfaceId, components: changed } });
  messages.push(...diffDataMessages(version, surfaceId, prev.model, next.model));
  return { kind: 'update', messages, fullComponents: changed.length === next.components.length };
}

export function deleteMessage(version: A2uiV09Version, a2uiSurfaceId: string): A2uiV09Message {
  return { version, deleteSurface: { surfaceId: a2uiSurfaceId } };
}

/** The plain-text stand-in for a surface that failed (surface_fail): it must itself validate. */
export function fallbackMessages(version: A2uiV09Version, surfaceIrId: string, a2uiSurfaceId: string): A2uiV09Message[] {
  const text = `${surfaceIrId}.fallback.Text`;
  return [
    deleteMessage(version, a2uiSurfaceId),
    { version, createSurface: { surfaceId: a2uiSurfaceId, catalogId: BASIC_CATALOG_ID } },
    {
      version,
      updateComponents: {
        surfaceId: a2uiSurfaceId,
        components: [
          { id: ROOT_ID, component: 'Card', child: text },
          { id: text, component: 'Text', text: 'This panel could not be shown.', variant: 'body' },
        ],
      },
    },
  ];
}
