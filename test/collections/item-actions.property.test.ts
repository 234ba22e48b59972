import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listChooseAction, listRemoveAction } from '../../src/collections/index.ts';
import { errorSpec, httpStatusOf, isErrorCode, SurfacerErrorSchema } from '../../src/errors/index.ts';
import { surfaceViewModel, type ListVm } from '../../src/compiler/html/index.ts';
import {
  createActionRegistry, createIngress, type ActionDefinition, type ActionRequest,
} from '../../src/ingress/index.ts';
import { createSeededSource, type ConversationIr, type Surface } from '../../src/ui-ir/index.ts';
import { applyTransitions, arbListHistory, ITEM_ACTIONS, ITEM_KEYS, LIST_NAMES } from '../support/arbitraries-ir.ts';
import { bothTransports, decodeSurfaceId, memoryConversation } from '../ingress/fixtures.ts';

/**
 * Property: a per-item action is applied if and only if it is exactly what a client of the
 * current rendering could click — the surface's current epoch, nonce and rev, a list the view
 * shows offering that action, and an item key that list shows now. Clicks are taken from every
 * rendering along a generated history (the HTML compiler's list items and buttons: what a user
 * saw), or forged (any list name, key and action with the current tokens). Stale → 409, forged →
 * 400 (or 403 for an action not offered); rejected requests change nothing and reach no handler.
 */
type Click = { surfaceId: string; epoch: number; nonce: string; rev: number; list: string; item: string; action: string };

/** Every item button a user of this IR could press (rendered by the HTML compiler). */
function clicksOf(ir: ConversationIr): Click[] {
  const out: Click[] = [];
  for (const surface of ir.surfaces) {
    const vm = surfaceViewModel(ir, surface);
    const lists: ListVm[] = [];
    const visit = (blocks: typeof vm.blocks): void => {
      for (const b of blocks) { if (b.kind === 'list') lists.push(b); else if (b.kind === 'group' || b.kind === 'modal') visit(b.blocks);
        else if (b.kind === 'tabs') for (const tab of b.tabs) visit(tab.blocks); }
    };
    visit(vm.blocks);
    for (const list of lists) {
      for (const item of list.items) {
        for (const button of item.buttons) {
          out.push({ surfaceId: surface.id, epoch: surface.epoch, nonce: surface.nonce, rev: surface.rev, list: list.name, item: item.key, action: button.name });
        }
      }
    }
  }
  return out;
}

function recording(calls: string[], action: ActionDefinition): ActionDefinition {
  return { ...action, handle: (ir, surface, context, d) => { calls.push(`${action.name}:${String(context.item)}`); return action.handle(ir, surface, context, d); } };
}

function request(click: Click, surface: Surface, html: boolean): ActionRequest {
  const fields = { list: click.list, item: click.item };
  const [a2ui, form] = bothTransports(surface, {
    surfaceId: click.surfaceId, epoch: click.epoch, nonce: click.nonce, rev: click.rev, action: click.action, fields, html: fields,
  });
  return html ? form! : a2ui!;
}

describe('property: per-item actions with stale or forged keys are never applied', () => {
  const forged = fc.record({
    list: fc.constantFrom(...LIST_NAMES, 'nope'), item: fc.constantFrom(...ITEM_KEYS, 'zz'), action: fc.constantFrom(...ITEM_ACTIONS),
  });

  it('applied iff the click is one the current rendering offers (both transports, 1,000 runs)', async () => {
    let applied = 0;
    let stale = 0;
    let unknown = 0;
    const from = fc.constantFrom('current' as const, 'past' as const, 'forged' as const);
    await fc.assert(fc.asyncProperty(arbListHistory, fc.nat(), from, forged, fc.boolean(),
      async (ops, pick, mode, forgery, html) => {
        const irs = applyTransitions(ops);
        const last = irs[irs.length - 1]!;
        const seen = mode === 'current' ? clicksOf(last) : irs.flatMap(clicksOf);
        const target = last.surfaces.find((s) => s.lifecycle !== 'deleted');
        if (target === undefined) return;
        const click: Click | undefined = mode !== 'forged'
          ? seen[pick % Math.max(1, seen.length)]
          : { surfaceId: target.id, epoch: target.epoch, nonce: target.nonce, rev: target.rev, ...forgery };
        if (click === undefined) return;
        const surface = last.surfaces.find((s) => s.id === click.surfaceId) ?? target;
        const calls: string[] = [];
        const open: ActionDefinition = { name: 'item.open', scope: 'item', description: 'open', contextSchema: listChooseAction.contextSchema, handle: (ir) => ({ ok: true, ir }) };
        const registry = createActionRegistry([listChooseAction, listRemoveAction, open].map((a) => recording(calls, a)));
        const ingress = createIngress({ actions: registry, decodeSurfaceId, source: createSeededSource('items') });
        const conversation = memoryConversation(last);

        const offered = clicksOf(last).some((c) => c.surfaceId === click.surfaceId && c.epoch === click.epoch && c.nonce === click.nonce
          && c.rev === click.rev && c.list === click.list && c.item === click.item && c.action === click.action);
        const outcome = await ingress.handle(request(click, surface, html), conversation);
        if (offered) {
          applied += 1;
          expect(outcome).toMatchObject({ kind: 'applied', status: 200 });
          expect(calls).toEqual([`${click.action}:${click.item}`]);
          return;
        }
        expect(outcome.kind).toBe('rejected');
        if (outcome.kind !== 'rejected') return;
        // The canonical error of the one registry, its status decided there.
        expect(SurfacerErrorSchema.safeParse(outcome.error).success, JSON.stringify(outcome.error)).toBe(true);
        expect(isErrorCode(outcome.error.code)).toBe(true);
        if (isErrorCode(outcome.error.code)) expect(outcome.error).toMatchObject({ category: errorSpec(outcome.error.code).category, retryable: errorSpec(outcome.error.code).retryable });
        expect(outcome.status).toBe(httpStatusOf(outcome.error.code));
        expect(calls).toEqual([]);
        expect(conversation.ir).toBe(last);
        const current = last.surfaces.find((s) => s.id === click.surfaceId);
        const live = current !== undefined && current.lifecycle !== 'deleted' && current.lifecycle !== 'expired';
        const tokens = live && current.epoch === click.epoch && current.nonce === click.nonce && current.rev === click.rev;
        if (!tokens) {
          stale += 1;
          expect(outcome).toMatchObject({ status: 409, error: { code: 'A2UI_C2S_SURFACE_STALE' } });
        } else {
          unknown += 1;
          expect([400, 403]).toContain(outcome.status);
          // 403: an action no list of the surface offers; 400: a list or key it does not show now.
          expect(outcome.error.code).toBe(outcome.status === 400 ? 'A2UI_C2S_ITEM_UNKNOWN' : 'A2UI_C2S_ACTION_FORBIDDEN');
        }
      }), { numRuns: 1000 });
    // The generators reach every branch often enough to mean something.
    console.info(`item actions: ${applied} applied, ${stale} stale, ${unknown} forged`);
    expect(applied).toBeGreaterThan(50);
    expect(stale).toBeGreaterThan(50);
    expect(unknown).toBeGreaterThan(50);
  }, 600_000);
});
