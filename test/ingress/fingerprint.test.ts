import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createActionRegistry, createIngress, requestFingerprint, type ActionRequest, type ClientErrorRequest,
} from '../../src/ingress/index.ts';
import { canonicalJson } from '../../src/ingress/fingerprint.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import { a2uiBody, bothTransports, buildIr, decodeSurfaceId, surfaceOf } from './fixtures.ts';

const main = surfaceOf(buildIr());
const ingress = createIngress({ actions: createActionRegistry([]), decodeSurfaceId, source: createSeededSource('fp') });

const base: ActionRequest = {
  kind: 'action', transport: 'a2ui', surfaceId: 'main', epoch: 2, nonce: 'n0nce-1', rev: 5, action: 'form.submit',
  context: { name: 'Grace', tags: ['a', 'b'], nested: { x: 1, y: [true, null] } },
  sourceComponentId: 'main.submit.Button', timestamp: '2026-01-01T00:00:00Z', idempotencyKey: 'k-1',
};
const report: ClientErrorRequest = {
  kind: 'client_error', transport: 'a2ui', surfaceId: 'main', epoch: 0, clientCode: 'VALIDATION_FAILED', path: '/x', message: 'bad',
  idempotencyKey: 'e-1',
};

describe('requestFingerprint: canonical', () => {
  it('does not depend on key order, at any depth', () => {
    const reordered: ActionRequest = { ...base, context: { nested: { y: [true, null], x: 1 }, tags: ['a', 'b'], name: 'Grace' } };
    expect(requestFingerprint(reordered)).toBe(requestFingerprint(base));
    // …nor on the order of the request's own fields.
    const shuffled = Object.fromEntries(Object.entries(base).reverse()) as unknown as ActionRequest;
    expect(requestFingerprint(shuffled)).toBe(requestFingerprint(base));
  });

  it('property: a context is written as the sorting replacer writes it, so digests stored before stay valid', () => {
    // The form the digest had until 2026-12-03: JSON.stringify with a replacer sorting every object's keys.
    const sorted = (_key: string, value: unknown): unknown => (value === null || typeof value !== 'object' || Array.isArray(value)
      ? value : Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('0', '1', '10', '01', '4294967294', '4294967295', '9999999999', '__proto__', 'toJSON', 'a', 'B', 'é'));
    const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(key, scalar, { maxKeys: 3 }), fc.array(fc.dictionary(key, scalar, { maxKeys: 2 }), { maxLength: 2 }));
    const context = fc.tuple(fc.array(fc.tuple(key, value), { maxLength: 6 }), fc.boolean()).map(([entries, bare]) => {
      const o: Record<string, unknown> = bare ? Object.create(null) as Record<string, unknown> : {};
      for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      return o;
    });
    fc.assert(fc.property(fc.oneof(context, value), (c) => {
      expect(canonicalJson(c)).toBe(JSON.stringify([c], sorted).slice(1, -1));
    }), { numRuns: 2000 });
    expect(canonicalJson({ b: 'x', a: ['1', 2, true, null] })).toBe('{"a":["1",2,true,null],"b":"x"}');
    const withHiddenToJson = Object.defineProperty({ a: 1 }, 'toJSON', { value: () => 'x', enumerable: false });
    expect(canonicalJson(withHiddenToJson)).toBe(JSON.stringify([withHiddenToJson], sorted).slice(1, -1));
  });

  it('is a 43-character base64url SHA-256', () => {
    expect(requestFingerprint(base)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('the same body parsed twice gives the same fingerprint (a retry, a double click)', () => {
    const body = a2uiBody(main, { context: { nonce: main.nonce, rev: '0', name: 'Grace', age: 3 } });
    const [one, two] = [ingress.parseA2ui(body), ingress.parseA2ui(body)];
    if (!one.ok || !two.ok) throw new Error('parse');
    expect(requestFingerprint(one.request)).toBe(requestFingerprint(two.request));
    const form = {
      _surface: 'main', _epoch: '0', _nonce: main.nonce, _rev: '0', _action: 'form.submit', _idem: 'r', name: 'Grace', tags: ['a', 'b'],
    };
    const [h1, h2] = [ingress.parseHtml(form), ingress.parseHtml({ ...form })];
    if (!h1.ok || !h2.ok) throw new Error('parse');
    expect(requestFingerprint(h1.request)).toBe(requestFingerprint(h2.request));
  });

  it('leaves out the transport, the client clock, the button node id and the key itself', () => {
    const fp = requestFingerprint(base);
    expect(requestFingerprint({ ...base, transport: 'html' })).toBe(fp);
    expect(requestFingerprint({ ...base, timestamp: '2026-01-01T00:00:09Z' })).toBe(fp);
    const { sourceComponentId: _s, timestamp: _t, ...bare } = base;
    expect(requestFingerprint(bare)).toBe(fp);
    expect(requestFingerprint({ ...base, sourceComponentId: 'other.Button' })).toBe(fp);
    expect(requestFingerprint({ ...base, idempotencyKey: 'k-2' })).toBe(fp);
    // One submission through both adapters: rev "0" and 0 are one rev once parsed.
    const [a2ui, html] = bothTransports(main);
    expect(requestFingerprint(a2ui!)).toBe(requestFingerprint(html!));
  });

  it('a request read back from the log (JSON) has the fingerprint it had live', () => {
    const contexts = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
    fc.assert(fc.property(contexts, fc.boolean(), (context, html) => {
      const live: ActionRequest = { ...base, transport: html ? 'html' : 'a2ui', context };
      const logged = JSON.parse(JSON.stringify(live)) as ActionRequest;
      expect(requestFingerprint(logged)).toBe(requestFingerprint(live));
    }), { numRuns: 300 });
  });
});

describe('requestFingerprint: any change of what the request is changes it', () => {
  const changes: Record<string, (r: ActionRequest) => ActionRequest> = {
    action: (r) => ({ ...r, action: 'form.cancel' }),
    surface: (r) => ({ ...r, surfaceId: 'side' }),
    epoch: (r) => ({ ...r, epoch: r.epoch + 1 }),
    nonce: (r) => ({ ...r, nonce: `${r.nonce}x` }),
    rev: (r) => ({ ...r, rev: r.rev + 1 }),
    'a context value': (r) => ({ ...r, context: { ...r.context, name: 'Grace ' } }),
    'a value type': (r) => ({ ...r, context: { ...r.context, age: '3' } }),
    'a nested value': (r) => ({ ...r, context: { ...r.context, nested: { x: 2, y: [true, null] } } }),
    'array order': (r) => ({ ...r, context: { ...r.context, tags: ['b', 'a'] } }),
    'a key added': (r) => ({ ...r, context: { ...r.context, extra: '' } }),
    'a key removed': (r) => { const { name: _n, ...rest } = r.context; return { ...r, context: rest }; },
  };

  it.each(Object.keys(changes))('%s', (name) => {
    const withAge = { ...base, context: { ...base.context, age: 3 } };
    expect(requestFingerprint(changes[name]!(withAge))).not.toBe(requestFingerprint(withAge));
  });

  it('property: two requests share a fingerprint iff they agree on everything it covers', () => {
    const request = fc.record({
      surfaceId: fc.constantFrom('main', 'side'), epoch: fc.nat({ max: 2 }), nonce: fc.constantFrom('n1', 'n2'),
      rev: fc.nat({ max: 2 }), action: fc.constantFrom('form.submit', 'form.cancel'),
      context: fc.dictionary(
        fc.constantFrom('name', 'age', 'tags'), fc.oneof(fc.constantFrom('', 'a', '1'), fc.nat({ max: 1 }), fc.constant(['a', 'b'])), { maxKeys: 3 },
      ),
      transport: fc.constantFrom<'a2ui' | 'html'>('a2ui', 'html'),
      timestamp: fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z'),
    }).map((r): ActionRequest => ({ kind: 'action', ...r }));
    const covered = (r: ActionRequest): string => JSON.stringify([r.surfaceId, r.epoch, r.nonce, r.rev, r.action,
      Object.entries(r.context).sort(([a], [b]) => (a < b ? -1 : 1))]);
    fc.assert(fc.property(request, request, (a, b) => {
      expect(requestFingerprint(a) === requestFingerprint(b)).toBe(covered(a) === covered(b));
    }), { numRuns: 500 });
  });

  it('a client error report: its code, path, message, surface and epoch', () => {
    const fp = requestFingerprint(report);
    expect(requestFingerprint({ ...report })).toBe(fp);
    for (const changed of [
      { ...report, clientCode: 'OTHER' }, { ...report, path: '/y' }, { ...report, message: 'worse' }, { ...report, surfaceId: 'side' },
      { ...report, epoch: 1 },
      { kind: 'client_error', transport: 'a2ui', surfaceId: 'main', epoch: 0, clientCode: 'VALIDATION_FAILED' } as const,
    ]) expect(requestFingerprint(changed)).not.toBe(fp);
    expect(requestFingerprint({ ...report, idempotencyKey: 'e-2' })).toBe(fp);
  });
});
