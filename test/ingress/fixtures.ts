import { expect } from 'vitest';
import { z } from 'zod';
import { isErrorCode, SurfacerErrorSchema } from '../../src/errors/index.ts';
import {
  closeSurface, commitSurface, createSeededSource, draw, emptyConversation, findSurface, openSurface,
  type ConversationIr, type DataMap, type DataValue, type Draw, type Surface, type SurfaceView,
} from '../../src/ui-ir/index.ts';
import {
  createActionRegistry, fieldContextSchema, parseA2uiClientEvent, parseHtmlFormAction,
  type ActionDefinition, type ActionRegistry, type ActionRequest, type IngressRequest, type ParseResult, type SurfaceIdDecoder,
} from '../../src/ingress/index.ts';

/**
 * The encoding src/compiler/a2ui uses (`<surfaceId>--e<epoch>`), restated here so these tests
 * do not depend on another folder; hosts inject the compiler's `decodeA2uiSurfaceId`.
 */
export const encodeSurfaceId = (id: string, epoch: number): string => `${id}--e${epoch}`;
export const decodeSurfaceId: SurfaceIdDecoder = (wire) => {
  const m = /^([a-z][a-z0-9_-]{0,39})--e(0|[1-9][0-9]{0,15})$/.exec(wire);
  return m ? { id: m[1]!, epoch: Number(m[2]) } : undefined;
};

export const FORM_VIEW: SurfaceView = {
  template: 'profile',
  title: 'Profile',
  blocks: [
    { kind: 'field', name: 'name', label: 'Name', control: 'text', required: true, maxLength: 40 },
    { kind: 'field', name: 'age', label: 'Age', control: 'number', required: false, min: 0, max: 150 },
    { kind: 'field', name: 'agree', label: 'Agree', control: 'checkbox', required: false },
    {
      kind: 'group', layout: 'row', blocks: [
        { kind: 'field', name: 'color', label: 'Color', control: 'select', required: false,
          options: [{ value: 'red', label: 'Red' }, { value: 'green', label: 'Green' }] },
        { kind: 'field', name: 'tags', label: 'Tags', control: 'multiselect', required: false,
          options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }, { value: 'c', label: 'C' }] },
        { kind: 'field', name: 'level', label: 'Level', control: 'slider', required: false, min: 0, max: 10 },
      ],
    },
  ],
  actions: [
    { name: 'form.submit', label: 'Save', role: 'submit', primary: true },
    { name: 'form.cancel', label: 'Cancel', role: 'cancel', primary: false },
    { name: 'form.unregistered', label: 'Ghost', role: 'secondary', primary: false },
  ],
};

export const OTHER_VIEW: SurfaceView = {
  template: 'note', title: 'Note', blocks: [{ kind: 'text', text: 'Hello', tone: 'body' }],
  actions: [{ name: 'note.ok', label: 'OK', role: 'submit', primary: true }],
};

function definedOnly(context: Record<string, unknown>): DataMap {
  const out: Record<string, DataValue> = {};
  for (const [k, v] of Object.entries(context)) if (v !== undefined) out[k] = v as DataValue;
  return out;
}

/** Test actions that record every call, so a test can prove something was applied once or never. */
export function createTestActions(): { registry: ActionRegistry; calls: Array<{ name: string; context: Record<string, unknown> }> } {
  const calls: Array<{ name: string; context: Record<string, unknown> }> = [];
  const submit: ActionDefinition = {
    name: 'form.submit',
    description: 'Save the form',
    contextSchema: fieldContextSchema,
    handle(ir, surface, context, d) {
      calls.push({ name: 'form.submit', context });
      const values = definedOnly(context);
      const result = commitSurface(ir, surface.id, { draft: values, committed: values }, d);
      return result.ok ? { ok: true, ir: result.ir, toast: { level: 'success', text: 'Saved.' } } : result;
    },
  };
  const cancel: ActionDefinition = {
    name: 'form.cancel',
    description: 'Close the form',
    contextSchema: () => z.object({}),
    handle(ir, surface, context, d) {
      calls.push({ name: 'form.cancel', context });
      return closeSurface(ir, surface.id, d);
    },
  };
  const ok: ActionDefinition = {
    name: 'note.ok',
    description: 'Acknowledge',
    contextSchema: () => z.object({}),
    handle(ir, surface, context, d) {
      calls.push({ name: 'note.ok', context });
      const result = commitSurface(ir, surface.id, { draft: {}, committed: { seen: true } }, d);
      return result.ok ? { ok: true, ir: result.ir } : result;
    },
  };
  return { registry: createActionRegistry([submit, cancel, ok]), calls };
}

export function nextDraw(seed = 'test'): () => Draw {
  const source = createSeededSource(seed);
  return () => draw(source);
}

