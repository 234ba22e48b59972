import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  compileConversationToA2ui, compileConversationToA2uiV09, validateA2uiMessages, validateA2uiV09Messages,
  type A2uiMessage, type A2uiV09Message,
} from '../../../src/compiler/index.ts';
import { ICON_NAMES as V09_ICONS } from '../../../src/a2ui-v0_9-protocol/index.ts';
import { ICON_NAMES, SurfaceView } from '../../../src/ui-ir/index.ts';
import { feed as feedV09, newOracle } from '../../support/a2ui-v0_9-oracle.ts';
import { irWith, surfaceOf } from '../html/fixtures.ts';
import { feed, newProcessor, silenceWc } from '../a2ui-v0_8/wc-oracle.ts';
import { catalogueView, HOSTILE } from './fixtures.ts';

beforeEach(() => {
  silenceWc();
  return () => { vi.restoreAllMocks(); };
});

const ir = () => irWith(surfaceOf(catalogueView(), { draft: { nick: 'Ari', note: 'hello' } }));

function v08Components(): Map<string, Record<string, unknown>> {
  const result = compileConversationToA2ui(ir());
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const messages = result.batches.flatMap((b) => b.messages) as A2uiMessage[];
  expect(validateA2uiMessages(messages)).toEqual([]);
  feed(newProcessor(), messages);
  const out = new Map<string, Record<string, unknown>>();
  for (const m of messages) if ('surfaceUpdate' in m) for (const c of m.surfaceUpdate.components) out.set(c.id, c.component as Record<string, unknown>);
  return out;
}

function v09Components(): Map<string, Record<string, unknown>> {
  const result = compileConversationToA2uiV09(ir());
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const messages = result.batches.flatMap((b) => b.messages) as A2uiV09Message[];
  expect(validateA2uiV09Messages(messages).filter((v) => v.severity !== 'warning')).toEqual([]);
  feedV09(newOracle(), messages);
  const out = new Map<string, Record<string, unknown>>();
  for (const m of messages) if ('updateComponents' in m) for (const c of m.updateComponents.components) out.set(c.id as string, c as Record<string, unknown>);
  return out;
}

describe('basic catalogue blocks compiled to A2UI', () => {
  // They are v0.8's by construction (its catalogue's enum, held to the official schema by test/compiler/a2ui-v0_8/catalogue.test.ts).
  it('IR icon names are names of the v0.9 catalogue too', () => {
    for (const name of ICON_NAMES) expect(V09_ICONS, name).toContain(name);
  });

  it('v0.8: Tabs over the tab groups, Modal with a Card trigger (no action sent on open), Icon, Video, AudioPlayer', () => {
    const c = v08Components();
    expect(c.get('main.b0.Tabs')).toEqual({ Tabs: { tabItems: [
      { title: { literalString: 'Profile' }, child: 'main.b0-0.Column' },
      { title: { literalString: HOSTILE }, child: 'main.b0-1.Row' },
    ] } });
    expect(c.get('main.b1.Modal')).toEqual({ Modal: { entryPointChild: 'main.b1.open.Card', contentChild: 'main.b1.content.Column' } });
    expect(c.get('main.b1.open.Card')).toEqual({ Card: { child: 'main.b1.open.label.Text' } });
    expect((c.get('main.b1.content.Column') as { Column: { children: { explicitList: string[] } } }).Column.children.explicitList)
      .toEqual(['main.b1.title.Text', 'main.f-note.TextField']);
    expect(c.get('main.b2.Icon')).toEqual({ Icon: { name: { literalString: 'shoppingCart' } } });
    expect(c.get('main.b3.Row')).toEqual({ Row: { children: { explicitList: ['main.b3.Icon', 'main.b3.label.Text'] }, alignment: 'center' } });
    expect(c.get('main.b4.Video')).toEqual({ Video: { url: { literalString: 'https://example.com/v.mp4?a=1&b=2' } } });
    expect(c.get('main.b5.AudioPlayer')).toEqual({ AudioPlayer: { url: { literalString: 'http://example.com/a.ogg' }, description: { literalString: 'Theme song' } } });
    // The caption is a Text, Markdown-escaped like every v0.8 Text.
    const caption = c.get('main.b4.caption.Text') as { Text: { text: { literalString: string } } };
    expect(caption.Text.text.literalString).not.toBe(HOSTILE);
    expect(caption.Text.text.literalString).toContain('\\*md\\*');
  });

  it('v0.8: the fields in a tab and in the modal are sent by every button, like any field', () => {
    const c = v08Components();
    const save = c.get('main.a0-form_submit.Button') as { Button: { action: { context: Array<{ key: string }> } } };
    expect(save.Button.action.context.map((e) => e.key)).toEqual(['nick', 'note', 'nonce', 'rev']);
  });

  it('v0.9: Tabs, Modal with an action-less Button trigger, Icon, Video, AudioPlayer', () => {
    const c = v09Components();
    expect(c.get('main.b0.Tabs')).toEqual({ id: 'main.b0.Tabs', component: 'Tabs', tabs: [
      { title: 'Profile', child: 'main.b0-0.Column' }, { title: HOSTILE, child: 'main.b0-1.Row' },
    ] });
    expect(c.get('main.b1.Modal')).toEqual({ id: 'main.b1.Modal', component: 'Modal', trigger: 'main.b1.open.Button', content: 'main.b1.content.Column' });
    expect(c.get('main.b1.open.Button')).toEqual({ id: 'main.b1.open.Button', component: 'Button', child: 'main.b1.open.label.Text', variant: 'default' });
    expect(c.get('main.b2.Icon')).toEqual({ id: 'main.b2.Icon', component: 'Icon', name: 'shoppingCart' });
    expect(c.get('main.b4.Video')).toEqual({ id: 'main.b4.Video', component: 'Video', url: 'https://example.com/v.mp4?a=1&b=2' });
    expect(c.get('main.b5.AudioPlayer')).toEqual({ id: 'main.b5.AudioPlayer', component: 'AudioPlayer', url: 'http://example.com/a.ogg', description: 'Theme song' });
    const save = c.get('main.a0-form_submit.Button') as { action: { event: { context: Record<string, unknown> } } };
    expect(Object.keys(save.action.event.context)).toEqual(['nick', 'note', 'nonce', 'rev']);
  });

  it('same IR, same bytes (ids deterministic)', () => {
    const a = compileConversationToA2ui(ir());
    const b = compileConversationToA2ui(ir());
    expect(a.ok && b.ok && a.batches.map((x) => x.lines)).toEqual(b.ok && b.batches.map((x) => x.lines));
    const c = compileConversationToA2uiV09(ir());
    const d = compileConversationToA2uiV09(ir());
    expect(c.ok && c.batches.map((x) => x.lines)).toEqual(d.ok && d.batches.map((x) => x.lines));
  });
});

