import {
  A2uiMessageSchema, BASIC_COMPONENTS, BASIC_FUNCTIONS, Catalog, ComponentContext, GenericBinder, MessageProcessor, NodeResolver,
  peekValue,
} from '@a2ui/web_core/v0_9';

/**
 * The official v0.9 MessageProcessor (@a2ui/web_core 0.11) as a test oracle. Messages travel as
 * JSON text (the processor keeps the objects it is given and mutates them later); each must pass
 * the package's envelope schema, then `processMessage` with no throw and no `console.error` (the
 * processor reports validation failures through both).
 */
export const BASIC_CATALOG_ID = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

export interface Oracle {
  processor: MessageProcessor<any>;
  catalog: Catalog<any>;
  actions: unknown[];
}

export function newOracle(): Oracle {
  const catalog = new Catalog(BASIC_CATALOG_ID, BASIC_COMPONENTS, BASIC_FUNCTIONS);
  const actions: unknown[] = [];
  const processor = new MessageProcessor([catalog], (action) => { actions.push(action); });
  return { processor, catalog, actions };
}

export type Outcome = { ok: true } | { ok: false; why: string };

/** Runs `fn` with console.error captured; any call counts as a failure. */
export function capturingErrors<T>(fn: () => T): { value?: T; errors: string[]; thrown?: unknown } {
  const errors: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => { errors.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')); };
  try {
    return { value: fn(), errors };
  } catch (thrown) {
    return { errors, thrown };
  } finally {
    console.error = original;
  }
}

/** One message through the envelope schema and the processor. */
export function offer(oracle: Oracle, message: unknown): Outcome {
  const wire: unknown = JSON.parse(JSON.stringify(message));
  const schema = A2uiMessageSchema.safeParse(wire);
  if (!schema.success) return { ok: false, why: `A2uiMessageSchema: ${schema.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  const run = capturingErrors(() => oracle.processor.processMessages([wire as never]));
  if (run.thrown !== undefined) return { ok: false, why: `threw ${(run.thrown as Error).name}: ${(run.thrown as Error).message}` };
  if (run.errors.length > 0) return { ok: false, why: `console.error: ${run.errors.join(' | ')}` };
  return { ok: true };
}

/** Feeds messages one by one; throws with the failing one. */
export function feed(oracle: Oracle, messages: readonly unknown[], label = ''): void {
  messages.forEach((m, i) => {
    const outcome = offer(oracle, m);
    if (!outcome.ok) throw new Error(`${label} message ${i} refused: ${outcome.why}\n${JSON.stringify(m).slice(0, 2000)}`);
  });
}

/** `value` with every object's keys sorted (key order is not what a person sees). */
export function canon(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canon);
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, canon(o[k])]));
  }
  return value;
}

/** The tree the official renderer builds from the root, with bindings resolved (NodeResolver). */
export function renderedTree(oracle: Oracle, surfaceId: string): unknown {
  const surface = oracle.processor.model.getSurface(surfaceId);
  if (!surface) return undefined;
  const resolver = new NodeResolver(surface, oracle.catalog);
  try {
    const root = peekValue(resolver.rootNode);
    return root === undefined ? undefined : JSON.parse(JSON.stringify(root));
  } finally {
    resolver.dispose();
  }
}

/** What a user sees and edits, per surface: the rendered tree and the data model (key order ignored). */
export function visibleState(oracle: Oracle): string {
  const out: Record<string, unknown> = {};
  for (const [id, surface] of oracle.processor.model.surfacesMap) {
    out[id] = { tree: renderedTree(oracle, id), data: surface.dataModel.get('/') };
  }
  return JSON.stringify(canon(out));
}

/**
 * What the official renderer does when a user clicks Button `componentId`: the Button's bound
 * props (GenericBinder, as every official v0.9 renderer builds them) and its action closure,
 * which resolves the context against the data model and dispatches through the surface. Returns
 * the action the processor's handler received, or what the click threw.
 */
export function officialClick(oracle: Oracle, surfaceId: string, componentId: string, dataPath = '/'):
  { ok: true; action: unknown } | { ok: false; thrown: unknown; errors: string[] } {
  const surface = oracle.processor.model.getSurface(surfaceId);
  if (!surface) throw new Error(`no surface ${surfaceId}`);
  const api = oracle.catalog.components.get(surface.componentsModel.get(componentId)!.type)!;
  const binder = new GenericBinder(new ComponentContext(surface, componentId, dataPath), api.schema);
  const before = oracle.actions.length;
  const run = capturingErrors(() => (binder.snapshot as { action: () => void }).action());
  if (run.thrown !== undefined || oracle.actions.length === before) return { ok: false, thrown: run.thrown, errors: run.errors };
  return { ok: true, action: oracle.actions[oracle.actions.length - 1] };
}

/** What the official renderer writes when a user edits input `componentId`: its bound `value` setter. */
export function officialInput(oracle: Oracle, surfaceId: string, componentId: string, value: unknown, dataPath = '/'): void {
  const surface = oracle.processor.model.getSurface(surfaceId);
  if (!surface) throw new Error(`no surface ${surfaceId}`);
  const api = oracle.catalog.components.get(surface.componentsModel.get(componentId)!.type)!;
  const binder = new GenericBinder(new ComponentContext(surface, componentId, dataPath), api.schema);
  (binder.snapshot as { setValue: (v: unknown) => void }).setValue(value);
}

/**
 * What the official renderers show of component `componentId`'s checks: the GenericBinder's
 * `isValid` and `validationErrors` (Lit and React read these; a Button is disabled when
 * `isValid` is false), with any error the evaluation reported.
 */
export function officialValidity(oracle: Oracle, surfaceId: string, componentId: string, dataPath = '/'):
  { isValid: boolean | undefined; validationErrors: string[]; errors: string[] } {
  const surface = oracle.processor.model.getSurface(surfaceId);
  if (!surface) throw new Error(`no surface ${surfaceId}`);
  const api = oracle.catalog.components.get(surface.componentsModel.get(componentId)!.type)!;
  // What the renderer would report to the server (an expression that failed): errors too.
  const reported: string[] = [];
  const listener = surface.onError.subscribe((e: { code?: string; message?: string }) => { reported.push(`${e.code}: ${e.message}`); });
  const run = capturingErrors(() => {
    const binder = new GenericBinder(new ComponentContext(surface, componentId, dataPath), api.schema);
    const snapshot = binder.snapshot as { isValid?: boolean; validationErrors?: string[] };
    const out = { isValid: snapshot.isValid, validationErrors: [...(snapshot.validationErrors ?? [])] };
    binder.dispose?.();
    return out;
  });
  listener.unsubscribe();
  if (run.thrown !== undefined) throw run.thrown;
  return { ...run.value!, errors: [...run.errors, ...reported] };
}
