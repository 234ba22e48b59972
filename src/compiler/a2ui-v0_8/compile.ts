import type { SurfacerError } from '../../errors/index.ts';
import { createA2uiCompiler, treeDepth, wireTheme, type A2uiTarget, type Violation } from '../a2ui-shared/index.ts';
import { childIds } from './catalogue.ts';
import { countDataEntries } from './data-messages.ts';
import {
  compileParts, deleteMessage, fallbackMessages, initMessages, updateMessages, type SurfaceParts,
} from './surface.ts';
import type { A2uiCompileOptions, A2uiCompileResult, A2uiMessage, A2uiStyles } from './types.ts';
import { validateA2uiMessages } from './validate.ts';
import { validateWithAppCatalog } from '../components/app-catalog-spec.ts';
import { appCatalogSpecV08 } from '../components/wire-v08.ts';

/**
 * IR → A2UI v0.8 batches: the v0.8 messages, components and data encoding plugged into the
 * shared pipeline (a2ui-shared/pipeline.ts: validation, guardrails, recovery, atomic batches).
 */

/**
 * beginRendering styles: `styles` as given, else the app's theme; only `font` and `primaryColor`
 * (`#RRGGBB`), anything else is a warning.
 */
function resolveStyles(options: A2uiCompileOptions): { styles: A2uiStyles | undefined; warnings: SurfacerError[] } {
  const { theme, warnings } = wireTheme(options.styles ?? options.theme);
  return { styles: theme, warnings };
}

/** Removes soft_fail findings the validator can point at (orphan components); true if anything changed. */
function dropOrphans(messages: A2uiMessage[], violations: readonly Violation[]): boolean {
  const orphans = new Map<number, Set<string>>();
  for (const v of violations) {
    const id = v.code === 'A2UI_S2C_UNREACHABLE_COMPONENT' ? v.componentId : undefined;
    if (id === undefined) continue;
    const set = orphans.get(v.messageIndex) ?? new Set<string>();
    set.add(id);
    orphans.set(v.messageIndex, set);
  }
  for (const [index, ids] of orphans) {
    const m = messages[index];
    if (m && 'surfaceUpdate' in m) {
      messages[index] = { surfaceUpdate: { ...m.surfaceUpdate, components: m.surfaceUpdate.components.filter((c) => !ids.has(c.id)) } };
    }
  }
  return orphans.size > 0;
}

const V08: A2uiTarget<A2uiMessage, SurfaceParts, A2uiCompileOptions> = {
  parts: (surface, allowedActions, components) => compileParts(surface, { allowedActions, components }),
  init: (parts, options) => initMessages(parts, resolveStyles(options).styles),
  update: updateMessages,
  deleteSurface: deleteMessage,
  fallback: fallbackMessages,
  validate: validateWithAppCatalog(validateA2uiMessages, appCatalogSpecV08),
  dropOrphans,
  clobbers: (messages) => messages.filter((m) => 'dataModelUpdate' in m
    && (m.dataModelUpdate.path === undefined || m.dataModelUpdate.path === '/' || m.dataModelUpdate.path === '/draft')).length,
  size: (parts) => ({
    components: parts.components.length,
    model: parts.model,
    depth: () => {
      const children = new Map<string, readonly string[]>();
      for (const c of parts.components) {
        const [type, props] = Object.entries(c.component)[0] ?? [];
        if (type !== undefined && props !== undefined) children.set(c.id, childIds(type, props));
      }
      return treeDepth(children, parts.rootId);
    },
  }),
  types: (parts) => new Map(parts.components.map((c) => [c.id, Object.keys(c.component)[0]!])),
  stats: (messages) => {
    let components = 0;
    for (const m of messages) if ('surfaceUpdate' in m) components += m.surfaceUpdate.components.length;
    return { components, dataEntries: countDataEntries(messages) };
  },
  optionWarnings: (options) => resolveStyles(options).warnings,
  rebuildOnTombstones: true,
  appComponents: true,
};

const compiler = createA2uiCompiler(V08);

/** Full init of one surface (a deleted surface yields its deleteSurface). */
export function compileSurfaceToA2ui(surface: Parameters<typeof compiler.compileSurface>[0], options: A2uiCompileOptions = {}): A2uiCompileResult {
  return compiler.compileSurface(surface, options);
}

/** Full init of every live surface, in IR order (deleted surfaces have nothing to show). */
export function compileConversationToA2ui(ir: Parameters<typeof compiler.compileConversation>[0], options: A2uiCompileOptions = {}): A2uiCompileResult {
  return compiler.compileConversation(ir, options);
}

/**
 * What a client holding the compilation of `prevIr` needs to reach `nextIr`. Unchanged
 * surfaces produce no batch. `prevIr` undefined = a fresh client (same as a full init).
 */
export function compileA2uiUpdate(
  prevIr: Parameters<typeof compiler.compileUpdate>[0], nextIr: Parameters<typeof compiler.compileUpdate>[1], options: A2uiCompileOptions = {},
): A2uiCompileResult {
  return compiler.compileUpdate(prevIr, nextIr, options);
}
