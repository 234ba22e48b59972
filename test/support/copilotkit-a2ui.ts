import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { BASIC_CATALOG_SPEC_ID, CHILD_REFS } from '../../src/a2ui-v0_9-protocol/index.ts';
import { canon, capturingErrors } from './a2ui-v0_9-oracle.ts';

/*
 * CopilotKit's A2UI renderer (@copilotkit/react-core 1.74 `createA2UIMessageRenderer`, with
 * @copilotkit/a2ui-renderer 1.74), headless: what it does with an AG-UI thread's a2ui-surface
 * activities, minus React.
 * - Each activity message is rendered on its own; its operations are grouped by surface id, and
 *   each group gets an A2UIProvider holding one MessageProcessor of the web_core that renderer
 *   pins (0.10.x, not the 0.11 the rest of the tests use), with the basic catalogue under the id
 *   it registers, `…/v0_9/basic_catalog.json`.
 * - Whenever the activity's content changes (a snapshot replaces it, a delta appends to it), each
 *   group whose list changed is fed the WHOLE list again, createSurface left out once the surface
 *   exists (`SurfaceMessageProcessor`). A throw stops the list there and shows
 *   "A2UI render error: …" instead of the surface (`errors` here).
 */
const rendererRequire = createRequire(createRequire(import.meta.url).resolve('@copilotkit/a2ui-renderer'));
/** CopilotKit's own copy of @a2ui/web_core v0.9. */
const webCore = await import(pathToFileURL(rendererRequire.resolve('@a2ui/web_core/v0_9')).href) as {
  MessageProcessor: new (catalogs: unknown[], onAction?: (action: unknown) => void) => CopilotProcessor;
  Catalog: new (id: string, components: unknown, functions: unknown) => unknown;
  BASIC_COMPONENTS: unknown;
  BASIC_FUNCTIONS: unknown;
};

interface CopilotSurface {
  componentsModel: { get(id: string): { type: string; properties: Record<string, unknown> } | undefined };
  dataModel: { get(path: string): unknown };
}
interface CopilotProcessor {
  processMessages(messages: unknown[]): void;
  model: { getSurface(id: string): CopilotSurface | undefined };
}

function newProcessor(): CopilotProcessor {
  return new webCore.MessageProcessor([new webCore.Catalog(BASIC_CATALOG_SPEC_ID, webCore.BASIC_COMPONENTS, webCore.BASIC_FUNCTIONS)], () => {});
}

/** The surface id an operation addresses, as CopilotKit reads it (`getOperationSurfaceId`). */
function surfaceIdOf(operation: unknown): string {
  const o = operation as Record<string, { surfaceId?: unknown } | undefined>;
  const id = o?.createSurface?.surfaceId ?? o?.updateComponents?.surfaceId ?? o?.updateDataModel?.surfaceId ?? o?.deleteSurface?.surfaceId;
  return typeof id === 'string' ? id : 'default';
}

/**
 * What a person sees of a surface: the component tree from `root` (children by the basic
 * catalogue's reference properties, so components left unreferenced by an update do not count)
 * and the whole data model. undefined: no such surface.
 */
export function visibleSurface(surface: CopilotSurface | undefined): string | undefined {
  if (surface === undefined) return undefined;
  const seen = new Set<string>();
  const walk = (id: string): unknown => {
    const component = surface.componentsModel.get(id);
    if (component === undefined || seen.has(id)) return { missing: id };
    seen.add(id);
    const refs = CHILD_REFS[component.type as keyof typeof CHILD_REFS] ?? [];
    const children = refs.flatMap((ref) => {
      const value = component.properties[ref.prop];
      if (ref.kind === 'single') return typeof value === 'string' ? [walk(value)] : [];
      if (ref.kind === 'nested') return Array.isArray(value) ? value.map((v) => walk(String((v as Record<string, unknown>)[ref.key!]))) : [];
      if (Array.isArray(value)) return value.map((v) => walk(String(v)));
      const template = value as { componentId?: unknown } | undefined;
      return typeof template?.componentId === 'string' ? [walk(template.componentId)] : [];
    });
    return { id, type: component.type, properties: component.properties, children };
  };
  return JSON.stringify(canon({ tree: walk('root'), data: surface.dataModel.get('/') }));
}

