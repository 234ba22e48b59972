import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.ts';

describe('GET / creates conversations at a bounded rate per client', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ limits: { conversationCreatesPerMinute: 3 } }); });
  afterAll(async () => { await h.close(); });

  it('cookieless requests past the limit get 429 and persist nothing', async () => {
    const statuses: number[] = [];
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${h.url}/`, { redirect: 'manual', headers: { accept: 'application/json' } });
      statuses.push(response.status);
      const location = response.headers.get('location');
      if (location) created.push(location.slice(3));
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([303, 303, 303, 429, 429]);
    for (const cid of created) expect(await h.service.get(cid)).toBeDefined();
  });
});
