import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSurface } from '../../src/ui-ir/index.ts';
import { startAgui, TOKEN_A, type AguiStack } from '../host-agui/support.ts';

/*
 * The client programs of examples/clients run as a reader would run them (their own Node
 * process, through tsx, told the server's URL and a token by environment), against a real
 * Surfacer on a loopback port: each asks for a character card, presses Save, and the card is
 * saved in the conversation the script names. docs/connect-a-client.md and docs/connect-a2a.md
 * give these commands.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
let s: AguiStack;
beforeAll(async () => { s = await startAgui(); });
afterAll(async () => { await s.close(); });

async function runExample(file: string, token: string | undefined): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, SURFACER_URL: s.url };
  delete env.SURFACER_TOKEN;
  if (token !== undefined) env.SURFACER_TOKEN = token;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, env, timeout: 60_000 });
  return stdout;
}

async function savedCard(cid: string): Promise<Record<string, unknown>> {
  const conversation = await s.surfacer.conversations.get(cid);
  return findSurface(conversation!.ir, 'main')!.data.committed;
}

describe('examples/clients', () => {
  it('agui-client.ts (@ag-ui/client) asks for a card, presses Save, and the card is saved', async () => {
    const out = await runExample('examples/clients/agui-client.ts', TOKEN_A);
    const thread = /^thread (\S+)$/m.exec(out)?.[1];
    expect(thread, out).toBeDefined();
    expect(await savedCard(thread!)).toMatchObject({ name: 'Aria', personality: 'Brave and kind.' });
    expect(s.errors).toEqual([]);
  }, 90_000);

  it('a2a-client.ts (@a2a-js/sdk) asks for a card, presses Save, and the card is saved', async () => {
    const out = await runExample('examples/clients/a2a-client.ts', TOKEN_A);
    expect(out).toMatch(/^assistant: Saved to your card library as card-\d+$/m);
    const cid = /^conversation (\S+)$/m.exec(out)?.[1];
    expect(cid, out).toBeDefined();
    expect(await savedCard(cid!)).toMatchObject({ name: 'Aria', personality: 'Brave and kind.' });
    expect(s.errors).toEqual([]);
  }, 90_000);

  it.each(['agui-client.ts', 'a2a-client.ts'])('%s without the server\'s token is refused with 401 and exits non-zero', async (file) => {
    const failed = await runExample(`examples/clients/${file}`, undefined).then(() => undefined, (error: { code: number; stderr: string }) => error);
    expect(failed?.code).not.toBe(0);
    expect(failed?.stderr).toMatch(/401|Unauthorized/);
  }, 90_000);
});
