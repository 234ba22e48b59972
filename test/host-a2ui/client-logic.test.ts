import { A2uiMessageProcessor } from '@a2ui/web_core/v0_8';
import type { AnyComponentNode, ServerToClientMessage } from '@a2ui/web_core/v0_8';
import { structuralStyles } from '@a2ui/web_core/styles/index';
import { describe, expect, it } from 'vitest';
import { buildUserAction, resolveActionContext, toPlain } from '../../src/host-a2ui/client/actions.ts';
import { buildProcessingError, messageSurfaceId, newIdempotencyKey } from '../../src/host-a2ui/client/client-messages.ts';
import { surfacerTheme } from '../../src/host-a2ui/client/theme.ts';
import { formSurface } from './fixtures.ts';

// The browser client's pure parts, run against the official web_core processor in Node.

function processorWith(messages: unknown[]): A2uiMessageProcessor {
  const processor = new A2uiMessageProcessor();
  processor.processMessages(messages as ServerToClientMessage[]);
  return processor;
}

function findNode(node: AnyComponentNode, id: string): AnyComponentNode | undefined {
  if (node.id === id) return node;
  const props = node.properties as { children?: AnyComponentNode[]; child?: AnyComponentNode };
  for (const child of [...(props.children ?? []), ...(props.child ? [props.child] : [])]) {
    const hit = findNode(child, id);
    if (hit) return hit;
  }
  return undefined;
}

describe('userAction building', () => {
  it('resolves paths against the model and keeps false, 0 and "" literals', () => {
    const processor = processorWith(formSurface());
    const tree = processor.getSurfaces().get('main')!.componentTree!;
    const button = findNode(tree, 'form.save')!;
    processor.setData(button, '/draft/name', 'Ada', 'main');
    const action = (button.properties as { action: { name: string; context: { key: string; value: object }[] } }).action;
    action.context.push({ key: 'empty', value: { literalString: '' } });
    const body = buildUserAction(processor, 'main', {
      action, dataContextPath: button.dataContextPath ?? '/', sourceComponentId: button.id, sourceComponent: button,
    }, new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
    expect(body).toEqual({
      userAction: {
        name: 'form.submit', surfaceId: 'main', sourceComponentId: 'form.save', timestamp: '2026-01-02T03:04:05.000Z',
        context: { name: 'Ada', nonce: 'n-1', flag: false, zero: 0, empty: '' },
      },
    });
  });

  it('resolves relative and "." paths inside templates and turns Maps into plain objects', () => {
    const processor = processorWith([
      {
        surfaceUpdate: {
          surfaceId: 's',
          components: [
            { id: 'list', component: { List: { children: { template: { componentId: 'row', dataBinding: '/items' } } } } },
            { id: 'row.label', component: { Text: { text: { path: 'title' } } } },
            {
              id: 'row',
              component: {
                Button: {
                  child: 'row.label',
                  action: { name: 'pick', context: [{ key: 'title', value: { path: 'title' } }, { key: 'item', value: { path: '.' } }] },
                },
              },
            },
          ],
        },
      },
      {
        dataModelUpdate: {
          surfaceId: 's',
          path: '/items',
          contents: [
            { key: 'a', valueMap: [{ key: 'title', valueString: 'First' }] },
            { key: '__proto__', valueMap: [{ key: 'title', valueString: 'Sneaky' }] },
          ],
        },
      },
      { beginRendering: { surfaceId: 's', root: 'list' } },
    ]);
    const tree = processor.getSurfaces().get('s')!.componentTree!;
    const rows = (tree.properties as { children: AnyComponentNode[] }).children;
    const first = rows[0]!;
    expect(first.dataContextPath).toBe('/items/a');
    const action = (first.properties as { action: Parameters<typeof resolveActionContext>[2]['action'] }).action;
    const context = resolveActionContext(processor, 's', {
      action, dataContextPath: first.dataContextPath!, sourceComponentId: first.id, sourceComponent: first,
    });
    expect(context.title).toBe('First');
    expect(context.item).toEqual({ title: 'First' });
    expect(context.item).not.toBeInstanceOf(Map);
    // A data key named __proto__ stays an own key of a plain object, never a prototype.
    const second = rows[1]!;
    const other = resolveActionContext(processor, 's', {
      action, dataContextPath: second.dataContextPath!, sourceComponentId: second.id, sourceComponent: second,
    });
    expect(second.dataContextPath).toBe('/items/__proto__');
    expect(other.item).toEqual({ title: 'Sneaky' });
    const plain = toPlain(processor.getData(tree, '/items', 's')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.hasOwn(plain, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(plain))).toEqual(JSON.parse('{"a":{"title":"First"},"__proto__":{"title":"Sneaky"}}'));
  });

  it('converts nested Maps and arrays', () => {
    const value = new Map<string, unknown>([['a', [new Map([['b', 1]])]], ['c', null]]);
    expect(toPlain(value)).toEqual({ a: [{ b: 1 }], c: null });
  });

  it('builds bounded CLIENT_PROCESSING_FAILED error bodies', () => {
    const body = buildProcessingError('main', new Error('x'.repeat(2000)));
    expect(body.error.code).toBe('CLIENT_PROCESSING_FAILED');
    expect(body.error.surfaceId).toBe('main');
    expect(body.error.message!.length).toBeLessThanOrEqual(501);
    expect(buildProcessingError(undefined, 'boom')).toEqual({ error: { code: 'CLIENT_PROCESSING_FAILED', message: 'boom' } });
    // v0.9's generic error: the same fields beside the version.
    expect(buildProcessingError('main--e0', 'boom', 'v0.9')).toEqual({ version: 'v0.9', error: { code: 'CLIENT_PROCESSING_FAILED', surfaceId: 'main--e0', message: 'boom' } });
    expect(messageSurfaceId({ deleteSurface: { surfaceId: 'z' } })).toBe('z');
    expect(messageSurfaceId('nope')).toBeUndefined();
  });

  it('makes 128-bit hex idempotency keys from the injected random source', () => {
    expect(newIdempotencyKey((b) => b.fill(171))).toBe('ab'.repeat(16));
  });
});

describe('theme', () => {
  it('uses only classes the renderer ships in its structural styles', () => {
    const names = new Set<string>();
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) for (const v of value) names.add(String(v));
      else if (value !== null && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          if (v === true) names.add(k);
          else collect(v);
        }
      }
    };
    collect(surfacerTheme);
    expect(names.size).toBeGreaterThan(30);
    const missing = [...names].filter((n) => !new RegExp(`\\.${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(structuralStyles));
    expect(missing).toEqual([]);
  });
});
