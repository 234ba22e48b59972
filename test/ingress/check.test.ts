import { describe, expect, it } from 'vitest';
import { isErrorCode, SurfacerErrorSchema } from '../../src/errors/index.ts';
import { checkClientError, checkIngress, type CheckedAction, type CheckedClientError, type Rejection } from '../../src/ingress/index.ts';
import { closeSurface, commitSurface, expireSurface, openSurface, resetSurfaceEpoch, type ConversationIr } from '../../src/ui-ir/index.ts';
import { bothTransports, buildIr, createTestActions, deepFreeze, FORM_VIEW, nextDraw, surfaceOf } from './fixtures.ts';

const { registry } = createTestActions();
const d = nextDraw('check');

function expectRejection(result: CheckedAction | CheckedClientError | Rejection, code: string, status: number): Rejection {
  expect(result.ok).toBe(false);
  const r = result as Rejection;
  expect([r.error.code, r.status]).toEqual([code, status]);
  expect(isErrorCode(r.error.code)).toBe(true);
  expect(SurfacerErrorSchema.safeParse(r.error).success).toBe(true);
  return r;
}

function expectStale(ir: ConversationIr, requests: ReturnType<typeof bothTransports>): void {
  deepFreeze(ir);
  for (const request of requests) {
    const r = expectRejection(checkIngress(request, ir, registry), 'A2UI_C2S_SURFACE_STALE', 409);
    expect(r.error.message).toBe('UI is out of date. Please regenerate.');
    expect(r.error.recovery_path).toBe('regenerate');
  }
}

describe('checkIngress: A2UI_C2S_SURFACE_STALE 409 (both adapters)', () => {
  const ir = buildIr();
  const main = surfaceOf(ir);

  it('unknown surface', () => expectStale(ir, bothTransports(main, { surfaceId: 'nosuch' })));

  it('deleted surface', () => {
    const closed = closeSurface(ir, 'main', d());
    expect(closed.ok).toBe(true);
    if (closed.ok) expectStale(closed.ir, bothTransports(main));
  });

  it('expired surface', () => {
    const expired = expireSurface(ir, 'main', d());
    if (expired.ok) expectStale(expired.ir, bothTransports(main));
  });

  it('old epoch after a reset (and the old nonce with it)', () => {
    const reset = resetSurfaceEpoch(ir, 'main', d());
    if (!reset.ok) throw new Error('reset');
    expectStale(reset.ir, bothTransports(main));
    const now = surfaceOf(reset.ir);
    expectStale(reset.ir, bothTransports(now, { epoch: now.epoch + 1 }));
    expectStale(reset.ir, bothTransports(now, { nonce: main.nonce }));
  });

  it('forged nonce, same length and different length', () => {
    const forged = main.nonce.slice(0, -1) + (main.nonce.endsWith('A') ? 'B' : 'A');
    expectStale(ir, bothTransports(main, { nonce: forged }));
    expectStale(ir, bothTransports(main, { nonce: `${main.nonce}x` }));
    expectStale(ir, bothTransports(main, { nonce: 'short' }));
  });

  it('old rev after a commit, and a future rev', () => {
    const committed = commitSurface(ir, 'main', { draft: {}, committed: { name: 'x' } }, d());
    if (!committed.ok) throw new Error('commit');
    expectStale(committed.ir, bothTransports(main));
    expectStale(ir, bothTransports(main, { rev: 5, fields: { name: 'Grace' } }));
  });

  it('old rev after the view was replaced', () => {
    const replaced = openSurface(ir, { id: 'main', view: FORM_VIEW }, d());
    expectStale(replaced, bothTransports(main));
  });

  it('is checked before the allowlist', () => {
    expectStale(ir, bothTransports(main, { rev: 9, action: 'no.such' }));
  });
});

describe('checkIngress: A2UI_C2S_ACTION_FORBIDDEN 403 (both adapters)', () => {
  const ir = deepFreeze(buildIr());
  const main = surfaceOf(ir);

  it.each([
    ['not offered by this surface and not registered', 'no.such'],
    ['offered by the surface but not registered', 'form.unregistered'],
    ['registered but offered by another surface', 'note.ok'],
  ])('action %s', (_label, action) => {
    for (const request of bothTransports(main, { action })) {
      const r = expectRejection(checkIngress(request, ir, registry), 'A2UI_C2S_ACTION_FORBIDDEN', 403);
      expect(r.error.message).toBe('That action is not available here.');
    }
  });

  it('context does not match the action schema, with field issues', () => {
    const [a2ui, html] = bothTransports(main, {
      fields: { name: '', age: 'abc', color: 'blue' },
      html: { name: ' ', age: 'abc', color: 'blue' },
    });
    for (const [request, base] of [[a2ui!, '/userAction/context'], [html!, '']] as const) {
      const r = expectRejection(checkIngress(request, ir, registry), 'A2UI_C2S_ACTION_FORBIDDEN', 403);
      expect(r.issues?.map((i) => i.pointer).sort()).toEqual([`${base}/age`, `${base}/color`, `${base}/name`]);
      expect(r.error.pointer).toBe(r.issues?.[0]?.pointer);
    }
  });

  it('a context schema that throws is an internal error, not a crash', () => {
    const throwing = { ...registry, resolve: (n: string) => {
      const def = registry.resolve(n);
      return def && { ...def, contextSchema: () => { throw new Error('bad schema'); } };
    } };
    const [request] = bothTransports(main);
    expectRejection(checkIngress(request!, ir, throwing), 'INTERNAL_ERROR', 500);
  });
});

describe('checkIngress: accepted', () => {
  it('returns the surface, the action and the coerced context, IR untouched', () => {
    const ir = deepFreeze(buildIr());
    const main = surfaceOf(ir);
    const [a2ui, html] = bothTransports(main, {
      fields: { name: 'Grace', age: '42', agree: true, tags: {}, level: '7' },
      html: { name: 'Grace', age: '42', agree: 'on', level: '7' },
    });
    for (const request of [a2ui!, html!]) {
      const result = checkIngress(request, ir, registry);
      expect(result.ok).toBe(true);
      if (!result.ok) continue;
      expect(result.surface).toBe(main);
      expect(result.action.name).toBe('form.submit');
      expect(result.context).toEqual({ name: 'Grace', age: 42, agree: true, tags: [], level: 7 });
    }
  });
});

describe('checkClientError', () => {
  const ir = deepFreeze(buildIr());
  const request = { kind: 'client_error', transport: 'a2ui', surfaceId: 'main', epoch: 0, clientCode: 'VALIDATION_FAILED' } as const;

  it('asks for the registry recovery (epoch reset) for the current epoch', () => {
    const result = checkClientError(request, ir);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.recovery).toBe('epoch_reset');
    expect(result.error.code).toBe('A2UI_C2S_CLIENT_ERROR');
    expect(result.error.technical_detail).toContain('VALIDATION_FAILED');
  });

  it('is stale for an old epoch or an unknown surface', () => {
    expectRejection(checkClientError({ ...request, epoch: 1 }, ir), 'A2UI_C2S_SURFACE_STALE', 409);
    expectRejection(checkClientError({ ...request, surfaceId: 'gone' }, ir), 'A2UI_C2S_SURFACE_STALE', 409);
  });
});
