import { describe, expect, it } from 'vitest';
import { validateA2uiMessages } from '../../../src/compiler/index.ts';
import { codesOf, EXAMPLES_DIR, EXAMPLES_SKIP, loadExamples, validateCli, type Example } from './cli-io.ts';

/**
 * `surfacer validate` over the official example streams, and over broken variants of each of
 * them: one test per violation class, in full mode (the stream as is) and in incremental mode
 * (the same stream without beginRendering, run with --incremental).
 */
type Msg = Record<string, any>;
type Stream = Msg[];

const examples = loadExamples();

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function surfaceUpdateOf(ms: Stream): { surfaceId: string; components: Msg[] } {
  return ms.find((m) => m.surfaceUpdate)!.surfaceUpdate;
}

function rootOf(ms: Stream): string {
  return ms.find((m) => m.beginRendering)?.beginRendering.root ?? surfaceUpdateOf(ms).components[0]!.id;
}

function typeOf(c: Msg): string {
  return Object.keys(c.component)[0]!;
}

function propsOf(c: Msg): Msg {
  return c.component[typeOf(c)];
}

/** Adds `components` and makes the first reachable explicit list (or a new root Column) show the first one. */
function attach(ms: Stream, ...components: Msg[]): void {
  const su = surfaceUpdateOf(ms);
  const byId = new Map(su.components.map((c) => [c.id, c]));
  const queue = [rootOf(ms)];
  const seen = new Set<string>();
  let list: Msg | undefined;
  while (queue.length > 0 && !list) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const c = byId.get(id);
    if (!c) continue;
    const p = propsOf(c);
    if (p.children?.explicitList) list = c;
    else {
      for (const k of ['child', 'entryPointChild', 'contentChild']) if (typeof p[k] === 'string') queue.push(p[k]);
      for (const t of p.tabItems ?? []) queue.push(t.child);
    }
  }
  su.components.push(...components);
  if (components.length === 0) return;
  if (list) {
    propsOf(list).children.explicitList.push(components[0]!.id);
    return;
  }
  const root = rootOf(ms);
  su.components.push({ id: 'mut-root', component: { Column: { children: { explicitList: [root, components[0]!.id] } } } });
  const br = ms.find((m) => m.beginRendering);
  if (br) br.beginRendering.root = 'mut-root';
}

function firstText(ms: Stream): Msg | undefined {
  return surfaceUpdateOf(ms).components.find((c) => typeOf(c) === 'Text' && propsOf(c).text.literalString !== undefined);
}

function addData(ms: Stream, contents: Msg[], path?: string): void {
  const surfaceId = surfaceUpdateOf(ms).surfaceId;
  const at = ms.findIndex((m) => m.beginRendering);
  const msg = { dataModelUpdate: { surfaceId, ...(path ? { path } : {}), contents } };
  if (at < 0) ms.push(msg);
  else ms.splice(at, 0, msg);
}

const text = (id: string, s = 'x'): Msg => ({ id, component: { Text: { text: { literalString: s } } } });

function incrementalOf(ms: Stream): Stream {
  return ms.filter((m) => !m.beginRendering);
}

async function check(ex: Example, mutate: (ms: Stream) => void, mode: 'full' | 'incremental'): Promise<{ code: number; codes: string[]; stdout: string }> {
  const base = mode === 'full' ? clone(ex.messages) : incrementalOf(clone(ex.messages));
  mutate(base);
  const { code, stdout } = await validateCli(mode === 'full' ? ['-'] : ['--incremental', '-'], base.map((m) => JSON.stringify(m)).join('\n'));
  return { code, codes: codesOf(stdout), stdout };
}

interface Case {
  code: string;
  mutate: (ms: Stream) => void;
  /** In incremental mode the variant is legal (root and reachability are full-init rules). */
  incrementalOk?: boolean;
  /** Only applicable to some examples. */
  applies?: (ms: Stream) => boolean;
}

