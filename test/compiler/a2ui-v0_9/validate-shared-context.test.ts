import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateA2uiV09Messages } from '../../../src/compiler/index.ts';

/**
 * The validator checks a Button context that several buttons share (the compiler gives every
 * button of a surface the same object) once per stream and reports its findings for each button
 * that uses it. Invariant: findings on a stream whose buttons share one context object are
 * exactly the findings on the same stream with a separate copy per button, whatever the
 * context holds (good and bad bindings, reserved keys, non-dynamic values, function calls).
 */
const CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

const arbEntry: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(Number.NaN),
  fc.constantFrom('/draft/a', 'a/b', '/a//b', 'a~2', '/__proto__/x', '', '.').map((path) => ({ path })),
  fc.constantFrom('formatString', 'nope').map((call) => ({ call, args: { value: { path: '/a~' } } })),
  fc.constant({ nested: { path: '//' } }), fc.constant([{ path: 'x' }]), fc.constant({ path: 1 }),
);
const arbContext = fc.dictionary(
  fc.oneof(fc.constantFrom('path', 'call', 'nonce', 'rev', 'constructor'), fc.string({ minLength: 1, maxLength: 3 })),
  arbEntry, { maxKeys: 6 },
);

function stream(contexts: readonly unknown[], names: readonly string[]): unknown[] {
  const buttons = contexts.map((context, i) => ({
    id: `b${i}`, component: 'Button', child: `t${i}`, variant: 'default',
    action: { event: { name: names[i % names.length]!, context } },
  }));
  const labels = contexts.map((_, i) => ({ id: `t${i}`, component: 'Text', text: `Label ${i}` }));
  return [
    { version: 'v0.9', createSurface: { surfaceId: 's', catalogId: CATALOG } },
    { version: 'v0.9', updateComponents: { surfaceId: 's', components: [{ id: 'root', component: 'Column', children: buttons.map((b) => b.id) }, ...buttons.slice(0, 1), ...labels] } },
    { version: 'v0.9', updateComponents: { surfaceId: 's', components: buttons.slice(1) } },
  ];
}

describe('A2UI v0.9 validator: a Button context shared by several buttons', () => {
  it('gives the same findings as a copy of the context per button', () => {
    fc.assert(fc.property(arbContext, fc.integer({ min: 2, max: 4 }), fc.boolean(), (context, count, allowlist) => {
      const copy = (): unknown => structuredClone(context);
      const shared = stream(Array.from({ length: count }, () => context), ['form.submit', 'other']);
      const separate = stream(Array.from({ length: count }, copy), ['form.submit', 'other']);
      const options = allowlist ? { allowedActions: ['form.submit'] } : {};
      const found = validateA2uiV09Messages(shared, options);
      expect(found).toEqual(validateA2uiV09Messages(separate, options));
      // Also when another context comes between two uses of the shared one.
      const between = stream([context, copy(), context], ['form.submit']);
      expect(validateA2uiV09Messages(between, options)).toEqual(validateA2uiV09Messages(stream([copy(), copy(), copy()], ['form.submit']), options));
    }), { numRuns: 300 });
  });

  it('reports each bad entry of a shared context for every button, at that button', () => {
    const context = { ok: { path: '/draft/ok' }, bad: { path: 'a~2' }, path: 'x', n: null };
    const found = validateA2uiV09Messages(stream([context, context], ['form.submit']));
    const pointers = (code: string): (string | undefined)[] => found.filter((v) => v.code === code).map((v) => v.pointer);
    expect(pointers('A2UI_S2C_PATH_INVALID')).toEqual([
      '/1/updateComponents/components/1/action/event/context/bad/path',
      '/2/updateComponents/components/0/action/event/context/bad/path',
    ]);
    expect(pointers('A2UI_S2C_SCHEMA_INVALID')).toEqual([
      '/1/updateComponents/components/1/action/event/context/n',
      '/2/updateComponents/components/0/action/event/context/n',
    ]);
    expect(pointers('A2UI_S2C_ACTION_KEY_RESERVED')).toEqual([
      '/1/updateComponents/components/1/action/event/context/path',
      '/2/updateComponents/components/0/action/event/context/path',
    ]);
  });
});
