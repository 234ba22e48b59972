import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { HttpClient } from '../support/http-client.ts';
import { openSse } from '../support/sse-client.ts';
import { openConversation } from '../host-html/support/page.ts';
import { freePort, replayCli, restartChildServer, startChildServer } from './support/child-server.ts';
import { logFile } from './support/log-audit.ts';

/*
 * A crash mid-stream (docs/streaming.md): the server (`node bin/surfacer.mjs serve`, the offline
 * planner streaming at a fixed pace, the fsynced JSONL log) is SIGKILLed after the page saw the
 * form appear but before the answer ended. What the log acknowledged (the form's turn_part) is
 * there after the restart, the page shows it, and `surfacer replay` reproduces the log byte
 * for byte.
 */
test('a crash mid-stream loses nothing the log acknowledged; the log replays', { timeout: 90_000 }, async () => {
  // The kill has to land in the ~100 ms between the form's part and the answer's end. On a
  // loaded machine it can come after the end: then that attempt tested no crash mid-stream, and
  // a fresh server tries again (at most three times; each attempt is reported).
  for (let attempt = 1; ; attempt += 1) {
    const dataDir = mkdtempSync(join(tmpdir(), 'surfacer-stream-crash-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    // Slow enough that the end of the answer is still being written when the kill lands.
    const env = { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-crash-tests', SURFACER_OFFLINE_STREAM: '4/40' };
    let server = await startChildServer({ port, dataDir, env });
    onTestFinished(() => server.kill());
    const client = new HttpClient(server.url);
    const c = await openConversation(client);
    const page = await openSse(`${server.url}${c.base}/events?page=crashpage1`, { headers: { cookie: client.cookieHeader() } });
    void client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'create a character card' }, { as: 'htmx', headers: { 'X-Surfacer-Page': 'crashpage1' } }).catch(() => undefined);
    for (;;) {
      const event = await page.next(20_000);
      if (event.data.includes('id="surface-main"')) break;
    }
    await server.kill();
    page.close();
    const lines = readFileSync(logFile(dataDir, c.cid), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    if (attempt < 3 && lines.at(-1)?.type === 'turn') {
      console.log(`attempt ${attempt}: the kill came after the answer ended (${lines.map((l) => l.type).join(', ')}); again`);
      continue;
    }
    // The form's part was logged; the turn's own entry was not (the answer had not ended).
    expect(lines.map((l) => l.type)).toEqual(['created', 'turn_part']);
    const replay = await replayCli(logFile(dataDir, c.cid));
    expect(replay.code, replay.stderr).toBe(0);
    server = await restartChildServer({ port, dataDir, env });
    const again = await client.get(c.base);
    expect(again.status).toBe(200);
    const html = await again.text();
    expect(html).toContain('id="surface-main"');
    expect(html).toContain('create a character card');
    return;
  }
});
