import type { AppComponentSchemas } from './validate-component.ts';
import { hasError, issue, toViolation } from './codes.ts';
import { STANDARD_CATALOG_IDS } from './component-specs.ts';
import { EMPTY_DATA, setDataByPath } from './data-model.ts';
import { checkShadowing } from './shadow.ts';
import { buildTree } from './tree.ts';
import type { Issue, ServerMessage, SimState, SurfaceState, Violation } from './types.ts';
import { validateMessage } from './validate-message.ts';

/*
 * The ClientSim state machine. Per surface:
 *
 *   phase \ message   surfaceUpdate      dataModelUpdate    beginRendering      deleteSurface
 *   absent            → buffering        → buffering        → rendering         absent (no-op)
 *   buffering         buffering          buffering          → rendering         → absent
 *   rendering         rendering          rendering          rendering (new root, styles reset)
 *                                                                                → absent
 *
 * Every message is first validated as a whole; a message with an error-severity violation is
 * not applied at all (the state, including surface existence, is unchanged). WC behaves the same
 * for everything its zod schema rejects. Divergences (deliberate) where WC throws only *after*
 * mutating: a rendered tree with a cycle (WC applies the message, then throws on it and on every
 * later message of that surface while still applying them) and a data update WC crashes on
 * (non-string key inside a JSON-string adjacency list; WC has already created the surface) —
 * ClientSim keeps the last good state instead, so one bad message cannot poison a surface.
 */

export function initialState(): SimState {
  return { surfaces: new Map(), messageCount: 0 };
}

function emptySurface(index: number): SurfaceState {
  return { components: new Map(), dataModel: EMPTY_DATA, root: null, styles: {}, catalogId: null, rendering: false, beganAt: null, touchedAt: index };
}

function nextSurface(current: SurfaceState | undefined, message: Exclude<ServerMessage, { kind: 'deleteSurface' }>, index: number, issues: Issue[],
  appCatalogId?: string): SurfaceState {
  const surface = { ...(current ?? emptySurface(index)), touchedAt: index };
  switch (message.kind) {
    case 'beginRendering': {
      if (message.catalogId !== undefined && !STANDARD_CATALOG_IDS.has(message.catalogId) && message.catalogId !== appCatalogId) {
        issues.push(issue('CLIENTSIM_CATALOG_UNKNOWN', `catalogId '${message.catalogId}'`, '/beginRendering/catalogId'));
      }
      // SPEC §3.1 wants the root's components before beginRendering; WC tolerates a late root
      // (ADK samples rely on it), so this is only an early warning. End of stream reports
      // CLIENTSIM_ROOT_MISSING if it never arrives.
      if (!surface.components.has(message.root)) {
        issues.push(issue('CLIENTSIM_ROOT_MISSING', `root '${message.root}' is not defined yet`, '/beginRendering/root'));
      }
      // WC: styles reset to {} when omitted (§8.21). WC drops catalogId; ClientSim keeps the
      // latest one for inspection, outside the state hash.
      return { ...surface, root: message.root, styles: message.styles ?? {}, catalogId: message.catalogId ?? null, rendering: true, beganAt: index };
    }
    case 'surfaceUpdate': {
      const components = new Map(surface.components);
      for (const c of message.components) components.set(c.id, c);
      issues.push(...checkShadowing(surface.components, components, message.components, '/surfaceUpdate/components'));
      return { ...surface, components };
    }
    case 'dataModelUpdate': {
      const notes: Issue[] = [];
      const dataModel = setDataByPath(surface.dataModel, message.path ?? '/', message.contents, notes);
      issues.push(...notes.map((n) => issue(n.code, n.detail, '/dataModelUpdate')));
      return { ...surface, dataModel };
    }
  }
}

export interface StepResult {
  readonly state: SimState;
  readonly violations: Violation[];
}

/** The app catalogue a v0.8 client holds: its id and its components' v0.8 property schemas. */
export interface AppCatalogSim {
  readonly catalogId: string;
  readonly components: AppComponentSchemas;
}

/**
 * Pure transition: validates `raw` and returns the next state plus everything it violated.
 * `appCatalog`: the client also holds the app catalogue (its components validated by schema).
 */
export function applyMessage(state: SimState, raw: unknown, appCatalog?: AppCatalogSim): StepResult {
  const index = state.messageCount;
  const validated = validateMessage(raw, appCatalog?.components);
  const issues = [...validated.issues];
  const report = (): Violation[] => issues.map((i) => toViolation(i, index, validated.surfaceId));
  const rejected: StepResult = { state: { ...state, messageCount: index + 1 }, violations: [] };
  const message = validated.message;
  if (message === undefined || hasError(issues)) return { ...rejected, violations: report() };

  const surfaces = new Map(state.surfaces);
  if (message.kind === 'deleteSurface') {
    surfaces.delete(message.surfaceId); // unknown id: no-op, like WC and the spec.
    return { state: { surfaces, messageCount: index + 1 }, violations: report() };
  }
  const surface = nextSurface(state.surfaces.get(message.surfaceId), message, index, issues, appCatalog?.catalogId);
  if (hasError(issues)) return { ...rejected, violations: report() };
  // WC rebuilds the tree after every message once a root is set; a cycle there is fatal.
  if (surface.rendering && surface.root !== null && surface.root !== '') {
    const tree = buildTree(surface);
    if (!tree.ok) {
      issues.push(issue('CLIENTSIM_CYCLE', `rendering reaches component '${tree.cycleAt}' inside itself`));
      return { ...rejected, violations: report() };
    }
  }
  surfaces.set(message.surfaceId, surface);
  return { state: { surfaces, messageCount: index + 1 }, violations: report() };
}

/** End-of-stream checks: surfaces never begun, roots never defined. */
export function endOfStream(state: SimState): Violation[] {
  const out: Violation[] = [];
  for (const [surfaceId, s] of state.surfaces) {
    if (!s.rendering) {
      out.push(toViolation(issue('CLIENTSIM_STUCK_BUFFERING', `surface '${surfaceId}' got updates but no beginRendering`), s.touchedAt, surfaceId));
    } else if (s.root === null || !s.components.has(s.root)) {
      out.push(toViolation(issue('CLIENTSIM_ROOT_MISSING', `root '${s.root ?? ''}' was never defined; nothing renders`), s.beganAt ?? s.touchedAt, surfaceId));
    }
  }
  return out;
}

export function stuckBuffering(state: SimState): string[] {
  return [...state.surfaces].filter(([, s]) => !s.rendering).map(([id]) => id);
}
