/*
 * The child of checkpoint-crash.test.ts: a service on the JSONL store in `argv[2]` that checkpoints
 * every two entries, driving one conversation (its id printed first) turn after turn until it is
 * killed, so that a SIGKILL lands while checkpoints are being encoded, written and renamed.
 */
import { createDemoApp } from '../../../src/app/index.ts';
import { createJsonlStore } from '../../../src/conversation/index.ts';
import { createSeededSource } from '../../../src/ui-ir/index.ts';
import { formAction, makeService } from '../../conversation/fixtures/service.ts';

const dir = process.argv[2]!;
const cid = process.argv[3];
const { service } = makeService(createJsonlStore({ dir }), { app: createDemoApp(), entropy: createSeededSource(`writer-${process.pid}`), limits: { checkpointEvery: 2 } });
const id = cid ?? (await service.create('owner')).id;
process.stdout.write(`${id}\n`);
for (let i = 0; ; i += 1) {
  const turn = await service.runTurn(id, i % 3 === 0 ? 'hello' : 'create a character card');
  if (turn.ok && turn.next.surfaces.some((s) => s.id === 'main' && s.view.actions.some((a) => a.name === 'form.submit'))) {
    await service.applyAction(id, formAction(turn.next, 'main', { name: `Aria ${i}`, personality: 'Kind.' }));
  }
}
