import { describe, expect, it } from 'vitest';
import { flattenFollowOns, validateA2uiMessages, validateA2uiV09Messages, type Violation } from '../../src/compiler/index.ts';
import { codesOf, validateCli } from './a2ui-v0_8/cli-io.ts';

/*
 * One mistake, one finding: the components a dangling reference cuts off are follow-ons of it,
 * kept as its detail (src/compiler/a2ui-shared/follow-ons.ts), in both validators and in
 * `surfacer validate`; recovery still sees every one of them (flattenFollowOns).
 */
const S = 'sfc';
const CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';

/** root Card → col Column → rows r0…r(n-1), each a Row of two Texts: 1 + 1 + 3n components. */
function treeV08(rows: number, rootChild = 'col'): unknown[] {
  const text = (id: string) => ({ id, component: { Text: { text: { literalString: `Text ${id}` } } } });
  const components: unknown[] = [
    { id: 'root', component: { Card: { child: rootChild } } },
    { id: 'col', component: { Column: { children: { explicitList: Array.from({ length: rows }, (_, i) => `r${i}`) } } } },
  ];
  for (let i = 0; i < rows; i += 1) {
    components.push({ id: `r${i}`, component: { Row: { children: { explicitList: [`r${i}a`, `r${i}b`] } } } }, text(`r${i}a`), text(`r${i}b`));
  }
  return [{ surfaceUpdate: { surfaceId: S, components } }, { beginRendering: { surfaceId: S, root: 'root' } }];
}

function treeV09(rows: number, rootChild = 'col'): unknown[] {
  const text = (id: string) => ({ id, component: 'Text', text: `Text ${id}` });
  const components: unknown[] = [
    { id: 'root', component: 'Card', child: rootChild },
    { id: 'col', component: 'Column', children: Array.from({ length: rows }, (_, i) => `r${i}`) },
  ];
  for (let i = 0; i < rows; i += 1) components.push({ id: `r${i}`, component: 'Row', children: [`r${i}a`, `r${i}b`] }, text(`r${i}a`), text(`r${i}b`));
  return [
    { version: 'v0.9', createSurface: { surfaceId: S, catalogId: CATALOG } },
    { version: 'v0.9', updateComponents: { surfaceId: S, components } },
  ];
}

const jsonl = (messages: unknown[]): string => messages.map((m) => JSON.stringify(m)).join('\n');
const VERSIONS = [
  { version: '0.8', tree: treeV08, validate: (ms: unknown[]) => validateA2uiMessages(ms) },
  { version: '0.9', tree: treeV09, validate: (ms: unknown[]) => validateA2uiV09Messages(ms) },
] as const;

describe.each(VERSIONS)('follow-on findings, A2UI v$version', ({ version, tree, validate }) => {
  it('the trees are valid as built', async () => {
    expect(validate(tree(11))).toEqual([]);
  });

  it('one dangling child: one finding, the 34 components it cut off are its follow-ons', () => {
    const found = validate(tree(11, 'colum'));
    expect(found.map((v) => v.code)).toEqual(['A2UI_S2C_DANGLING_CHILD']);
    const followOns = found[0]!.followOns ?? [];
    expect(followOns).toHaveLength(34);
    expect(new Set(followOns.map((v) => v.code))).toEqual(new Set(['A2UI_S2C_UNREACHABLE_COMPONENT']));
    expect(followOns[0]!.componentId).toBe('col');
    // Recovery sees every component again.
    const flat = flattenFollowOns(found);
    expect(flat.map((v) => v.code)).toEqual(['A2UI_S2C_DANGLING_CHILD', ...Array<string>(34).fill('A2UI_S2C_UNREACHABLE_COMPONENT')]);
    expect(flat.every((v) => !('followOns' in v))).toBe(true);
  });

  it('surfacer validate prints one finding and one follow-on line listing the cut-off components, exit 1', async () => {
    const out = await validateCli(['--a2ui-version', version, '-'], jsonl(tree(11, 'colum')));
    expect(out.code).toBe(1);
    expect(codesOf(out.stdout)).toEqual(['A2UI_S2C_DANGLING_CHILD']);
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^ {2}\+ 34 follow-on A2UI_S2C_UNREACHABLE_COMPONENT: col, r0, r0a, r0b, r1, /);
    expect(lines[1]).toContain('… and 4 more');
  });

  it('an orphan subtree with no dangling reference: one finding at its top, the rest below it', () => {
    const ms = tree(2);
    const orphanTop = version === '0.8'
      ? [{ id: 'lost', component: { Column: { children: { explicitList: ['lost-a', 'lost-b'] } } } }, { id: 'lost-a', component: { Divider: {} } }, { id: 'lost-b', component: { Divider: {} } }]
      : [{ id: 'lost', component: 'Column', children: ['lost-a', 'lost-b'] }, { id: 'lost-a', component: 'Divider' }, { id: 'lost-b', component: 'Divider' }];
    const update = (version === '0.8' ? (ms[0] as { surfaceUpdate: { components: unknown[] } }).surfaceUpdate : (ms[1] as { updateComponents: { components: unknown[] } }).updateComponents);
    update.components.push(...orphanTop);
    const found: Violation[] = validate(ms);
    expect(found.map((v) => [v.code, v.componentId])).toEqual([['A2UI_S2C_UNREACHABLE_COMPONENT', 'lost']]);
    expect(found[0]!.followOns?.map((v) => v.componentId)).toEqual(['lost-a', 'lost-b']);
  });

  it('two unrelated orphans stay two findings; two dangling references do not claim the subtrees they may have meant', () => {
    const ms = tree(2, 'colum');
    const update = (version === '0.8' ? (ms[0] as { surfaceUpdate: { components: unknown[] } }).surfaceUpdate : (ms[1] as { updateComponents: { components: unknown[] } }).updateComponents);
    update.components.push(version === '0.8' ? { id: 'stray', component: { Divider: {} } } : { id: 'stray', component: 'Divider' });
    const withStray: Violation[] = validate(ms);
    expect(withStray.map((v) => [v.code, v.componentId])).toEqual([
      ['A2UI_S2C_DANGLING_CHILD', undefined], ['A2UI_S2C_UNREACHABLE_COMPONENT', 'col'], ['A2UI_S2C_UNREACHABLE_COMPONENT', 'stray'],
    ]);
    expect(withStray[1]!.followOns).toHaveLength(6);
    expect(withStray[0]!.followOns).toBeUndefined();
  });
});
