import { describe, expect, it } from 'vitest';
import {
  compileA2uiUpdate, compileA2uiV09Update, compileConversationToA2ui, compileConversationToA2uiV09, validateA2uiMessages,
  validateA2uiV09Messages, type A2uiMessage, type A2uiV09Message,
} from '../../src/compiler/index.ts';
import { commitSurface, type Block, type ConversationIr } from '../../src/ui-ir/index.ts';
import { feed as feedV09, newOracle, visibleState as visibleV09 } from '../support/a2ui-v0_9-oracle.ts';
import { only, open, view } from './a2ui-v0_8/fixtures.ts';
import { feed as feedV08, newProcessor, silenceWc, visibleState as visibleV08 } from './a2ui-v0_8/wc-oracle.ts';

/*
 * Issue 33 item 5: a group of values none of which is set yet (the form's "Saved" block before
 * the first save) is not shown by either A2UI compiler, as the htmx page does not show it; once
 * one value is set, an update brings it, and the official processors take every step.
 */
const SAVED: Block = {
  kind: 'group', title: 'Saved', layout: 'column',
  blocks: [{ kind: 'value', label: 'Name', path: '/committed/name' }, { kind: 'value', label: 'Tags', path: '/committed/tags' }],
};
const BLOCKS: Block[] = [
  { kind: 'field', name: 'name', label: 'Name', control: 'text', required: true },
  { kind: 'divider' },
  SAVED,
  { kind: 'value', label: 'Alone', path: '/committed/alone' },
];

function saved(ir: ConversationIr, committed: Record<string, string | string[]>): ConversationIr {
  const next = commitSurface(ir, 'main', { draft: {}, committed }, { now: '2026-01-01T00:00:00.000Z' });
  if (!next.ok) throw new Error(next.error.message);
  return next.ir;
}

/** One A2UI version: its compiler, validator and official processor, and the literal texts of the components it sent. */
interface Version {
  init(ir: ConversationIr): readonly unknown[];
  update(prev: ConversationIr, next: ConversationIr): readonly unknown[];
  validate(messages: readonly unknown[]): unknown[];
  texts(messages: readonly unknown[]): string[];
  ids(messages: readonly unknown[]): string[];
  /** A fresh official processor fed `messages`; returns what its user sees. */
  client(): { feed(messages: readonly unknown[]): void; visible(): string };
}

const V08: Version = {
  init: (ir) => only(compileConversationToA2ui(ir)).messages,
  update: (prev, next) => only(compileA2uiUpdate(prev, next)).messages,
  validate: (ms) => validateA2uiMessages(ms as A2uiMessage[]),
  texts: (ms) => (ms as A2uiMessage[]).flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components : []))
    .flatMap((c) => ('Text' in c.component ? [(c.component.Text as { text: { literalString?: string } }).text.literalString ?? ''] : [])),
  ids: (ms) => (ms as A2uiMessage[]).flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components.map((c) => c.id) : [])).sort(),
  client() {
    silenceWc();
    const processor = newProcessor();
    return { feed: (ms) => feedV08(processor, ms as A2uiMessage[]), visible: () => visibleV08(processor) };
  },
};

const V09: Version = {
  init: (ir) => only(compileConversationToA2uiV09(ir)).messages,
  update: (prev, next) => only(compileA2uiV09Update(prev, next)).messages,
  validate: (ms) => validateA2uiV09Messages(ms as A2uiV09Message[]),
  texts: (ms) => (ms as A2uiV09Message[]).flatMap((m) => ('updateComponents' in m ? m.updateComponents.components : []))
    .flatMap((c) => (c.component === 'Text' && typeof c.text === 'string' ? [c.text] : [])),
  ids: (ms) => (ms as A2uiV09Message[]).flatMap((m) => ('updateComponents' in m ? m.updateComponents.components.map((c) => c.id) : [])).sort(),
  client() {
    const oracle = newOracle();
    return { feed: (ms) => feedV09(oracle, ms), visible: () => visibleV09(oracle) };
  },
};

describe.each([['0.8', V08], ['0.9', V09]] as const)('v%s: a group of values none of which is set', (_name, version) => {
  it('is left out of a new form (a lone value block stays, as on the htmx page)', () => {
    const { ir } = open('main', view(BLOCKS));
    const init = version.init(ir);
    expect(version.texts(init)).not.toContain('Saved');
    expect(version.texts(init)).toContain('Alone');
    expect(version.validate(init)).toEqual([]);
    const client = version.client();
    client.feed(init);
    expect(client.visible()).not.toContain('Saved');
    // An empty list is still unset.
    expect(version.texts(version.init(saved(ir, { tags: [] })))).not.toContain('Saved');
  });

  it('comes with the update that saves a value, and the client then shows what a fresh one does', () => {
    const { ir } = open('main', view(BLOCKS));
    const named = saved(ir, { name: 'Aria' });
    const init = version.init(ir);
    const update = version.update(ir, named);
    expect(version.texts(update)).toContain('Saved');
    expect(version.validate([...init, ...update])).toEqual([]);
    const client = version.client();
    client.feed(init);
    client.feed(update);
    const fresh = version.client();
    fresh.feed(version.init(named));
    expect(client.visible()).toContain('Saved');
    expect(client.visible()).toBe(fresh.visible());
    // The group (block 2) arrives whole, under the ids a fresh client gets.
    const group = version.ids(version.init(named)).filter((id) => id.startsWith('main.b2'));
    expect(group.length).toBeGreaterThan(0);
    expect(group.filter((id) => !version.ids(update).includes(id))).toEqual([]);
  });
});