/** A conversation with `main` (a form) and `side` (a note), both at epoch 0, rev 0. */
export function buildIr(seed = 'test'): ConversationIr {
  const d = nextDraw(seed);
  let ir = emptyConversation('c1');
  ir = openSurface(ir, { id: 'main', view: FORM_VIEW, draft: { name: 'Ada' } }, d());
  ir = openSurface(ir, { id: 'side', view: OTHER_VIEW }, d());
  return ir;
}

export function surfaceOf(ir: ConversationIr, id = 'main'): Surface {
  const s = findSurface(ir, id);
  if (!s) throw new Error(`no surface ${id}`);
  return s;
}

export interface ActionOverrides {
  name?: string;
  surfaceId?: string;
  sourceComponentId?: string;
  timestamp?: string;
  context?: Record<string, unknown>;
}

/** The userAction a stock renderer would send for `surface`, with overrides. */
export function userAction(surface: Surface, o: ActionOverrides = {}): { userAction: Record<string, unknown> } {
  return {
    userAction: {
      name: o.name ?? 'form.submit',
      surfaceId: o.surfaceId ?? encodeSurfaceId(surface.id, surface.epoch),
      sourceComponentId: o.sourceComponentId ?? 'form.actions.submit',
      timestamp: o.timestamp ?? '2026-01-01T00:00:10.000Z',
      context: o.context ?? { nonce: surface.nonce, rev: surface.rev, name: 'Grace' },
    },
  };
}

export function a2uiBody(surface: Surface, o: ActionOverrides = {}): string {
  return JSON.stringify(userAction(surface, o));
}

/** The fields a browser posts for `surface`'s form, with overrides (undefined removes a field). */
export function htmlFields(surface: Surface, o: Record<string, string | string[] | undefined> = {}): Record<string, string | string[]> {
  const base: Record<string, string | string[] | undefined> = {
    _surface: surface.id, _epoch: String(surface.epoch), _nonce: surface.nonce, _rev: String(surface.rev),
    _idem: 'render-1', _action: 'form.submit', name: 'Grace', ...o,
  };
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) out[k] = v;
  return out;
}

/** Deep-freezes an IR so any mutation by the pipeline throws in strict mode. */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
      Object.freeze(v);
      stack.push(...Object.values(v));
    }
  }
  return value;
}

export interface Wire {
  surfaceId?: string;
  epoch?: number;
  nonce?: string;
  rev?: number | string;
  action?: string;
  /** Field values, as the transport carries them. */
  fields?: Record<string, unknown>;
  html?: Record<string, string | string[]>;
}

/**
 * The same submission through both adapters: an A2UI body and an HTML form, parsed. Fields
 * default to what each transport would send for `name: Grace`.
 */
export function bothTransports(surface: Surface, w: Wire = {}): ActionRequest[] {
  const id = w.surfaceId ?? surface.id;
  const epoch = w.epoch ?? surface.epoch;
  const nonce = w.nonce ?? surface.nonce;
  const rev = w.rev ?? surface.rev;
  const action = w.action ?? 'form.submit';
  const a2ui = parseA2uiClientEvent(
    JSON.stringify({ userAction: {
      name: action, surfaceId: encodeSurfaceId(id, epoch), sourceComponentId: 'x', timestamp: '2026-01-01T00:00:00Z',
      context: { nonce, rev, ...(w.fields ?? { name: 'Grace' }) },
    } }),
    { decodeSurfaceId },
  );
  const html = parseHtmlFormAction({
    _surface: id, _epoch: String(epoch), _nonce: nonce, _rev: String(rev), _action: action, ...(w.html ?? { name: 'Grace' }),
  });
  if (!a2ui.ok || !html.ok) throw new Error(`fixture did not parse: ${JSON.stringify([a2ui, html])}`);
  if (a2ui.request.kind !== 'action') throw new Error('expected an action');
  return [a2ui.request, html.request];
}

/** An in-memory conversation for the orchestrator, with optional latency to force interleaving. */
export function memoryConversation(initial: ConversationIr, options: { latencyMs?: number; failCommit?: () => boolean } = {}) {
  let ir = initial;
  const commits: ConversationIr[] = [];
  const wait = () => new Promise<void>((r) => setTimeout(r, options.latencyMs ?? 0));
  return {
    id: initial.conversationId,
    get ir() { return ir; },
    commits,
    async read() { await wait(); return ir; },
    async commit(next: ConversationIr) {
      await wait();
      if (options.failCommit?.()) throw new Error('disk full');
      ir = next;
      commits.push(next);
    },
  };
}

/** A parse result that is the canonical rejection with `code` and `status` (and `pointer`, when given). */
export function expectRejected(result: ParseResult<IngressRequest>, code: string, status: number, pointer?: string): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe(code);
  expect(result.status).toBe(status);
  expect(isErrorCode(result.error.code)).toBe(true);
  expect(SurfacerErrorSchema.safeParse(result.error).success).toBe(true);
  if (pointer !== undefined) expect(result.error.pointer).toBe(pointer);
}