describe('basic catalogue blocks in the IR schema', () => {
  const view = (block: unknown) => SurfaceView.safeParse({ template: 't', title: 'T', blocks: [block], actions: [] });

  it('admits http(s) media URLs only', () => {
    for (const url of ['javascript:alert(1)', 'data:video/mp4;base64,AAAA', 'file:///etc/passwd', '//example.com/v', 'https://ex.com/a b', 'https://ex.com/"><script>']) {
      expect(view({ kind: 'video', url }).success, url).toBe(false);
      expect(view({ kind: 'audio', url }).success, url).toBe(false);
    }
    expect(view({ kind: 'video', url: 'https://example.com/v.mp4' }).success).toBe(true);
    expect(view({ kind: 'audio', url: 'http://example.com/a.ogg' }).success).toBe(true);
  });

  it('admits known icon names only, tabs with 1–10 titled tabs, and a modal with a label', () => {
    expect(view({ kind: 'icon', name: 'star' }).success).toBe(true);
    expect(view({ kind: 'icon', name: 'rocket' }).success).toBe(false);
    expect(view({ kind: 'icon', name: '__proto__' }).success).toBe(false);
    expect(view({ kind: 'tabs', blocks: [] }).success).toBe(false);
    expect(view({ kind: 'tabs', blocks: [{ kind: 'group', blocks: [] }] }).success).toBe(false);
    expect(view({ kind: 'tabs', blocks: [{ kind: 'group', title: 'A', blocks: [] }] }).success).toBe(true);
    expect(view({ kind: 'tabs', blocks: Array.from({ length: 11 }, (_, i) => ({ kind: 'group', title: `T${i}`, blocks: [] })) }).success).toBe(false);
    expect(view({ kind: 'modal', blocks: [] }).success).toBe(false);
    expect(view({ kind: 'modal', label: 'Open', blocks: [{ kind: 'modal', label: 'Inner', blocks: [] }] }).success).toBe(true);
  });

  it('checks list names across tabs and modals like across groups', () => {
    const list = { kind: 'list', name: 'items', path: '/ui/items', display: [{ kind: 'text', field: 'name' }] };
    expect(view({ kind: 'tabs', blocks: [{ kind: 'group', title: 'A', blocks: [list] }, { kind: 'group', title: 'B', blocks: [list] }] }).success).toBe(false);
    expect(SurfaceView.safeParse({ template: 't', title: 'T', blocks: [list, { kind: 'modal', label: 'M', blocks: [list] }], actions: [] }).success).toBe(false);
  });
});
