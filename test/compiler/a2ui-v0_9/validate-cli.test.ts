import { describe, expect, it } from 'vitest';
import { validateA2uiV09Messages } from '../../../src/compiler/index.ts';
import { officialExamples, type V09Example } from '../../support/a2ui-v0_9-examples.ts';
import { codesOf, validateCli } from '../a2ui-v0_8/cli-io.ts';

/**
 * `surfacer validate --a2ui-version 0.9` over the 43 official v0.9 example streams, and over a
 * broken variant of each of them per semantic class, in full mode (the stream as is) and in
 * incremental mode (the same stream without createSurface, run with --incremental: the client
 * already holds the surface, so what needs the client's whole state cannot be judged there).
 */
type Msg = Record<string, any>;
type Stream = Msg[];

const examples = officialExamples();
const V = ['--a2ui-version', '0.9'];

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const surfaceOf = (ms: Stream): string => lastUpdate(ms).updateComponents.surfaceId as string;
const updateWithRoot = (ms: Stream): Msg => ms.find((m) => m.updateComponents?.components.some((c: Msg) => c.id === 'root'))!;
const lastUpdate = (ms: Stream): Msg => ms.filter((m) => m.updateComponents).at(-1)!;
const text = (id: string, t: unknown = 'x'): Msg => ({ id, component: 'Text', text: t });
const v09 = (body: Msg): Msg => ({ version: 'v0.9', ...body });
const CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

/** Adds `components` in a new message, the first one shown by the root's children (or a new root Column holding it). */
function attach(ms: Stream, ...components: Msg[]): void {
  const surfaceId = surfaceOf(ms);
  const root = updateWithRoot(ms).updateComponents.components.find((c: Msg) => c.id === 'root');
  if (Array.isArray(root.children)) root.children.push(components[0]!.id);
  else {
    const old = { ...root, id: 'mut-old-root' };
    Object.keys(root).forEach((k) => delete root[k]);
    Object.assign(root, { id: 'root', component: 'Column', children: ['mut-old-root', components[0]!.id] });
    updateWithRoot(ms).updateComponents.components.push(old);
  }
  ms.push(v09({ updateComponents: { surfaceId, components } }));
}

function incrementalOf(ms: Stream): Stream {
  return ms.filter((m) => !m.createSurface);
}

async function check(ex: V09Example, mutate: (ms: Stream) => void, mode: 'full' | 'incremental'): Promise<{ code: number; codes: string[]; stdout: string }> {
  const base = mode === 'full' ? clone(ex.messages) : incrementalOf(clone(ex.messages));
  mutate(base);
  const args = mode === 'full' ? [...V, '-'] : ['--incremental', ...V, '-'];
  const { code, stdout } = await validateCli(args, base.map((m) => JSON.stringify(m)).join('\n'));
  return { code, codes: codesOf(stdout), stdout };
}

interface Case {
  code: string;
  mutate: (ms: Stream) => void;
  /** In incremental mode the variant cannot be judged (it needs the client's whole state). */
  incrementalOk?: boolean;
  /** The finding is a warning: the stream is still valid (exit 0). */
  warning?: boolean;
}

const chain = (n: number): Msg[] => [
  ...Array.from({ length: n }, (_, i) => ({ id: `mut-n${i}`, component: 'Card', child: `mut-n${i + 1}` })), text(`mut-n${n}`),
];

