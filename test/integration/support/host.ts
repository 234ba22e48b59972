import { expect } from 'vitest';
import type { HashOptions, Violation } from '../../../src/clientsim/index.ts';
import {
  compileA2uiUpdate, compileConversationToA2ui, decodeA2uiSurfaceId, unguardA2uiValue, type A2uiCompileResult,
} from '../../../src/compiler/index.ts';
import {
  applyIngress, checkIngress, parseA2uiClientEvent, type ActionRegistry, type ActionRequest, type Rejection,
} from '../../../src/ingress/index.ts';
import type { ConversationIr, Draw } from '../../../src/ui-ir/index.ts';

/**
 * What an A2UI host does around the pure pieces, written once for the integration suites:
 * compile (init or update) to wire lines, and turn a client's POST body into an IR change.
 */

/**
 * Comparing states reached along different server paths (per-change updates, one coalesced
 * update, a fresh init): data keys may be inserted in another order and incremental updates
 * leave unreferenced components behind (v0.8 cannot remove one). Neither is visible without
 * templates, which the compiler never emits. See HashOptions in src/clientsim/serialize.ts.
 */
export const SAME_STATE: HashOptions = { sortDataKeys: true, reachableOnly: true };

/** Messages as a client receives them: each batch's serialised lines, parsed back. */
export function wire(result: A2uiCompileResult): unknown[] {
  expect(result.ok, JSON.stringify(result.ok ? [] : result.errors)).toBe(true);
  // An epoch reset asks the host to rotate the epoch and recompile; these suites expect none.
  expect(result.epochResets).toEqual([]);
  return result.batches.flatMap((b) => b.lines.map((line) => JSON.parse(line) as unknown));
}

export const initLines = (ir: ConversationIr): unknown[] => wire(compileConversationToA2ui(ir));
export const updateLines = (prev: ConversationIr, next: ConversationIr): unknown[] => wire(compileA2uiUpdate(prev, next));

export const errorsOf = (violations: readonly Violation[]): Violation[] => violations.filter((v) => v.severity === 'error');

/** A POST body → the normalised request, with the compiler's text guard taken off the values. */
export function parseEvent(body: string): { ok: true; request: ActionRequest } | Rejection {
  const parsed = parseA2uiClientEvent(body, { decodeSurfaceId: decodeA2uiSurfaceId });
  if (!parsed.ok) return parsed;
  if (parsed.request.kind !== 'action') throw new Error(`expected a userAction, got ${parsed.request.kind}`);
  // Strings the compiler guarded (text.ts) come back with the invisible mark when the user did
  // not retype them. The pure ingress leaves it; the A2UI host removes it (host-a2ui host.ts),
  // and so does this stand-in for it.
  return { ok: true, request: { ...parsed.request, context: unguardA2uiValue(parsed.request.context) as Record<string, unknown> } };
}

/** parse → check → apply, all pure: the IR after the action, or the rejection. */
export function handleEvent(ir: ConversationIr, body: string, actions: ActionRegistry, draw: Draw):
  { ok: true; ir: ConversationIr } | Rejection {
  const parsed = parseEvent(body);
  if (!parsed.ok) return parsed;
  const checked = checkIngress(parsed.request, ir, actions);
  if (!checked.ok) return checked;
  const applied = applyIngress(ir, checked, draw);
  return applied.ok ? { ok: true, ir: applied.ir } : applied;
}
