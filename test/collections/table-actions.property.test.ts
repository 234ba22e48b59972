import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTableDirective, listChooseAction, TABLE_ACTIONS, tablePageAction, tableSortAction } from '../../src/collections/index.ts';
import { DEFAULT_LIMITS } from '../../src/directives/index.ts';
import { surfaceViewModel } from '../../src/compiler/html/index.ts';
import { tableView } from '../../src/compiler/table-view.ts';
import { errorSpec, httpStatusOf, isErrorCode, SurfacerErrorSchema } from '../../src/errors/index.ts';
import { createActionRegistry, createIngress, parseHtmlFormAction, type ActionDefinition, type ActionRequest } from '../../src/ingress/index.ts';
import { createSeededSource, draw, emptyConversation, findSurface, tableBlocks, tablePage, type ConversationIr, type Surface } from '../../src/ui-ir/index.ts';
import { applyTransitions, arbTableHistory, ITEM_FIELDS, LIST_NAMES } from '../support/arbitraries-ir.ts';
import { bothTransports, decodeSurfaceId, memoryConversation } from '../ingress/fixtures.ts';

/**
 * Property: a table control (sort by a column, open a page) is applied if and only if it is
 * exactly what a client of the current rendering could press — the surface's current epoch,
 * nonce and rev, a table it shows, a sortable column and a direction, or a page the table has.
 * Controls are taken from every rendering along a generated history (the htmx page's table
 * forms: what a user saw), or forged (any table, column, direction and page with the current
 * tokens). Stale → 409, forged → 400 A2UI_C2S_TABLE_CONTROL_INVALID (403 for a table control on
 * a surface without tables); a rejected request changes nothing. An applied one sorts or pages
 * exactly as asked, with a new rev. The same idempotency key applies once.
 */
type Control = { surfaceId: string; epoch: number; nonce: string; rev: number; action: string; fields: Record<string, string> };

/** Every table control a user of this IR could press: the hidden fields of the htmx page's table forms. */
function controlsOf(ir: ConversationIr): Control[] {
  const out: Control[] = [];
  for (const surface of ir.surfaces) {
    const vm = surfaceViewModel(ir, surface);
    for (const form of vm.tableForms) {
      const fields = Object.fromEntries(form.hidden.filter((h) => !h.name.startsWith('_')).map((h) => [h.name, h.value]));
      const action = 'page' in fields ? tablePageAction.name : tableSortAction.name;
      out.push({ surfaceId: surface.id, epoch: surface.epoch, nonce: surface.nonce, rev: surface.rev, action, fields });
    }
  }
  return out;
}

function request(control: Control, surface: Surface, html: boolean, idempotencyKey?: string): ActionRequest {
  if (html && idempotencyKey !== undefined) {
    const parsed = parseHtmlFormAction({
      _surface: control.surfaceId, _epoch: String(control.epoch), _nonce: control.nonce, _rev: String(control.rev), _action: control.action,
      _idem: idempotencyKey, ...control.fields,
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed));
    return parsed.request;
  }
  const [a2ui, form] = bothTransports(surface, {
    surfaceId: control.surfaceId, epoch: control.epoch, nonce: control.nonce, rev: control.rev, action: control.action,
    fields: control.fields, html: control.fields,
  });
  const chosen = html ? form! : a2ui!;
  return idempotencyKey === undefined ? chosen : { ...chosen, idempotencyKey };
}

function recording(calls: string[], action: ActionDefinition): ActionDefinition {
  return { ...action, handle: (ir, surface, context, d) => { calls.push(action.name); return action.handle(ir, surface, context, d); } };
}

