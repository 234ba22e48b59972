import type { A2uiVersion } from '../../../src/compiler/index.ts';
import { holdsEverything, startE2e } from '../../e2e/support/stack.ts';
import { serveParent } from './child.ts';
import type { InstanceConfig, InstanceQuestion, View } from './instances.ts';
import { watchLoop } from './loop-watch.ts';

/*
 * One instance of the fault suite in a process of its own (forked by instances.ts): startE2e,
 * the composition `npm start --redis` runs. The test process runs the clients, whose work would
 * otherwise hold up the instance's event loop and be timed as the instance's. The suite asks
 * about the instance's state over the IPC channel (its hubs are not reachable from another process).
 */
const config = JSON.parse(process.argv[2]!) as InstanceConfig;
const server = await startE2e(config.a2ui, config.options);
const loop = watchLoop();

async function view(cid: string, wire: A2uiVersion, lastEventId: string): Promise<View> {
  // Undefined while the instance cannot read the conversation (its Redis is away).
  const version = (await server.handle.conversations.get(cid).catch(() => undefined))?.version;
  const { hub } = server.handle.a2ui.wire(wire);
  return { ...(version === undefined ? {} : { version }), checkpoint: hub.checkpoint(cid).published, holds: holdsEverything(hub, cid, lastEventId) };
}

serveParent<InstanceQuestion>(async (question) => {
  switch (question.op) {
    case 'token':
      return (await server.handle.conversations.get(question.cid))?.a2uiToken ?? null;
    case 'view':
      return view(question.cid, question.wire, question.lastEventId);
    case 'errors':
      return server.errors;
    case 'loop':
      return loop.take();
    case 'close':
      await server.close();
      return null;
  }
}, server.url);
