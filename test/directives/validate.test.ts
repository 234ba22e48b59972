import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { validateBatch, validateModelOutput, type ValidationResult } from '../../src/directives/index.ts';

const registry = createDemoDirectiveRegistry();
const best = (input: unknown) => validateBatch(registry, input, { mode: 'best_effort' });
const strict = (input: unknown) => validateBatch(registry, input, { mode: 'strict' });
const pairs = (list: ValidationResult['errors']) => list.map((e) => [e.code, e.pointer]);
const toast = { type: 'ui.toast', payload: { level: 'info', text: 'hi' } };

describe('validateBatch', () => {
  it('accepts a canonical batch in strict mode with no diagnostics', () => {
    const r = strict({ directives: [toast, { type: 'ui.show_form', payload: { template: 'persona' } }], assistant_text: 'ok' });
    expect(r).toMatchObject({ ok: true, warnings: [], errors: [], assistantText: 'ok' });
    expect(r.directives.map((d) => d.type)).toEqual(['ui.toast', 'ui.show_form']);
  });

  it('fails closed on unknown types, pointing at /type', () => {
    const r = best({ directives: [toast, { type: 'ui.explode', payload: {} }] });
    expect(pairs(r.errors)).toEqual([['DIRECTIVE_UNKNOWN_TYPE', '/directives/1/type']]);
    expect(r.directives).toHaveLength(1);
    expect(pairs(r.warnings)).toEqual([['DIRECTIVE_WARN_DROPPED', '/directives/1']]);
  });

  it('points payload errors at the exact field', () => {
    const ask = { title: 'T', prompt: 'P', submit: 'Go', fields: [{ name: 'a', label: 'A', type: 'text' }, { name: 'b', label: 'B', type: 'color' }] };
    const r = best({ directives: [toast, toast, { type: 'ui.ask', payload: ask }] });
    expect(pairs(r.errors)).toEqual([['DIRECTIVE_PAYLOAD_INVALID', '/directives/2/payload/fields/1/type']]);
  });

  it('resolves aliases and folded spellings with a warning', () => {
    for (const name of ['toast', 'ui.notify', 'UI.TOAST', 'Ui.Toast']) {
      const r = best({ directives: [{ type: name, payload: toast.payload }] });
      expect(r.directives[0]?.type, name).toBe('ui.toast');
      expect(pairs(r.warnings)).toEqual([['DIRECTIVE_WARN_ALIAS_USED', '/directives/0/type']]);
    }
  });

  it('renames camelCase payload keys the schema declares in snake_case', () => {
    const r = best({ directives: [{ type: 'ui.show_form', payload: { template: 'persona', values: { displayName: 'Sam', speakingStyle: 'formal' } } }] });
    expect(r.directives[0]?.payload).toEqual({ template: 'persona', values: { display_name: 'Sam', speaking_style: 'formal' } });
    expect(pairs(r.warnings)).toEqual([
      ['DIRECTIVE_WARN_KEY_CASE', '/directives/0/payload/values/display_name'],
      ['DIRECTIVE_WARN_KEY_CASE', '/directives/0/payload/values/speaking_style'],
    ]);
  });

  it('moves flat payload fields into payload, but refuses stray keys next to payload', () => {
    const flat = best({ directives: [{ type: 'ui.toast', level: 'info', text: 'hi' }] });
    expect(flat.directives[0]?.payload).toEqual(toast.payload);
    expect(pairs(flat.warnings)).toEqual([['DIRECTIVE_WARN_SHAPE_REPAIRED', '/directives/0']]);
    const stray = best({ directives: [{ ...toast, surface: 'main' }] });
    expect(pairs(stray.errors)).toEqual([['DIRECTIVE_ENVELOPE_INVALID', '/directives/0/surface']]);
  });

  it('coerces scalars the schema asks for, with a warning each', () => {
    const r = best({ directives: [{ type: 'ui.show_form', payload: { template: 'Scene Settings', values: { tone: '7', content_warnings: 'true', genre: 'Sci-Fi' } } }] });
    expect(r.errors).toEqual([]);
    expect(r.directives[0]?.payload).toEqual({ template: 'scene_settings', values: { tone: 7, content_warnings: true, genre: 'sci_fi' } });
    expect(r.warnings.map((w) => w.code).sort()).toEqual([
      'DIRECTIVE_WARN_ALIAS_USED', 'DIRECTIVE_WARN_COERCED', 'DIRECTIVE_WARN_COERCED', 'DIRECTIVE_WARN_COERCED',
    ]);
  });

  it('refuses unknown templates with DIRECTIVE_TEMPLATE_UNKNOWN', () => {
    const r = best({ directives: [{ type: 'ui.show_form', payload: { template: 'spaceship' } }] });
    expect(pairs(r.errors)).toEqual([['DIRECTIVE_TEMPLATE_UNKNOWN', '/directives/0/payload/template']]);
  });

  describe('patch ops', () => {
    const patch = (ops: unknown[]) => best({ directives: [{ type: 'ui.patch', payload: { ops } }] });

    it('normalises op aliases and segment paths', () => {
      const r = patch([{ op: 'set', path: 'tagline', value: 'x' }, { op: 'Delete', path: 'ui/status' }]);
      expect(r.directives[0]?.payload).toEqual({ ops: [{ op: 'replace', path: '/draft/tagline', value: 'x' }, { op: 'remove', path: '/ui/status' }] });
      expect(pairs(r.warnings)).toEqual([
        ['DIRECTIVE_WARN_ALIAS_USED', '/directives/0/payload/ops/0/op'],
        ['DIRECTIVE_WARN_SEGMENT_PATH', '/directives/0/payload/ops/0/path'],
        ['DIRECTIVE_WARN_ALIAS_USED', '/directives/0/payload/ops/1/op'],
        ['DIRECTIVE_WARN_SEGMENT_PATH', '/directives/0/payload/ops/1/path'],
      ]);
    });

    it('never lets a directive write /committed', () => {
      for (const path of ['/committed/name', 'committed/name', 'committed.name']) {
        expect(pairs(patch([{ op: 'replace', path, value: 'x' }]).errors)).toEqual([['DIRECTIVE_COMMITTED_READONLY', '/directives/0/payload/ops/0/path']]);
      }
    });

    it('refuses move/copy/test, bad pointers and whole namespaces', () => {
      expect(pairs(patch([{ op: 'move', from: '/draft/a', path: '/draft/b' }]).errors)[0]).toEqual(['DIRECTIVE_PATCH_OP_INVALID', '/directives/0/payload/ops/0/op']);
      expect(pairs(patch([{ op: 'add', path: '/draft/__proto__', value: 1 }]).errors)).toEqual([['DIRECTIVE_POINTER_INVALID', '/directives/0/payload/ops/0/path']]);
      expect(pairs(patch([{ op: 'add', path: '/other/x', value: 1 }]).errors)).toEqual([['DIRECTIVE_POINTER_INVALID', '/directives/0/payload/ops/0/path']]);
      expect(pairs(patch([{ op: 'remove', path: '/ui' }]).errors)).toEqual([['DIRECTIVE_POINTER_INVALID', '/directives/0/payload/ops/0/path']]);
    });

    it('requires a value for add/replace and drops one given to remove', () => {
      expect(pairs(patch([{ op: 'add', path: '/ui/x' }]).errors)[0]?.[0]).toBe('DIRECTIVE_PAYLOAD_INVALID');
      const r = patch([{ op: 'remove', path: '/ui/x', value: 1 }]);
      expect(r.directives[0]?.payload).toEqual({ ops: [{ op: 'remove', path: '/ui/x' }] });
      expect(pairs(r.warnings)).toEqual([['DIRECTIVE_WARN_COERCED', '/directives/0/payload/ops/0/value']]);
    });
  });

  describe('budgets', () => {
    it('reads at most 64 directives per batch', () => {
      const r = best({ directives: Array.from({ length: 70 }, () => toast) });
      expect(r.directives).toHaveLength(64);
      expect(pairs(r.errors)).toEqual([['DIRECTIVE_BUDGET_EXCEEDED', '/directives/64']]);
      expect(strict({ directives: Array.from({ length: 65 }, () => toast) }).directives).toEqual([]);
    });

    it('drops a directive over 64 KB and refuses a batch over 128 KB', () => {
      const big = { type: 'ui.toast', payload: { level: 'info', text: 'x'.repeat(70 * 1024) } };
      expect(pairs(best({ directives: [toast, big] }).errors)).toEqual([['DIRECTIVE_BUDGET_EXCEEDED', '/directives/1']]);
      const half = { type: 'ui.toast', payload: { level: 'info', text: 'x'.repeat(60 * 1024) } };
      const r = best({ directives: [half, half, half] });
      expect(pairs(r.errors)).toEqual([['DIRECTIVE_BUDGET_EXCEEDED', '']]);
      expect(r.directives).toEqual([]);
    });

    it('refuses deeply nested input before walking it', () => {
      let deep: unknown = 'x';
      for (let i = 0; i < 10_000; i++) deep = [deep];
      expect(pairs(best({ directives: [deep] }).errors)).toEqual([['DIRECTIVE_ENVELOPE_INVALID', '']]);
    });
  });

  describe('strict mode', () => {
    it('turns every repair into DIRECTIVE_NON_CANONICAL at the same pointer and keeps nothing', () => {
      const r = strict({ directives: [toast, { type: 'toast', payload: toast.payload }] });
      expect(r.ok).toBe(false);
      expect(r.directives).toEqual([]);
      expect(pairs(r.errors)).toEqual([['DIRECTIVE_NON_CANONICAL', '/directives/1/type']]);
      expect(r.errors[0]!.technical_detail).toMatch(/^DIRECTIVE_WARN_ALIAS_USED: /);
      expect(pairs(r.warnings)).toEqual([['DIRECTIVE_WARN_ALIAS_USED', '/directives/1/type']]);
    });

    it('treats text repairs as non-canonical too', () => {
      const r = validateModelOutput(registry, `\`\`\`json\n${JSON.stringify({ directives: [toast] })}\n\`\`\``, { mode: 'strict' });
      expect(pairs(r.errors)).toEqual([['DIRECTIVE_NON_CANONICAL', '']]);
    });
  });

  it('does not modify its input', () => {
    const input = { directives: [{ type: 'toast', level: 'Info', text: 'x' }, { type: 'ui.patch', payload: { ops: [{ op: 'set', path: 'a', value: 1 }] } }] };
    const before = structuredClone(input);
    best(input);
    expect(input).toEqual(before);
  });

  it('assistant_text must be a bounded string', () => {
    expect(pairs(best({ directives: [], assistant_text: 5 }).errors)).toEqual([['DIRECTIVE_ENVELOPE_INVALID', '/assistant_text']]);
    expect(best({ directives: [], assistant_text: '' }).assistantText).toBeUndefined();
  });
});