/** A fresh CopilotKit processor fed `messages`: what each surface looks like to a client that just got them. */
export function freshSurfaces(messages: readonly unknown[]): Map<string, string> {
  const processor = newProcessor();
  const run = capturingErrors(() => processor.processMessages(JSON.parse(JSON.stringify(messages)) as unknown[]));
  if (run.thrown !== undefined || run.errors.length > 0) throw new Error(`a fresh processor refused the snapshot: ${String(run.thrown)} ${run.errors.join(' | ')}`);
  const out = new Map<string, string>();
  for (const id of new Set(messages.map(surfaceIdOf))) {
    const state = visibleSurface(processor.model.getSurface(id));
    if (state !== undefined) out.set(id, state);
  }
  return out;
}

export class CopilotKitA2ui {
  /** What CopilotKit would show as "A2UI render error: …" (and console errors), in order. */
  readonly errors: string[] = [];
  /** Each activity's operations (messageId → list), as the AG-UI client patched them. */
  private readonly contents = new Map<string, unknown[]>();
  /** One processor per activity and surface, with the list it was fed last. */
  private readonly hosts = new Map<string, { processor: CopilotProcessor; last: string }>();

  /** An AG-UI event of the thread (anything but an a2ui-surface activity is ignored). */
  take(event: { type: string; messageId?: string; activityType?: string; content?: unknown; replace?: boolean; patch?: Array<{ op: string; path: string; value?: unknown }> }): void {
    if (event.activityType !== 'a2ui-surface' || event.messageId === undefined) return;
    if (event.type === 'ACTIVITY_SNAPSHOT') {
      if (event.replace === false && this.contents.has(event.messageId)) return;
      const ops = (event.content as { a2ui_operations?: unknown[] } | undefined)?.a2ui_operations;
      this.contents.set(event.messageId, Array.isArray(ops) ? JSON.parse(JSON.stringify(ops)) as unknown[] : []);
    } else if (event.type === 'ACTIVITY_DELTA') {
      const list = this.contents.get(event.messageId);
      if (list === undefined) {
        this.errors.push(`a delta for activity ${event.messageId}, which it does not have`);
        return;
      }
      for (const p of event.patch ?? []) {
        if (p.op === 'add' && p.path === '/a2ui_operations/-') list.push(JSON.parse(JSON.stringify(p.value)) as unknown);
        else this.errors.push(`a patch it does not apply: ${JSON.stringify(p).slice(0, 200)}`);
      }
    } else {
      return;
    }
    this.render(event.messageId);
  }

  private render(messageId: string): void {
    const groups = new Map<string, unknown[]>();
    for (const op of this.contents.get(messageId)!) {
      const id = surfaceIdOf(op);
      groups.set(id, [...(groups.get(id) ?? []), op]);
    }
    for (const [surfaceId, ops] of groups) {
      const key = `${messageId}\n${surfaceId}`;
      let host = this.hosts.get(key);
      if (host === undefined) this.hosts.set(key, host = { processor: newProcessor(), last: '' });
      const hash = JSON.stringify(ops);
      if (hash === host.last) continue;
      host.last = hash;
      const processor = host.processor;
      const list = processor.model.getSurface(surfaceId) !== undefined ? ops.filter((op) => !(op as { createSurface?: unknown }).createSurface) : ops;
      const run = capturingErrors(() => processor.processMessages(JSON.parse(JSON.stringify(list)) as unknown[]));
      if (run.thrown !== undefined) this.errors.push(`A2UI render error: ${(run.thrown as Error).message}`);
      this.errors.push(...run.errors);
    }
  }

  /** What each surface some activity shows looks like now (surface id → visibleSurface). */
  surfaces(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [key, host] of this.hosts) {
      const surfaceId = key.slice(key.indexOf('\n') + 1);
      const state = visibleSurface(host.processor.model.getSurface(surfaceId));
      if (state === undefined) continue;
      if (out.has(surfaceId)) this.errors.push(`surface ${surfaceId} is shown by two activities`);
      out.set(surfaceId, state);
    }
    return out;
  }
}
