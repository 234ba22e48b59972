import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSurfaceToA2ui } from '../../src/compiler/index.ts';
import { surfaceViewModel } from '../../src/compiler/html/index.ts';
import { surfaceToast, type DataMap } from '../../src/ui-ir/index.ts';
import { componentsOf, ok, open } from './a2ui-v0_8/fixtures.ts';

const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean());
const toastValue = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 2 }),
  fc.record({
    level: fc.oneof(fc.constantFrom('info', 'success', 'warning', 'error', 'loud'), scalar),
    text: fc.oneof(fc.constant(''), fc.string({ maxLength: 8 }), scalar),
  }, { requiredKeys: [] }),
);

describe('the in-place toast (/ui/toast)', () => {
  it('property: the HTML and A2UI compilers show it exactly when surfaceToast finds one, with its text and level', () => {
    fc.assert(fc.property(toastValue, (value) => {
      const { ir } = open('main', undefined, undefined, { toast: value } as DataMap);
      const surface = ir.surfaces[0]!;
      const toast = surfaceToast(surface);
      expect(surfaceViewModel(ir, surface).toast).toEqual(toast);
      const batch = ok(compileSurfaceToA2ui(surface))[0]!;
      const shown = componentsOf(batch.messages).some((c) => c.id === 'main.toast.Text');
      expect(shown).toBe(toast !== undefined);
      if (toast) expect(['info', 'success', 'warning', 'error']).toContain(toast.level);
    }), { numRuns: 300 });
  });
});
