import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isErrorCode, SurfacerErrorSchema } from '../../src/errors/index.ts';
import {
  applyIngress, checkClientError, checkIngress, DEFAULT_INGRESS_LIMITS, parseA2uiClientEvent, parseHtmlFormAction,
  type ParseResult, type IngressRequest, type Rejection,
} from '../../src/ingress/index.ts';
import { commitSurface, resetSurfaceEpoch, type ConversationIr } from '../../src/ui-ir/index.ts';
import { buildIr, createTestActions, decodeSurfaceId, deepFreeze, encodeSurfaceId, nextDraw, surfaceOf, userAction } from './fixtures.ts';

/** `main` at epoch 2, rev 1: older epochs, revs and nonces exist to be replayed. */
function agedIr(): { ir: ConversationIr; oldNonces: string[] } {
  const d = nextDraw('fuzz');
  let ir = buildIr('fuzz');
  const oldNonces = [surfaceOf(ir).nonce];
  for (let i = 0; i < 2; i++) {
    const r = resetSurfaceEpoch(ir, 'main', d());
    if (!r.ok) throw new Error('reset');
    ir = r.ir;
    oldNonces.push(surfaceOf(ir).nonce);
  }
  const c = commitSurface(ir, 'main', { draft: {}, committed: {} }, d());
  if (!c.ok) throw new Error('commit');
  ir = deepFreeze(c.ir);
  return { ir, oldNonces: oldNonces.slice(0, -1) };
}

const { ir, oldNonces } = agedIr();
const snapshot = structuredClone(ir);
const main = surfaceOf(ir);
const { registry, calls } = createTestActions();
const ALLOWED_ON_MAIN = new Set(['form.submit', 'form.cancel']);

/** The pure pipeline a host runs: parse → check → apply. Returns what it would answer. */
function pipeline(parsed: ParseResult<IngressRequest>): Rejection | { ok: true; kind: string } {
  if (!parsed.ok) return parsed;
  if (parsed.request.kind === 'client_error') {
    const r = checkClientError(parsed.request, ir);
    return r.ok ? { ok: true, kind: 'recover' } : r;
  }
  const checked = checkIngress(parsed.request, ir, registry);
  if (!checked.ok) return checked;
  const applied = applyIngress(ir, checked, nextDraw()());
  return applied.ok ? { ok: true, kind: 'applied' } : applied;
}

function expectRejectedWithoutEffect(result: Rejection | { ok: true; kind: string }): void {
  expect(result.ok, JSON.stringify(result)).toBe(false);
  const r = result as Rejection;
  expect(isErrorCode(r.error.code)).toBe(true);
  expect(SurfacerErrorSchema.safeParse(r.error).success).toBe(true);
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.status).toBeLessThan(500);
  expect(calls).toHaveLength(0);
  expect(ir).toEqual(snapshot);
}

const body = (ua: Record<string, unknown>): string => JSON.stringify({ userAction: ua });
const ua = (patch: Record<string, unknown> = {}): Record<string, unknown> => ({ ...userAction(main).userAction, ...patch });
const ctx = (patch: Record<string, unknown>): Record<string, unknown> => ({ nonce: main.nonce, rev: main.rev, name: 'Grace', ...patch });
/** Built as text: JSON.stringify itself recurses and would overflow on the deepest cases. */
const nestedBody = (depth: number): string =>
  body(ua({ context: ctx({ deep: '@' }) })).replace('"@"', `${'['.repeat(depth)}"x"${']'.repeat(depth)}`);
const unsafeId = fc.string({ maxLength: 140 }).filter((s) => !/^[A-Za-z0-9_.:-]{1,128}$/.test(s));

const staleTuple = fc.record({
  epoch: fc.nat({ max: 5 }),
  rev: fc.oneof(fc.nat({ max: 5 }), fc.nat({ max: 5 }).map(String)),
  nonce: fc.oneof(fc.constantFrom(main.nonce, ...oldNonces), fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/)),
}).filter((t) => !(t.epoch === main.epoch && Number(t.rev) === main.rev && t.nonce === main.nonce));

