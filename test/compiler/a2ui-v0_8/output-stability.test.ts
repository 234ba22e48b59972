import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formSurface } from '../../../bench/a2ui-compile.ts';
import {
  a2uiBatchesToJsonl, compileA2uiUpdate, compileConversationToA2ui, compileSurfaceToA2ui, flattenFollowOns, validateA2uiMessages,
  type A2uiCompileOptions, type A2uiCompileResult,
} from '../../../src/compiler/index.ts';
import type { Block, ConversationIr, Surface } from '../../../src/ui-ir/index.ts';
import { FIELDS, open, view } from './fixtures.ts';

/**
 * Output stability: the exact bytes (JSONL lines) and everything else a compilation returns
 * (stats, errors, warnings, recovery, epoch resets) and the validator's exact findings, for a
 * fixed set of inputs, pinned by SHA-256. Performance work on the compiler must not change any
 * of it; the digests were recorded before the 2026-11 optimisation and checked against it.
 *
 * A deliberate output change (or an IR change that alters these inputs) changes digests: check
 * the new output is what you want, then replace the digest printed in the failure.
 */
function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
}

function facts(result: A2uiCompileResult): unknown {
  return {
    ok: result.ok,
    jsonl: a2uiBatchesToJsonl(result.batches),
    errors: result.ok ? [] : result.errors,
    epochResets: result.epochResets,
    batches: result.batches.map((b) => ({
      surfaceId: b.surfaceId, a2uiSurfaceId: b.a2uiSurfaceId, epoch: b.epoch, rev: b.rev, kind: b.kind,
      errors: b.errors, warnings: b.warnings, recovery: b.recovery, stats: b.stats,
      linesMatch: b.lines.length === b.messages.length && b.lines.every((l, i) => l === JSON.stringify(b.messages[i])),
    })),
  };
}

const EVERY_BLOCK: Block[] = [
  { kind: 'heading', text: 'Stats *and* [more]', level: 1 },
  { kind: 'text', text: '- a list\n1. ordered\n# not a heading', tone: 'caption' },
  { kind: 'divider' },
  { kind: 'image', url: 'https://example.com/a.png', alt: 'main.title.Text' },
  { kind: 'image', url: 'ftp://example.com/b.png', alt: 'fallback alt' },
  { kind: 'group', title: 'Row', layout: 'row', blocks: [{ kind: 'text', text: '{"json":1}', tone: 'body' }, { kind: 'value', label: 'Nested', path: '/committed/tags' }] },
  { kind: 'group', title: 'Col', layout: 'column', blocks: [{ kind: 'field', name: 'inner', label: '[x]', control: 'text', required: true, help: 'Help *me*' }] },
  { kind: 'group', layout: 'column', blocks: [] },
  { kind: 'value', label: 'Tags', path: '/committed/tags' },
  { kind: 'upload', name: 'portrait', label: 'Portrait', accept: ['image/*'], purpose: 'avatar', fallback: '' },
  ...FIELDS,
  { kind: 'field', name: 'name', label: 'Name again', control: 'textarea', required: false },
  { kind: 'field', name: 'nonce', label: 'Reserved', control: 'text', required: false },
  { kind: 'field', name: 'hasOwnProperty', label: 'Odd key\u2060', control: 'checkbox', required: false },
];

function withData(s: Surface, data: Partial<Surface['data']>): Surface {
  return { ...s, data: { ...s.data, ...data } };
}

function conversation(...surfaces: Surface[]): ConversationIr {
  return { ...open().ir, surfaces };
}

