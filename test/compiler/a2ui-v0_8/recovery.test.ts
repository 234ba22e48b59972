import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  compileA2uiUpdate, compileConversationToA2ui, compileSurfaceToA2ui, validateA2uiMessages,
  type A2uiCompileOptions, type A2uiSurfaceBatch,
} from '../../../src/compiler/index.ts';
import { openSurface, patchSurfaceData, type Block, type ConversationIr } from '../../../src/ui-ir/index.ts';
import { componentsOf, FIELDS, ok, only, open, view } from './fixtures.ts';
import { feed, newProcessor, silenceWc } from './wc-oracle.ts';

beforeEach(silenceWc);
afterEach(() => { vi.restoreAllMocks(); });

/** `main` with the 14-field form, `side` with one line of text. */
function twoSurfaces(): ConversationIr {
  const { ir, draw } = open('main', view(FIELDS));
  return openSurface(ir, { id: 'side', view: view([{ kind: 'text', text: 'hello', tone: 'body' }], { actions: [] }) }, draw());
}

function expectFallback(batch: A2uiSurfaceBatch, code: string): void {
  expect(batch.kind).toBe('fallback');
  expect(batch.recovery).toBe('surface_fail');
  expect(batch.errors.map((e) => e.code)).toContain(code);
  const id = batch.a2uiSurfaceId;
  const surface = batch.surfaceId;
  // Nothing of the failed batch leaks: only the deleteSurface and the plain-text stand-in.
  expect(batch.messages).toEqual([
    { deleteSurface: { surfaceId: id } },
    { surfaceUpdate: { surfaceId: id, components: [
      { id: `${surface}.fallback.Column`, component: { Column: { children: { explicitList: [`${surface}.fallback.Text`] } } } },
      { id: `${surface}.fallback.Text`, component: { Text: { text: { literalString: 'This panel could not be shown.' }, usageHint: 'body' } } },
    ] } },
    { beginRendering: { surfaceId: id, root: `${surface}.fallback.Column` } },
  ]);
  expect(validateA2uiMessages(batch.messages)).toEqual([]);
  const processor = newProcessor();
  feed(processor, batch.messages);
  expect(processor.getSurfaces().get(id)?.componentTree?.type).toBe('Column');
}