/** Bodies that must all be refused, each aimed at one check. */
const badBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }),
  fc.json({ maxDepth: 6 }),
  fc.anything({ maxDepth: 4 }).map((v) => JSON.stringify({ userAction: v }) ?? 'undefined'),
  fc.anything({ maxDepth: 3 }).map((v) => JSON.stringify({ error: v }) ?? 'undefined')
    .filter((s) => !s.includes(`"${encodeSurfaceId('main', main.epoch)}"`) && !s.includes(`"${encodeSurfaceId('side', 0)}"`)),
  // stale or forged epoch / rev / nonce, otherwise perfect
  staleTuple.map((t) => body(ua({ surfaceId: encodeSurfaceId('main', t.epoch), context: ctx({ nonce: t.nonce, rev: t.rev }) }))),
  // one required field replaced by a value of the wrong type, or removed
  fc.record({
    field: fc.constantFrom('name', 'surfaceId', 'sourceComponentId', 'timestamp', 'context'),
    value: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.constant(undefined)),
  }).map(({ field, value }) => body(ua({ [field]: value }))),
  // bad charsets and lengths for the echoed ids
  unsafeId.map((s) => body(ua({ surfaceId: s }))),
  unsafeId.map((s) => body(ua({ sourceComponentId: s }))),
  // actions not allowlisted for main now
  fc.string({ maxLength: 130 }).filter((s) => !ALLOWED_ON_MAIN.has(s)).map((name) => body(ua({ name, context: ctx({}) }))),
  // contexts that no schema of main accepts
  fc.oneof(
    fc.string({ maxLength: 20 }).filter((s) => !/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(s) && s.trim() !== '').map((age) => ctx({ age })),
    fc.string({ maxLength: 20 }).filter((c) => c !== 'red' && c !== 'green' && c !== '').map((color) => ctx({ color })),
    fc.constantFrom(ctx({ name: '' }), ctx({ name: '   ' }), ctx({ level: '11' }), ctx({ tags: ['z'] }), ctx({ agree: 'maybe' })),
  ).map((context) => body(ua({ context }))),
  // sizes: long strings, deep nesting, many keys, huge bodies
  fc.integer({ min: DEFAULT_INGRESS_LIMITS.maxStringLength + 1, max: 70_000 }).map((n) => body(ua({ context: ctx({ name: 'a'.repeat(n) }) }))),
  fc.integer({ min: 4, max: 20_000 }).map(nestedBody),
  fc.integer({ min: 255, max: 3_000 }).map((n) => body(ua({ context: ctx(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, '']))) }))),
  fc.integer({ min: DEFAULT_INGRESS_LIMITS.maxBodyBytes + 1, max: 200_000 }).map((n) => ' '.repeat(n)),
  // extra or missing envelope keys
  fc.constantFrom(
    JSON.stringify({ ...userAction(main), error: {} }),
    JSON.stringify({ ...userAction(main), extra: 1 }),
    JSON.stringify({}),
  ),
);

describe('fuzz: the pure pipeline refuses bad A2UI bodies without effect', () => {
  it('2,500 generated bodies: never throws, never changes state, always a registered 4xx', () => {
    fc.assert(fc.property(badBody, (b) => {
      let result: Rejection | { ok: true; kind: string };
      expect(() => { result = pipeline(parseA2uiClientEvent(b, { decodeSurfaceId })); }).not.toThrow();
      expectRejectedWithoutEffect(result!);
    }), { numRuns: 2_500 });
  });
});

const field = fc.oneof(fc.string({ maxLength: 40 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }));
const validHtml = (): Record<string, string | string[]> => ({
  _surface: 'main', _epoch: String(main.epoch), _nonce: main.nonce, _rev: String(main.rev), _action: 'form.submit', name: 'Grace',
});

const badForm: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 12 }), field, { maxKeys: 12 }),
  fc.dictionary(fc.constantFrom('_surface', '_epoch', '_nonce', '_rev', '_action', '_idem', 'name', 'age'), field)
    .filter((d) => Object.keys(d).some((k) => k !== 'name' && k !== 'age')),
  staleTuple.map((t) => ({ ...validHtml(), _epoch: String(t.epoch), _rev: String(t.rev), _nonce: t.nonce })),
  fc.string({ maxLength: 130 }).filter((s) => !ALLOWED_ON_MAIN.has(s)).map((a) => ({ ...validHtml(), _action: a })),
  fc.record({
    key: fc.constantFrom('_surface', '_epoch', '_nonce', '_rev', '_action'),
    value: fc.oneof(fc.constant(undefined), fc.array(fc.string(), { minLength: 2, maxLength: 3 }), fc.integer(), unsafeId),
  }).map(({ key, value }) => ({ ...validHtml(), [key]: value })),
  fc.integer({ min: 1, max: 2_000 }).map((n) => ({ ...validHtml(), name: 'é'.repeat(DEFAULT_INGRESS_LIMITS.maxStringLength + n) })),
  fc.integer({ min: 251, max: 2_000 }).map((n) => ({ ...validHtml(), ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 'x'])) })),
  // not a form value at all (the host's parser never produces these)
  fc.anything({ maxDepth: 2 }).filter((v) => v !== undefined && typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string')))
    .map((v) => ({ ...validHtml(), age: v as never })),
);

describe('fuzz: the pure pipeline refuses bad HTML forms without effect', () => {
  it('1,000 generated forms: never throws, never changes state, always a registered 4xx', () => {
    fc.assert(fc.property(badForm, (fields) => {
      let result: Rejection | { ok: true; kind: string };
      expect(() => { result = pipeline(parseHtmlFormAction(fields as never)); }).not.toThrow();
      expectRejectedWithoutEffect(result!);
    }), { numRuns: 1_000 });
  });
});