function cases(): Record<string, () => unknown> {
  const base = open().ir;
  const main = base.surfaces[0]!;
  const every = withData(open('side', view(EVERY_BLOCK)).ir.surfaces[0]!, {
    draft: { name: ['a', 'b'], age: 'forty', agree: 'on', cls: ['mage', 'rogue'], skills: 'lore', level: '7', extra: { deep: { deeper: [1, { x: '[y]' }] } }, '0': 'zero' },
    committed: { tags: ['a', 'b'], when: { at: 'noon' } },
    ui: { toast: { text: 'Saved *now*', level: 'info' } },
  });
  const edited = { ...withData(main, { draft: { ...main.data.draft, name: 'Ada', bio: '{"a":1}' } }), rev: main.rev + 1 };
  const reshaped = { ...edited, view: view(FIELDS.slice(0, 5)), rev: edited.rev + 1 };
  const options: Record<string, A2uiCompileOptions> = {
    plain: {},
    allowlist: { allowedActions: ['form.submit'] },
    strict: { strict: true, allowedActions: ['form.submit'] },
    limits: { limits: { maxComponentsPerSurface: 10, maxBytesPerMessage: 1500, maxDataEntries: 8, maxStringBytes: 4 } },
    depth: { limits: { maxNestingDepth: 3 } },
    styles: { styles: { font: 'Inter', primaryColor: 'teal' } },
    components: { allowedComponents: ['Text', 'Card', 'Column', 'Row', 'Button'] },
  };
  const out: Record<string, () => unknown> = {};
  for (const [name, o] of Object.entries(options)) {
    out[`fixture/${name}`] = () => facts(compileConversationToA2ui(base, o));
    out[`every-block/${name}`] = () => facts(compileSurfaceToA2ui(every, o));
    out[`update/${name}`] = () => facts(compileA2uiUpdate(conversation(main, every), conversation(edited, every), o));
  }
  out['update/reshaped'] = () => facts(compileA2uiUpdate(conversation(edited), conversation(reshaped)));
  out['update/reinit'] = () => facts(compileA2uiUpdate(conversation(main), conversation(edited), { reinit: ['main'] }));
  out['update/epoch'] = () => facts(compileA2uiUpdate(conversation(main), conversation({ ...edited, epoch: 1 })));
  out['update/deleted'] = () => facts(compileA2uiUpdate(conversation(main, every), conversation({ ...main, lifecycle: 'deleted' }, every)));
  out['update/data-only'] = () => facts(compileA2uiUpdate(conversation(every), conversation(withData(every, { committed: { tags: ['c'] }, ui: {} }))));
  for (const n of [10, 100, 1000]) out[`form/${n}`] = () => facts(compileSurfaceToA2ui(formSurface(n)));
  // The validator on broken streams: every finding, in order, with its pointer.
  const good = compileSurfaceToA2ui(every).batches[0]!.messages;
  const broken = JSON.parse(JSON.stringify(good)) as any[];
  const list = broken[0].surfaceUpdate.components as any[];
  list[1].component.Column.children.explicitList.push(list[0].id, 'nowhere.Text', list[1].id);
  list[2].component.Text.text = { literalString: list[3].id };
  list.push({ ...list[3] }, { id: list[4].id, component: { Row: { children: { explicitList: [] } } } });
  list.push({ id: 'tmpl.Column', component: { Column: { children: { template: { componentId: 'side.title.Text', dataBinding: '/nothing' } } } }, weight: 'x' });
  list[5].component = { Text: { text: { literalString: list[6].id, path: '/x' } }, Bogus: {} };
  broken[1].dataModelUpdate.contents.push({ key: 'a/b', valueString: 'x' }, { key: 'm', valueMap: [{ key: 'n', valueMap: [] }] });
  broken.push({ beginRendering: { surfaceId: 'other--e0', root: 'r', styles: { primaryColor: '#12' } } }, { surfaceUpdate: { surfaceId: 'other--e0', components: [] } });
  for (const [name, o] of Object.entries({ full: {}, incremental: { incremental: true }, shallow: { maxNestingDepth: 2 }, actions: { allowedActions: ['nope'] } })) {
    // Flattened: the same findings as before follow-ons were folded (follow-ons.test.ts pins the folding); the
    // digests changed in 2026-11 only because a follow-on now comes right after the finding it follows from.
    out[`validate/${name}`] = () => flattenFollowOns(validateA2uiMessages(broken, o));
    out[`validate-good/${name}`] = () => validateA2uiMessages(good, o);
  }
  return out;
}

const EXPECTED: Record<string, string> = {
  'fixture/plain': 'db84bfe5cca26bea27c6e92d5f0d5ffc',
  'every-block/plain': 'bdba68c700a11cdbf143e658c57c26b1',
  'update/plain': '0ef698a3a42e5b1a7bf6db01647c0941',
  'fixture/allowlist': '0365520ff1014ced27223bd1442da1cb',
  'every-block/allowlist': 'ba2bbd17308dce7294790f5b08ddbd14',
  'update/allowlist': '7197eb11ef5057e879e17a2401a2afa7',
  'fixture/strict': '9590074bc8d06821ab916d06b9c4e1e6',
  'every-block/strict': '047134f3e640f9dd66e6b355cac67f88',
  'update/strict': '9590074bc8d06821ab916d06b9c4e1e6',
  'fixture/limits': '908c1cf77e044c5cd01defc71950f383',
  'every-block/limits': '9b8494ea97828fdb69e920c15dba189c',
  'update/limits': 'd851c4aaf4a9579a9b9081a28d9994fb',
  'fixture/depth': '40f8fec8e4b3024ae2fce5fe79ebb199',
  'every-block/depth': 'a474fa353864eb679879fa277c788f89',
  'update/depth': 'e28d79579705703fb816ecdfb2a70a7e',
  'fixture/styles': '05c2bea5a8b90348630b127ec93f7329',
  'every-block/styles': 'c7e6261d2a054959979618aca65596e4',
  'update/styles': '6eee8ea151f253188834146cd24951ab',
  'fixture/components': 'e27cedbb1a245e4e80651a42ff37fdfb',
  'every-block/components': 'c95ae075c62dc5055fbd943c6fde854b',
  'update/components': '0ef698a3a42e5b1a7bf6db01647c0941',
  'update/reshaped': '914b079583782f4e259b06fefd753bf3',
  'update/reinit': '0ab830aa13828544f7b370dbb887be81',
  'update/epoch': 'ea8c907f072134b812da40cda2edd408',
  'update/deleted': '478af7a8dad36f21ff50568cd1be4387',
  'update/data-only': '13d5044af0dd8f3b610de6bbdde9db96',
  'form/10': '6d9de68d57f4fd5a7b8eb4f0761e1967',
  'form/100': '1cfa3407bc5e7ae01372ca40426e1030',
  'form/1000': 'cb27d91a1fd9c2ed23c40393d5ecbeae',
  'validate/full': 'd18131ddd757709212e82a223e49aa30',
  'validate-good/full': '4f53cda18c2baa0c0354bb5f9a3ecbe5',
  'validate/incremental': 'e8ef0ccc48fa2c5826c3a85defcdcdea',
  'validate-good/incremental': '4f53cda18c2baa0c0354bb5f9a3ecbe5',
  'validate/shallow': 'd18131ddd757709212e82a223e49aa30',
  'validate-good/shallow': '46373b076830ef6b1a111b510baa8e86',
  'validate/actions': '07914d88ae2349b50cc73f9211367a17',
  'validate-good/actions': 'cdb8e8037827c6374e4523c972e11976',
};

describe('A2UI compiler output stability (bytes, stats, findings)', () => {
  it('matches the recorded digests', () => {
    const actual: Record<string, string> = {};
    for (const [name, run] of Object.entries(cases())) actual[name] = digest(run());
    expect(actual).toEqual(EXPECTED);
  });
});