const CASES: Record<string, Case> = {
  'exactly one message kind': { code: 'A2UI_S2C_MESSAGE_SHAPE', mutate: (ms) => { lastUpdate(ms).deleteSurface = { surfaceId: surfaceOf(ms) }; } },
  'the v0.9 version': { code: 'A2UI_S2C_MESSAGE_SHAPE', mutate: (ms) => { lastUpdate(ms).version = 'v0.8'; } },
  'a component type name': { code: 'A2UI_S2C_COMPONENT_TYPE_INVALID', mutate: (ms) => attach(ms, { id: 'mut-untyped', text: 'x' }) },
  'a basic-catalogue type': { code: 'A2UI_S2C_COMPONENT_NOT_ALLOWED', mutate: (ms) => attach(ms, { id: 'mut-foo', component: 'Foo' }) },
  'catalogue properties': { code: 'A2UI_S2C_SCHEMA_INVALID', mutate: (ms) => attach(ms, { ...text('mut-tint'), tint: 'red' }) },
  'ids': { code: 'A2UI_S2C_ID_INVALID', mutate: (ms) => attach(ms, text('mut:colon')) },
  'duplicate ids': { code: 'A2UI_S2C_DUPLICATE_ID', mutate: (ms) => { const cs = lastUpdate(ms).updateComponents.components; cs.push(clone(cs.at(-1))); } },
  'dangling child reference': {
    code: 'A2UI_S2C_DANGLING_CHILD', incrementalOk: true, mutate: (ms) => attach(ms, { id: 'mut-card', component: 'Card', child: 'mut-ghost' }),
  },
  'self reference': { code: 'A2UI_S2C_SELF_REFERENCE', mutate: (ms) => attach(ms, { id: 'mut-self', component: 'Card', child: 'mut-self' }) },
  'cycle': {
    code: 'A2UI_S2C_CYCLE',
    mutate: (ms) => attach(ms, { id: 'mut-a', component: 'Column', children: ['mut-b'] }, { id: 'mut-b', component: 'Card', child: 'mut-a' }),
  },
  'a root component': {
    code: 'A2UI_S2C_ROOT_MISSING', incrementalOk: true,
    mutate: (ms) => { for (const m of ms) if (m.updateComponents) m.updateComponents.components = m.updateComponents.components.map((c: Msg) => (c.id === 'root' ? { ...c, id: 'mut-not-root' } : c)); },
  },
  'orphans': { code: 'A2UI_S2C_UNREACHABLE_COMPONENT', incrementalOk: true, mutate: (ms) => { updateWithRoot(ms).updateComponents.components.push(text('mut-orphan')); } },
  'template component reachability': {
    code: 'A2UI_S2C_TEMPLATE_DANGLING', incrementalOk: true,
    mutate: (ms) => attach(ms, { id: 'mut-list', component: 'List', children: { componentId: 'mut-ghost', path: '/items' } }),
  },
  'template data': {
    code: 'A2UI_S2C_TEMPLATE_UNBOUND', warning: true, incrementalOk: true,
    mutate: (ms) => attach(ms, { id: 'mut-list', component: 'List', children: { componentId: 'mut-item', path: '/mut-never' } }, text('mut-item', { path: 'name' })),
  },
  'nesting depth': { code: 'A2UI_S2C_NESTING_TOO_DEEP', incrementalOk: true, mutate: (ms) => attach(ms, ...chain(60)) },
  'component type stability': {
    code: 'A2UI_S2C_TYPE_CHANGED',
    mutate: (ms) => { attach(ms, text('mut-t')); ms.push(v09({ updateComponents: { surfaceId: surfaceOf(ms), components: [{ id: 'mut-t', component: 'Divider' }] } })); },
  },
  'binding paths': { code: 'A2UI_S2C_PATH_INVALID', mutate: (ms) => attach(ms, text('mut-path', { path: '/user//name' })) },
  'http(s) URLs only': { code: 'A2UI_S2C_URL_NOT_ALLOWED', mutate: (ms) => attach(ms, { id: 'mut-img', component: 'Image', url: 'javascript:alert(1)' }) },
  'actions the renderer can send': {
    code: 'A2UI_S2C_ACTION_KEY_RESERVED',
    mutate: (ms) => attach(ms, { id: 'mut-btn', component: 'Button', child: 'mut-l', action: { event: { name: 'go', context: { path: { path: '/a' } } } } }, text('mut-l')),
  },
  'updates only for created surfaces': {
    code: 'A2UI_S2C_SURFACE_NOT_CREATED',
    mutate: (ms) => { const at = ms.indexOf(lastUpdate(ms)); ms.splice(at, 0, v09({ deleteSurface: { surfaceId: surfaceOf(ms) } })); },
  },
  'one createSurface per live surface': {
    code: 'A2UI_S2C_SURFACE_EXISTS',
    mutate: (ms) => { const c = v09({ createSurface: { surfaceId: 'mut-s', catalogId: CATALOG } }); ms.push(c, clone(c), v09({ updateComponents: { surfaceId: 'mut-s', components: [text('root')] } })); },
  },
  'a catalogue the client has': {
    code: 'A2UI_S2C_CATALOG_UNKNOWN',
    mutate: (ms) => { ms.push(v09({ createSurface: { surfaceId: 'mut-s', catalogId: 'urn:mut' } }), v09({ updateComponents: { surfaceId: 'mut-s', components: [text('root')] } })); },
  },
  'data writes the client takes': {
    code: 'A2UI_S2C_DATA_PATH_CONFLICT', incrementalOk: true,
    mutate: (ms) => { const s = surfaceOf(ms); ms.push(v09({ updateDataModel: { surfaceId: s, path: '/mut', value: 1 } }), v09({ updateDataModel: { surfaceId: s, path: '/mut/x', value: 2 } })); },
  },
  'data keys': {
    code: 'A2UI_S2C_DATA_KEY_INVALID',
    mutate: (ms) => { ms.push(v09({ updateDataModel: { surfaceId: surfaceOf(ms), path: '/mut', value: JSON.parse('{"__proto__":{"x":1}}') } })); },
  },
};

