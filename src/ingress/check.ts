import { errorSpec, makeError, type RecoveryPath, type SurfacerError } from '../errors/index.ts';
import { escapeToken, findSurface, type ConversationIr, type Surface } from '../ui-ir/index.ts';
import type { ActionDefinition, ActionRegistry } from './actions.ts';
import { nonceMatches } from './nonce.ts';
import type { ActionRequest, ClientErrorRequest } from './request.ts';
import { reject, type FieldIssue, type Rejection } from './result.ts';

export interface CheckedAction {
  readonly ok: true;
  readonly request: ActionRequest;
  readonly surface: Surface;
  readonly action: ActionDefinition;
  /** The context as the action's schema parsed (and coerced) it. */
  readonly context: Record<string, unknown>;
}

const stale = (detail: string): Rejection => reject('A2UI_C2S_SURFACE_STALE', detail);

/**
 * The surface the request was rendered from, if it is still the current rendering: exists,
 * live (not deleted or expired), same epoch, same nonce, same rev. Anything else is 409.
 */
function currentSurface(ir: ConversationIr, request: { surfaceId: string; epoch: number; nonce?: string; rev?: number }):
  { ok: true; surface: Surface } | Rejection {
  const surface = findSurface(ir, request.surfaceId);
  if (!surface) return stale(`no surface "${request.surfaceId}"`);
  if (surface.lifecycle === 'deleted' || surface.lifecycle === 'expired') {
    return stale(`surface "${surface.id}" is ${surface.lifecycle}`);
  }
  if (surface.epoch !== request.epoch) return stale(`epoch ${request.epoch} is not the current epoch ${surface.epoch}`);
  // Compared in constant time even when epoch and rev already match: the nonce is the secret.
  if (request.nonce !== undefined && !nonceMatches(surface.nonce, request.nonce)) return stale('nonce does not match');
  if (request.rev !== undefined && surface.rev !== request.rev) return stale(`rev ${request.rev} is not the current rev ${surface.rev}`);
  return { ok: true, surface };
}

function contextPointer(request: ActionRequest, path: readonly PropertyKey[]): string {
  const base = request.transport === 'html' ? '' : request.dialect === undefined ? '/userAction/context' : '/action/context';
  return base + path.map((p) => `/${escapeToken(String(p))}`).join('');
}

/**
 * Pure: is this action request allowed against this IR, now? Order: surface currency (409),
 * then allowlist (403), then the action's context schema (403, as design §6 lists it). The
 * IR is only read. Never throws: a schema that throws is reported as INTERNAL_ERROR (500).
 */
export function checkIngress(request: ActionRequest, ir: ConversationIr, actions: ActionRegistry): CheckedAction | Rejection {
  const current = currentSurface(ir, request);
  if (!current.ok) return current;
  const { surface } = current;

  const name = JSON.stringify(request.action);
  if (!surface.view.actions.some((a) => a.name === request.action)) {
    return reject('A2UI_C2S_ACTION_FORBIDDEN', `action ${name} is not offered by surface "${surface.id}"`);
  }
  const action = actions.resolve(request.action);
  if (!action) return reject('A2UI_C2S_ACTION_FORBIDDEN', `action ${name} is not registered`);

  let parsed;
  try {
    parsed = action.contextSchema(surface).safeParse(request.context);
  } catch (e) {
    return reject('INTERNAL_ERROR', `context schema of ${name} threw: ${(e as Error)?.message ?? String(e)}`);
  }
  if (!parsed.success) {
    const issues: FieldIssue[] = parsed.error.issues.slice(0, 50).map((issue) => ({
      pointer: contextPointer(request, issue.path), message: issue.message,
    }));
    const first = issues[0];
    return reject('A2UI_C2S_ACTION_FORBIDDEN', `context does not match ${name}: ${first?.message ?? 'invalid'}`, first?.pointer, issues);
  }
  return { ok: true, request, surface, action, context: parsed.data };
}

export interface CheckedClientError {
  readonly ok: true;
  readonly request: ClientErrorRequest;
  readonly surface: Surface;
  /** What the caller must run (from the registry: `epoch_reset` by default). */
  readonly recovery: RecoveryPath;
  readonly error: SurfacerError;
}

/**
 * A client `error` event. Only a report about the current epoch of a live surface triggers
 * recovery; a report from an old rendering is stale (the client is re-initialised anyway), so
 * a replayed report cannot reset a surface over and over.
 */
export function checkClientError(request: ClientErrorRequest, ir: ConversationIr): CheckedClientError | Rejection {
  const current = currentSurface(ir, { surfaceId: request.surfaceId, epoch: request.epoch });
  if (!current.ok) return current;
  const detail = `client reported ${JSON.stringify(request.clientCode)}`
    + (request.path === undefined ? '' : ` at ${JSON.stringify(request.path)}`)
    + (request.message === undefined ? '' : `: ${request.message}`);
  return {
    ok: true, request, surface: current.surface,
    recovery: errorSpec('A2UI_C2S_CLIENT_ERROR').recovery,
    error: makeError('A2UI_C2S_CLIENT_ERROR', detail),
  };
}