const CASES: Record<string, Case> = {
  'exactly one message key': {
    code: 'A2UI_S2C_MESSAGE_SHAPE',
    mutate: (ms) => { const su = ms.find((m) => m.surfaceUpdate)!; su.deleteSurface = { surfaceId: su.surfaceUpdate.surfaceId }; },
  },
  'exactly one component type key': {
    code: 'A2UI_S2C_COMPONENT_TYPE_INVALID',
    mutate: (ms) => { const c = surfaceUpdateOf(ms).components.at(-1)!; c.component.Divider = {}; },
  },
  'known component type': {
    code: 'A2UI_S2C_COMPONENT_NOT_ALLOWED',
    mutate: (ms) => attach(ms, { id: 'mut-foo', component: { Foo: { text: 'x' } } }),
  },
  'unknown property (catalogue schema)': {
    code: 'A2UI_S2C_SCHEMA_INVALID',
    mutate: (ms) => { propsOf(surfaceUpdateOf(ms).components.at(-1)!).accessibility = { label: 'x' }; },
  },
  'duplicate ids': {
    code: 'A2UI_S2C_DUPLICATE_ID',
    mutate: (ms) => { const cs = surfaceUpdateOf(ms).components; cs.push(clone(cs.at(-1)!)); },
  },
  'dangling child reference': {
    code: 'A2UI_S2C_DANGLING_CHILD',
    mutate: (ms) => attach(ms, { id: 'mut-card', component: { Card: { child: 'mut-ghost' } } }),
  },
  'self reference': {
    code: 'A2UI_S2C_SELF_REFERENCE',
    mutate: (ms) => attach(ms, { id: 'mut-self', component: { Card: { child: 'mut-self' } } }),
  },
  'cycle': {
    code: 'A2UI_S2C_CYCLE',
    mutate: (ms) => attach(ms,
      { id: 'mut-a', component: { Column: { children: { explicitList: ['mut-b'] } } } },
      { id: 'mut-b', component: { Card: { child: 'mut-a' } } }),
  },
  'root present with beginRendering': {
    code: 'A2UI_S2C_ROOT_MISSING',
    incrementalOk: true,
    mutate: (ms) => {
      const br = ms.find((m) => m.beginRendering);
      if (br) br.beginRendering.root = 'mut-nowhere';
    },
  },
  'unreachable from the root on a full init': {
    code: 'A2UI_S2C_UNREACHABLE_COMPONENT',
    incrementalOk: true,
    mutate: (ms) => { surfaceUpdateOf(ms).components.push(text('mut-orphan')); },
  },
  'template component reachability': {
    code: 'A2UI_S2C_TEMPLATE_DANGLING',
    mutate: (ms) => attach(ms, { id: 'mut-list', component: { List: { children: { template: { componentId: 'mut-ghost', dataBinding: '/items' } } } } }),
  },
  'malformed paths': {
    code: 'A2UI_S2C_PATH_INVALID',
    mutate: (ms) => attach(ms, { id: 'mut-path', component: { Text: { text: { path: '/user..name' } } } }),
  },
  'nesting depth': {
    code: 'A2UI_S2C_NESTING_TOO_DEEP',
    mutate: (ms) => {
      const chain: Msg[] = [];
      for (let i = 0; i < 60; i += 1) chain.push({ id: `mut-n${i}`, component: { Card: { child: `mut-n${i + 1}` } } });
      chain.push(text('mut-n60'));
      attach(ms, ...chain);
    },
  },
  'component type stability': {
    code: 'A2UI_S2C_TYPE_CHANGED',
    applies: (ms) => firstText(ms) !== undefined,
    mutate: (ms) => {
      // A second closed surfaceUpdate that turns a Text into a Divider.
      const su = ms.find((m) => m.surfaceUpdate)!;
      const again = clone(su);
      const t = again.surfaceUpdate.components.find((c: Msg) => c.id === firstText(ms)!.id);
      t.component = { Divider: {} };
      ms.splice(ms.indexOf(su) + 1, 0, again);
    },
  },
  'BoundValue exactly one of path/literal': {
    code: 'A2UI_S2C_BOUND_VALUE_INVALID',
    applies: (ms) => firstText(ms) !== undefined,
    mutate: (ms) => { propsOf(firstText(ms)!).text.path = '/mut/text'; },
  },
  'data entry exactly one value': {
    code: 'A2UI_S2C_DATA_ENTRY_INVALID',
    mutate: (ms) => addData(ms, [{ key: 'k', valueString: 'a', valueNumber: 1 }]),
  },
  'valueMap depth': {
    code: 'A2UI_S2C_VALUE_MAP_TOO_DEEP',
    mutate: (ms) => addData(ms, [{ key: 'a', valueMap: [{ key: 'b', valueMap: [{ key: 'c', valueString: 'x' }] }] }], '/mut'),
  },
  'data keys': {
    code: 'A2UI_S2C_DATA_KEY_INVALID',
    mutate: (ms) => addData(ms, [{ key: 'a.b', valueString: 'x' }], '/mut'),
  },
  'ids equal to string values': {
    code: 'A2UI_S2C_ID_EQUALS_VALUE',
    mutate: (ms) => attach(ms, text('mut-echo', rootOf(ms))),
  },
  'ids without ":"': {
    code: 'A2UI_S2C_ID_INVALID',
    mutate: (ms) => attach(ms, text('mut:colon')),
  },
  'styles': {
    code: 'A2UI_S2C_STYLES_INVALID',
    mutate: (ms) => {
      const br = ms.find((m) => m.beginRendering);
      const styles = { primaryColor: 'red', logoUrl: 'https://example.com/l.png' };
      if (br) br.beginRendering.styles = styles;
      else ms.push({ beginRendering: { surfaceId: surfaceUpdateOf(ms).surfaceId, root: rootOf(ms), styles } });
    },
  },
  'http(s) URLs only': {
    code: 'A2UI_S2C_URL_NOT_ALLOWED',
    mutate: (ms) => attach(ms, { id: 'mut-img', component: { Image: { url: { literalString: 'javascript:alert(1)' } } } }),
  },
};

