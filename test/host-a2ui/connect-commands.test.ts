import { execFile, spawn } from 'node:child_process';
import { isDeepStrictEqual, promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2UI_VERSIONS, a2uiWire, type A2uiVersion } from '../../src/compiler/index.ts';
import { connectCommands } from '../../src/host-a2ui/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { newConversation, startE2e, type E2eServer } from '../e2e/support/stack.ts';

/*
 * The curl session the "Connect an A2UI client" box and the README give an external client
 * (src/host-a2ui/page.ts connectCommands) works as written, with real curl, in every wire
 * version: the stream and the snapshot speak the version, the action (its placeholders filled
 * from the snapshot, the form's values added to its context) is applied, and the error report
 * resets the surface.
 */
const run = promisify(execFile);
let s: E2eServer;
beforeAll(async () => { s = await startE2e(); });
afterAll(async () => { await s.close(); });

type Msg = Record<string, any>;

/** The submit Button's surface id, component id, nonce and rev, read from a snapshot of `version`. */
function submitButton(version: A2uiVersion, messages: readonly Msg[]): Record<string, string> {
  if (version === '0.8') {
    const update = messages.find((m) => m.surfaceUpdate)!.surfaceUpdate;
    const button = update.components.find((c: Msg) => c.id.endsWith('form_submit.Button'));
    const literal = (key: string): string => button.component.Button.action.context.find((e: Msg) => e.key === key).value.literalString;
    return { surface: update.surfaceId, button: button.id, nonce: literal('nonce'), rev: literal('rev') };
  }
  const update = messages.find((m) => m.updateComponents)!.updateComponents;
  const button = update.components.find((c: Msg) => c.id.endsWith('form_submit.Button'));
  const context = button.action.event.context;
  return { surface: update.surfaceId, button: button.id, nonce: context.nonce, rev: String(context.rev) };
}

async function shell(command: string): Promise<string> {
  return (await run('bash', ['-c', command])).stdout;
}

/** Reads the stream command's output until its messages end with `tail`, then stops that curl. */
function streamUntil(command: string, tail: readonly Msg[]): Promise<Msg[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `exec ${command} -s`]);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      // Complete lines only: a chunk may end in the middle of one (seen under load).
      const messages = [...out.matchAll(/^data: (.*)\n/gm)].map((m) => JSON.parse(m[1]!) as Msg);
      if (isDeepStrictEqual(messages.slice(-tail.length), tail)) {
        child.kill();
        resolve(messages);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => { if (code !== null) reject(new Error(`curl ended (${code}): ${out}`)); });
  });
}

describe('the external-client curl session (connect box and README)', () => {
  for (const version of A2UI_VERSIONS) {
    it(`works as written for v${version}: stream, snapshot, action, error report`, async () => {
      const c = await newConversation(s, s.client(), 'create a character card');
      const wire = a2uiWire(version);
      const [follow, , snapshotCmd, actionCmd, errorCmd] = connectCommands({ token: c.token, origin: s.url, base: c.a2ui, version })
        .map((entry) => entry.command);

      const snapshot = (await shell(snapshotCmd!)).trimEnd().split('\n').map((line) => JSON.parse(line) as Msg);
      expect(wire.validate(snapshot)).toEqual([]);
      for (const m of snapshot) expect(m.version).toBe(wire.messageVersion);
      // A fresh stream re-initialises: deleteSurface of what the client may hold, then the snapshot.
      const streamed = await streamUntil(follow!, snapshot);
      expect(streamed.slice(0, -snapshot.length).map((m) => Object.keys(m).filter((k) => k !== 'version'))).toEqual([['deleteSurface']]);

      const b = submitButton(version, snapshot);
      const fill = (command: string): string => command
        .replace('<action>', 'form.submit').replace('<surface>--e<epoch>', b.surface!).replace('<button id>', b.button!)
        .replace('<nonce>', b.nonce!).replace('<rev>', b.rev!).replace('"context":{', '"context":{"name":"Aria","personality":"Brave.",');
      expect(JSON.parse(await shell(fill(actionCmd!)))).toMatchObject({ ok: true, action: 'form.submit', surface: { id: 'main', rev: 1 } });
      expect(findSurface((await s.handle.conversations.get(c.cid))!.ir, 'main')!.data.committed).toMatchObject({ name: 'Aria', personality: 'Brave.' });

      const report = errorCmd!.replace('<code>', 'CLIENT_PROCESSING_FAILED').replace('<surface>--e<epoch>', b.surface!).replace('<what failed>', 'test');
      expect(JSON.parse(await shell(report))).toMatchObject({ ok: true, recovery: 'epoch_reset', surface: { id: 'main', epoch: 1 } });
    });
  }
});