describe('a sort of a table with fewer than two rows', () => {
  it('is refused with A2UI_C2S_TABLE_CONTROL_INVALID (no rendering offers it: nothing to sort), and the table is unchanged', () => {
    const show = createTableDirective({ itemActions: [] });
    const source = createSeededSource('one-row');
    for (const rows of [[{ id: 'a', v: 1 }], []]) {
      const shown = show.apply(emptyConversation('c1'), show.payload.parse({ title: 'T', table: 't', columns: [{ key: 'v', label: 'V' }], rows }), draw(source), { limits: DEFAULT_LIMITS });
      if (!shown.ok) throw new Error(JSON.stringify(shown.error));
      const surface = shown.ir.surfaces[0]!;
      expect(tableView(surface, tableBlocks(surface.view)[0]!).total).toBe(rows.length);
      const sorted = tableSortAction.handle(shown.ir, surface, { table: 't', column: 'v', dir: 'desc' }, draw(source));
      expect(sorted).toMatchObject({ ok: false, error: { code: 'A2UI_C2S_TABLE_CONTROL_INVALID' } });
    }
  });
});

describe('property: table sort and page controls are stale-safe, checked and idempotent', () => {
  const forged = fc.record({
    action: fc.constantFrom(tableSortAction.name, tablePageAction.name),
    table: fc.constantFrom(...LIST_NAMES, 'nope'),
    column: fc.constantFrom(...ITEM_FIELDS, 'zz'),
    dir: fc.constantFrom('asc', 'desc', 'up'),
    page: fc.constantFrom('0', '1', '2', '3', '9', 'x', '-1'),
  });

  it('applied iff the control is one the current rendering offers, and then as asked (both transports, 1,000 runs)', async () => {
    let applied = 0;
    let stale = 0;
    let invalid = 0;
    const from = fc.constantFrom('current' as const, 'past' as const, 'forged' as const);
    await fc.assert(fc.asyncProperty(arbTableHistory, fc.nat(), from, forged, fc.boolean(), async (ops, pick, mode, forgery, html) => {
      const irs = applyTransitions(ops);
      const last = irs[irs.length - 1]!;
      const target = last.surfaces.find((s) => s.lifecycle !== 'deleted');
      if (target === undefined) return;
      const seen = mode === 'current' ? controlsOf(last) : irs.flatMap(controlsOf);
      const fields: Record<string, string> = forgery.action === tableSortAction.name
        ? { table: forgery.table, column: forgery.column, dir: forgery.dir } : { table: forgery.table, page: forgery.page };
      const control: Control | undefined = mode !== 'forged'
        ? seen[pick % Math.max(1, seen.length)]
        : { surfaceId: target.id, epoch: target.epoch, nonce: target.nonce, rev: target.rev, action: forgery.action, fields };
      if (control === undefined) return;
      const surface = findSurface(last, control.surfaceId) ?? target;
      const calls: string[] = [];
      const registry = createActionRegistry([...TABLE_ACTIONS, listChooseAction].map((a) => recording(calls, a)));
      const ingress = createIngress({ actions: registry, decodeSurfaceId, source: createSeededSource('tables') });
      const conversation = memoryConversation(last);
      const outcome = await ingress.handle(request(control, surface, html), conversation);

      const current = findSurface(last, control.surfaceId);
      const live = current !== undefined && current.lifecycle !== 'deleted' && current.lifecycle !== 'expired';
      const tokens = live && current.epoch === control.epoch && current.nonce === control.nonce && current.rev === control.rev;
      const block = tokens ? tableBlocks(current.view).find((b) => b.name === control.fields.table) : undefined;
      const page = block === undefined ? undefined : tablePage(current!, block);
      const column = block?.columns.find((c) => c.key === control.fields.column);
      const valid = block !== undefined && (control.action === tableSortAction.name
        ? column !== undefined && column.sortable && (control.fields.dir === 'asc' || control.fields.dir === 'desc') && page!.total > 1
        : /^[1-9][0-9]*$/.test(control.fields.page ?? '') && Number(control.fields.page) <= page!.pages);

      if (valid) {
        applied += 1;
        expect(outcome, JSON.stringify(outcome)).toMatchObject({ kind: 'applied', status: 200 });
        expect(calls).toEqual([control.action]);
        const after = findSurface(conversation.ir, control.surfaceId)!;
        expect(after.rev).toBe(current!.rev + 1);
        const shown = tablePage(after, tableBlocks(after.view).find((b) => b.name === control.fields.table)!);
        if (control.action === tableSortAction.name) {
          expect(shown.sort).toEqual({ column: control.fields.column, dir: control.fields.dir });
          expect(shown.page).toBe(1);
        } else {
          expect(shown.page).toBe(Number(control.fields.page));
          expect(shown.sort).toEqual(page!.sort);
        }
        return;
      }
      expect(outcome.kind).toBe('rejected');
      if (outcome.kind !== 'rejected') return;
      expect(SurfacerErrorSchema.safeParse(outcome.error).success, JSON.stringify(outcome.error)).toBe(true);
      expect(isErrorCode(outcome.error.code)).toBe(true);
      if (isErrorCode(outcome.error.code)) expect(outcome.error).toMatchObject({ category: errorSpec(outcome.error.code).category });
      expect(outcome.status).toBe(httpStatusOf(outcome.error.code));
      expect(conversation.ir).toBe(last);
      if (!tokens) {
        stale += 1;
        expect(outcome).toMatchObject({ status: 409, error: { code: 'A2UI_C2S_SURFACE_STALE' } });
        expect(calls).toEqual([]);
      } else {
        invalid += 1;
        const code = tableBlocks(current!.view).length === 0 ? 'A2UI_C2S_ACTION_FORBIDDEN' : 'A2UI_C2S_TABLE_CONTROL_INVALID';
        expect(outcome.error.code, JSON.stringify(outcome.error)).toBe(code);
      }
    }), { numRuns: 1000 });
    console.info(`table controls: ${applied} applied, ${stale} stale, ${invalid} invalid`);
    expect(applied).toBeGreaterThan(50);
    expect(stale).toBeGreaterThan(50);
    expect(invalid).toBeGreaterThan(50);
  }, 600_000);

  it('the same idempotency key applies once: a repeat is a replay, not a second sort or page (300 runs)', async () => {
    let pairs = 0;
    await fc.assert(fc.asyncProperty(arbTableHistory, fc.nat(), fc.boolean(), async (ops, pick, html) => {
      const irs = applyTransitions(ops);
      const last = irs[irs.length - 1]!;
      const offered = controlsOf(last);
      const control = offered[pick % Math.max(1, offered.length)];
      if (control === undefined) return;
      const surface = findSurface(last, control.surfaceId)!;
      const calls: string[] = [];
      const registry = createActionRegistry(TABLE_ACTIONS.map((a) => recording(calls, a)));
      const ingress = createIngress({ actions: registry, decodeSurfaceId, source: createSeededSource('tables') });
      const conversation = memoryConversation(last);
      const first = await ingress.handle(request(control, surface, html, 'key-1'), conversation);
      const afterFirst = conversation.ir;
      const second = await ingress.handle(request(control, surface, html, 'key-1'), conversation);
      expect(first).toMatchObject({ kind: 'applied', replayed: false });
      expect(second).toMatchObject({ kind: 'applied', replayed: true });
      expect(calls).toEqual([control.action]);
      expect(conversation.ir).toBe(afterFirst);
      // Without the key, the very same request is stale: the first made a new rev.
      const third = await ingress.handle(request(control, surface, html), conversation);
      expect(third).toMatchObject({ kind: 'rejected', status: 409 });
      pairs += 1;
    }), { numRuns: 300 });
    expect(pairs).toBeGreaterThan(50);
  }, 600_000);

  it('the rows a control leads to are the ones the htmx page and both A2UI pages show (table-view is the one source)', () => {
    fc.assert(fc.property(arbTableHistory, (ops) => {
      const irs = applyTransitions(ops);
      const last = irs[irs.length - 1]!;
      for (const surface of last.surfaces) {
        if (surface.lifecycle === 'deleted') continue;
        const vm = surfaceViewModel(last, surface);
        const tables = vm.blocks.filter((b) => b.kind === 'table');
        for (const table of tables) {
          const block = tableBlocks(surface.view).find((b) => b.name === table.name)!;
          expect(table.rows.map((r) => r.key)).toEqual(tableView(surface, block).rows.map((r) => r.key));
          // aria-sort on the sorted column only, and on one at most.
          expect(table.columns.filter((c) => c.ariaSort !== undefined).length).toBeLessThanOrEqual(1);
        }
      }
    }), { numRuns: 200 });
  });
});
