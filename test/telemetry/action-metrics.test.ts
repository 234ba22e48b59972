import { MeterProvider, MetricReader, type DataPoint } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createMemoryStore } from '../../src/conversation/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer } from '../../src/server/index.ts';
import { formFields, openConversation, pageOf, sendMessage } from '../host-html/support/page.ts';
import { HttpClient } from '../support/http-client.ts';

/*
 * Issue 25: an accepted, a replayed and a stale action produce their counters, read with an
 * in-memory metric reader (the spans of the same actions: action-spans.test.ts).
 */

/** Collects on demand, keeps nothing between collections. */
class InMemoryReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const reader = new InMemoryReader();
const provider = new MeterProvider({ readers: [reader] });
let server: RunningServer;
beforeAll(async () => {
  const surfacer = createSurfacer({ app: createDemoApp(), store: createMemoryStore(), sessionSecret: 'action-metrics-secret-0123456789', env: {}, meterProvider: provider });
  server = await surfacer.listen({ port: 0 });
});
afterAll(async () => {
  await server.close(1000);
  await provider.shutdown();
});

async function points(name: string): Promise<Array<DataPoint<number>>> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []) as Array<DataPoint<number>>;
}

describe('counters of actions through the ingress', () => {
  it('accepted, replayed and stale: surfacer.actions by outcome and canonical code, surfacer.log.appends by entry', async () => {
    const client = new HttpClient(server.url);
    const c = await openConversation(client);
    expect((await sendMessage(client, c, 'create a character card')).status).toBe(200);
    const form = formFields(await pageOf(client, c), 'main');
    const CARD = { name: 'Aria', personality: 'Brave and kind.', tags: 'brave, kind' };
    const submit = (key: string, values: Record<string, string>) =>
      client.post(`${c.base}/actions`, { ...form, _idem: key, _action: 'form.submit', ...values }, { as: 'json' });

    expect((await submit('key-1', CARD)).status).toBe(200);
    expect(await (await submit('key-1', CARD)).json()).toMatchObject({ replayed: true });
    const stale = await submit('key-2', { ...CARD, name: 'Bea' });
    expect(stale.status).toBe(409);

    const actions = await points('surfacer.actions');
    expect(actions.map((p) => ({ attributes: p.attributes, value: p.value })).sort((a, b) => String(a.attributes['surfacer.action.outcome']).localeCompare(String(b.attributes['surfacer.action.outcome'])))).toEqual([
      { attributes: { 'surfacer.action.outcome': 'applied' }, value: 1 },
      { attributes: { 'surfacer.action.outcome': 'rejected', 'error.type': 'A2UI_C2S_SURFACE_STALE' }, value: 1 },
      { attributes: { 'surfacer.action.outcome': 'replayed' }, value: 1 },
    ]);
    // One action entry was written (the replay and the stale one wrote nothing).
    const appends = await points('surfacer.log.appends');
    expect(appends.find((p) => p.attributes['surfacer.log.entry'] === 'action' && p.attributes['surfacer.log.outcome'] === 'ok')?.value).toBe(1);
  });
});