describe('per-surface atomic emission and recovery', () => {
  const cases: [string, A2uiCompileOptions['limits'], string][] = [
    ['components per surface', { maxComponentsPerSurface: 20 }, 'A2UI_S2C_TOO_MANY_COMPONENTS'],
    ['bytes per message', { maxBytesPerMessage: 2000 }, 'A2UI_S2C_MESSAGE_TOO_LARGE'],
    ['bytes per surface', { maxBytesPerSurface: 3000 }, 'A2UI_S2C_SURFACE_TOO_LARGE'],
    ['data entries', { maxDataEntries: 10 }, 'A2UI_S2C_DATA_TOO_LARGE'],
  ];
  for (const [name, limits, code] of cases) {
    it(`a surface over the ${name} limit becomes deleteSurface + fallback; the others are untouched`, () => {
      const ir = twoSurfaces();
      const [main, side] = ok(compileConversationToA2ui(ir, { limits }));
      expectFallback(main!, code);
      expect(side).toMatchObject({ kind: 'init', recovery: 'none' });
      expect(side).toEqual(ok(compileConversationToA2ui(ir)).at(1));
    });
  }

  it('strict mode returns the errors and emits nothing', () => {
    const result = compileConversationToA2ui(twoSurfaces(), { strict: true, limits: { maxComponentsPerSurface: 20 } });
    expect(result.ok).toBe(false);
    expect(result.batches).toEqual([]);
    if (!result.ok) expect(result.errors.map((e) => e.code)).toEqual(['A2UI_S2C_TOO_MANY_COMPONENTS']);
  });

  it('guards data depth and string size', () => {
    const deep = open('main', view([]), { a: { b: { c: { d: 'x' } } } }).ir.surfaces[0]!;
    expectFallback(only(compileSurfaceToA2ui(deep, { limits: { maxDataDepth: 3 } })), 'A2UI_S2C_DATA_TOO_DEEP');
    const long = open('main', view([]), { a: 'x'.repeat(100) }).ir.surfaces[0]!;
    expectFallback(only(compileSurfaceToA2ui(long, { limits: { maxStringBytes: 50 } })), 'A2UI_S2C_DATA_TOO_LARGE');
  });

  it('guards nesting depth on a full init and on a partial update', () => {
    let blocks: Block[] = [{ kind: 'field', name: 'deep', label: 'Deep', control: 'text', required: false }];
    for (let i = 0; i < 6; i += 1) blocks = [{ kind: 'group', layout: 'column', blocks }];
    const { ir, draw } = open('main', view(blocks));
    expectFallback(only(compileSurfaceToA2ui(ir.surfaces[0]!, { limits: { maxNestingDepth: 6 } })), 'A2UI_S2C_NESTING_TOO_DEEP');
    const next = patchSurfaceData(ir, 'main', [{ op: 'replace', namespace: 'draft', keys: ['deep'], value: 'x' }], draw());
    if (!next.ok) throw new Error('patch failed');
    expectFallback(only(compileA2uiUpdate(ir, next.ir, { limits: { maxNestingDepth: 6 } })), 'A2UI_S2C_NESTING_TOO_DEEP');
  });

  it('response limits turn the surfaces that no longer fit into fallbacks', () => {
    const [main, side] = ok(compileConversationToA2ui(twoSurfaces(), { limits: { maxMessagesPerResponse: 9 } }));
    expect(main!.kind).toBe('init');
    expectFallback(side!, 'A2UI_S2C_TOO_MANY_MESSAGES');
    const bytes = ok(compileConversationToA2ui(twoSurfaces(), { limits: { maxBytesPerResponse: 1500 } }));
    expectFallback(bytes[0]!, 'A2UI_S2C_RESPONSE_TOO_LARGE');
  });

  it('a component type outside the allowed catalogue fails the surface', () => {
    const { ir } = open();
    expectFallback(only(compileSurfaceToA2ui(ir.surfaces[0]!, {
      allowedComponents: ['Column', 'Text', 'Row', 'Button', 'TextField', 'CheckBox', 'MultipleChoice', 'Slider', 'DateTimeInput'],
    })), 'A2UI_S2C_COMPONENT_NOT_ALLOWED');
  });

  it('soft_fail: a button whose action is not allowlisted is dropped, the rest renders', () => {
    const { ir } = open();
    const batch = only(compileSurfaceToA2ui(ir.surfaces[0]!, { allowedActions: ['form.submit'] }));
    expect(batch).toMatchObject({ kind: 'init', recovery: 'soft_fail' });
    expect(batch.errors.map((e) => e.code)).toEqual(['A2UI_S2C_ACTION_NOT_ALLOWED']);
    const ids = componentsOf(batch.messages).map((c) => c.id);
    expect(ids).toContain('main.a0-form_submit.Button');
    expect(ids.some((id) => id.startsWith('main.a1-'))).toBe(false);
    expect(validateA2uiMessages(batch.messages, { allowedActions: ['form.submit'] })).toEqual([]);
    feed(newProcessor(), batch.messages);
    const strict = compileSurfaceToA2ui(ir.surfaces[0]!, { allowedActions: ['form.submit'], strict: true });
    expect(strict.ok).toBe(false);
  });

  it('epoch_reset: a type change against what the client holds emits nothing and asks for a new epoch', () => {
    const { ir, draw } = open();
    const next = patchSurfaceData(ir, 'main', [{ op: 'replace', namespace: 'draft', keys: ['name'], value: 'Ada' }], draw());
    if (!next.ok) throw new Error('patch failed');
    const priorTypes = new Map([['main--e0', new Map([['main.a0-form_submit.Button', 'Text']])]]);
    const result = compileA2uiUpdate(ir, next.ir, { priorTypes });
    expect(result.ok && result.epochResets).toEqual(['main']);
    const batch = only(result);
    expect(batch).toMatchObject({ recovery: 'epoch_reset', messages: [], lines: [] });
    expect(batch.errors.map((e) => e.code)).toContain('A2UI_S2C_TYPE_CHANGED');
    expect(compileA2uiUpdate(ir, next.ir, { priorTypes, strict: true }).ok).toBe(false);
  });
});