describe('surfacer validate', () => {
  it('reports unreadable input, usage errors and missing files', async () => {
    const bad = await validateCli(['-'], '{"surfaceUpdate":\n');
    expect(bad.code).toBe(1);
    expect(codesOf(bad.stdout)).toEqual(['A2UI_S2C_STREAM_INVALID']);
    expect((await validateCli(['--nope'], '')).code).toBe(2);
    expect((await validateCli(['a', 'b'], '')).code).toBe(2);
    expect((await validateCli(['/nonexistent/file.json'], '')).code).toBe(2);
    const empty = await validateCli(['-'], '');
    expect(empty.code).toBe(0);
  });
});

describe('surfacer validate over the official v0.8 example streams', EXAMPLES_SKIP, () => {
  it('accepts every official example stream (minimal + basic), in full and incremental mode', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(25);
    for (const ex of examples) {
      const jsonArray = JSON.stringify(ex.messages);
      const full = await validateCli([], jsonArray);
      expect(full.stdout, ex.name).toBe('');
      expect(full.code, ex.name).toBe(0);
      const jsonl = ex.messages.map((m) => JSON.stringify(m)).join('\n');
      expect((await validateCli(['-'], jsonl)).code, ex.name).toBe(0);
      expect((await validateCli(['--incremental', '-'], incrementalOf(ex.messages).map((m) => JSON.stringify(m)).join('\n'))).code, ex.name).toBe(0);
    }
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(`rejects broken variants: ${name} → ${c.code}`, async () => {
      let applied = 0;
      for (const ex of examples) {
        if (c.applies && !c.applies(ex.messages)) continue;
        applied += 1;
        const full = await check(ex, c.mutate, 'full');
        expect(full.code, `${ex.name} full\n${full.stdout}`).toBe(1);
        expect(full.codes, `${ex.name} full`).toContain(c.code);
        expect(full.stdout).toMatch(new RegExp(`^${c.code} message \\d+: `, 'm'));
        const inc = await check(ex, c.mutate, 'incremental');
        if (c.incrementalOk) {
          expect(inc.code, `${ex.name} incremental\n${inc.stdout}`).toBe(0);
        } else {
          expect(inc.code, `${ex.name} incremental\n${inc.stdout}`).toBe(1);
          expect(inc.codes, `${ex.name} incremental`).toContain(c.code);
        }
      }
      expect(applied).toBeGreaterThan(0);
    });
  }

  it('full mode needs beginRendering for every surface it updates; incremental mode does not', async () => {
    for (const ex of examples) {
      const stream = incrementalOf(ex.messages).map((m) => JSON.stringify(m)).join('\n');
      const full = await validateCli(['-'], stream);
      expect(full.code).toBe(1);
      expect(codesOf(full.stdout)).toEqual(['A2UI_S2C_NOT_RENDERED']);
      expect((await validateCli(['--incremental', '-'], stream)).code).toBe(0);
    }
  });

  it('flags a template over data that is never sent as a warning (exit 0)', async () => {
    const ex = examples[0]!;
    const out = await check(ex, (ms) => attach(ms,
      { id: 'mut-list', component: { List: { children: { template: { componentId: 'mut-item', dataBinding: '/never' } } } } },
      { id: 'mut-item', component: { Text: { text: { path: 'name' } } } }), 'full');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^A2UI_S2C_TEMPLATE_UNBOUND message \d+: warning: /m);
  });

  it('reads FILE arguments and numbers messages from 1 (the JSONL line)', async () => {
    const ex = examples.find((e) => e.name.endsWith('09_login-form.json')) ?? examples[0]!;
    const ms = clone(ex.messages);
    ms.push({ deleteSurface: { surfaceId: 's' }, extra: 1 });
    const out = await validateCli(['-'], ms.map((m) => JSON.stringify(m)).join('\n'));
    expect(out.stdout.trim()).toBe(`A2UI_S2C_MESSAGE_SHAPE message ${ms.length}: a message needs exactly one of surfaceUpdate/dataModelUpdate/beginRendering/deleteSurface and nothing else, found deleteSurface, extra (at /${ms.length - 1})`);
    const file = `${EXAMPLES_DIR}/minimal/1_simple_text.json`;
    expect((await validateCli([file], '')).code).toBe(0);
  });

  it('names the unreachable component as a field, not only in the text (recovery drops it by id)', () => {
    const ms = clone(examples[0]!.messages);
    const update = surfaceUpdateOf(ms);
    update.components.push(text('mut-orphan'), text('mut-"quoted"'));
    const found = validateA2uiMessages(ms).filter((v) => v.code === 'A2UI_S2C_UNREACHABLE_COMPONENT');
    expect(found.map((v) => [v.componentId, v.surfaceId])).toEqual([['mut-orphan', update.surfaceId], ['mut-"quoted"', update.surfaceId]]);
  });
});