describe('surfacer validate --a2ui-version 0.9', () => {
  it('accepts the 43 official v0.9 example streams, in full and incremental mode', async () => {
    expect(examples).toHaveLength(43);
    for (const ex of examples) {
      const full = await validateCli([...V, '-'], JSON.stringify(ex.messages));
      expect(full.stdout, ex.name).toBe('');
      expect(full.code, ex.name).toBe(0);
      const inc = await validateCli(['--incremental', ...V, '-'], incrementalOf(ex.messages).map((m) => JSON.stringify(m)).join('\n'));
      expect(inc.stdout, ex.name).toBe('');
      expect(inc.code, ex.name).toBe(0);
    }
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(`rejects broken variants: ${name} → ${c.code}`, async () => {
      for (const ex of examples) {
        const full = await check(ex, c.mutate, 'full');
        expect(full.code, `${ex.name} full\n${full.stdout}`).toBe(c.warning ? 0 : 1);
        expect(full.codes, `${ex.name} full`).toContain(c.code);
        expect(full.stdout).toMatch(new RegExp(`^${c.code} message \\d+: ${c.warning ? 'warning: ' : ''}`, 'm'));
        const inc = await check(ex, c.mutate, 'incremental');
        if (c.incrementalOk) {
          expect(inc.code, `${ex.name} incremental\n${inc.stdout}`).toBe(0);
        } else {
          expect(inc.code, `${ex.name} incremental\n${inc.stdout}`).toBe(1);
          expect(inc.codes, `${ex.name} incremental`).toContain(c.code);
        }
      }
    });
  }

  it('full mode needs createSurface for every surface it updates; incremental mode does not', async () => {
    for (const ex of examples) {
      const stream = incrementalOf(ex.messages).map((m) => JSON.stringify(m)).join('\n');
      const full = await validateCli([...V, '-'], stream);
      expect(full.code).toBe(1);
      expect(new Set(codesOf(full.stdout))).toEqual(new Set(['A2UI_S2C_SURFACE_NOT_CREATED']));
    }
  });

  it('validates v0.8 streams as v0.8 by default and refuses them as v0.9; refuses an unknown version', async () => {
    const v08 = JSON.stringify([{ deleteSurface: { surfaceId: 's' } }]);
    expect((await validateCli(['-'], v08)).code).toBe(0);
    const as09 = await validateCli([...V, '-'], v08);
    expect(as09.code).toBe(1);
    expect(codesOf(as09.stdout)).toEqual(['A2UI_S2C_MESSAGE_SHAPE']);
    const bad = await validateCli(['--a2ui-version', '1.0', '-'], '[]');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown --a2ui-version '1.0'/);
  });

  it('an update before createSurface: full mode, the surface is not created yet; incremental mode, the client holds it already', () => {
    const stream = [v09({ updateDataModel: { surfaceId: 's', value: {} } }), v09({ createSurface: { surfaceId: 's', catalogId: CATALOG } }),
      v09({ updateComponents: { surfaceId: 's', components: [text('root')] } })];
    expect(validateA2uiV09Messages(stream).map((v) => [v.code, v.messageIndex])).toEqual([['A2UI_S2C_SURFACE_NOT_CREATED', 0]]);
    expect(validateA2uiV09Messages(stream, { incremental: true }).map((v) => [v.code, v.messageIndex])).toEqual([['A2UI_S2C_SURFACE_EXISTS', 1]]);
  });

  it('names an orphan by id (the compiler drops it by id)', () => {
    const ms = clone(examples[0]!.messages);
    updateWithRoot(ms).updateComponents.components.push(text('mut-orphan'));
    expect(validateA2uiV09Messages(ms).map((v) => [v.code, v.componentId])).toEqual([['A2UI_S2C_UNREACHABLE_COMPONENT', 'mut-orphan']]);
  });
});
