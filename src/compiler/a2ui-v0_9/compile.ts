import { treeDepth, createA2uiCompiler, wireTheme, type A2uiTarget, type Violation } from '../a2ui-shared/index.ts';
import { ROOT_ID } from './components.ts';
import { countDataEntries } from './data-messages.ts';
import { compileParts, deleteMessage, fallbackMessages, initMessages, updateMessages, type SurfaceParts } from './surface.ts';
import type { A2uiV09CompileOptions, A2uiV09CompileResult, A2uiV09Message, A2uiV09Version, JsonObject } from './types.ts';
import { childRefsOf } from './validate-component.ts';
import { validateA2uiV09Messages } from './validate.ts';
import { validateWithAppCatalog } from '../components/app-catalog-spec.ts';
import { appCatalogSpecV09 } from '../components/wire-v09.ts';

/**
 * IR → A2UI v0.9 batches: the v0.9 messages, components and data plugged into the shared
 * pipeline (validation, guardrails, recovery per code, per-surface atomic batches).
 */
const versionOf = (options: A2uiV09CompileOptions): A2uiV09Version => options.version ?? 'v0.9';

/** createSurface.theme: the basic catalogue's theme has `primaryColor` (no font); none without one. */
function surfaceThemeOf(options: A2uiV09CompileOptions): JsonObject | undefined {
  const color = wireTheme(options.theme).theme?.primaryColor;
  return color === undefined ? undefined : { primaryColor: color };
}

/** Drops the components the validator found unreachable (soft_fail); true if any went. */
function dropOrphans(messages: A2uiV09Message[], violations: readonly Violation[]): boolean {
  let dropped = false;
  for (const v of violations) {
    const m = messages[v.messageIndex];
    if (v.code !== 'A2UI_S2C_UNREACHABLE_COMPONENT' || v.componentId === undefined || m === undefined || !('updateComponents' in m)) continue;
    const components = m.updateComponents.components.filter((c) => c.id !== v.componentId);
    if (components.length === m.updateComponents.components.length || components.length === 0) continue;
    messages[v.messageIndex] = { ...m, updateComponents: { ...m.updateComponents, components } };
    dropped = true;
  }
  return dropped;
}

const V09: A2uiTarget<A2uiV09Message, SurfaceParts, A2uiV09CompileOptions> = {
  parts: compileParts,
  init: (parts, options) => initMessages(versionOf(options), parts, surfaceThemeOf(options)),
  update: (prev, next, _viewChanged, options) => updateMessages(versionOf(options), prev, next),
  deleteSurface: (a2uiSurfaceId, options) => deleteMessage(versionOf(options), a2uiSurfaceId),
  fallback: (irSurfaceId, a2uiSurfaceId, options) => fallbackMessages(versionOf(options), irSurfaceId, a2uiSurfaceId),
  validate: validateWithAppCatalog(validateA2uiV09Messages, appCatalogSpecV09),
  dropOrphans,
  clobbers: (messages) => messages.filter((m) => 'updateDataModel' in m && [undefined, '', '/', '/draft'].includes(m.updateDataModel.path)).length,
  size: (parts) => ({
    components: parts.components.length,
    model: parts.model,
    depth: () => treeDepth(new Map(parts.components.map((c) => [c.id, childRefsOf(c.component, c).map((r) => r.id)])), ROOT_ID),
  }),
  types: (parts) => new Map(parts.components.map((c) => [c.id, c.component])),
  stats: (messages) => {
    let components = 0;
    for (const m of messages) if ('updateComponents' in m) components += m.updateComponents.components.length;
    return { components, dataEntries: countDataEntries(messages) };
  },
  optionWarnings: (options) => wireTheme(options.theme).warnings,
  rebuildOnTombstones: false,
  appComponents: true,
};

const compiler = createA2uiCompiler(V09);

/** Full init of one surface (a deleted surface yields its deleteSurface). */
export const compileSurfaceToA2uiV09: (...args: Parameters<typeof compiler.compileSurface>) => A2uiV09CompileResult = compiler.compileSurface;

/** Full init of every live surface, in IR order. */
export const compileConversationToA2uiV09: (...args: Parameters<typeof compiler.compileConversation>) => A2uiV09CompileResult = compiler.compileConversation;

/** What a client holding the v0.9 compilation of `prevIr` needs to reach `nextIr`. */
export const compileA2uiV09Update: (...args: Parameters<typeof compiler.compileUpdate>) => A2uiV09CompileResult = compiler.compileUpdate;
