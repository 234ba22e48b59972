import { createHash, createHmac } from 'node:crypto';
import { createDemoApp } from '../src/app/index.ts';
import { compileSurfaceToHtml } from '../src/compiler/html/index.ts';
import { createMemoryStore } from '../src/conversation/index.ts';
import { createConversationStack } from '../src/host-html/index.ts';
import { createSeededSource } from '../src/ui-ir/index.ts';

/**
 * What some unavoidable parts of an accepted htmx action cost alone, in a hot loop (so a lower
 * bound of their cost under load): rendering the character card's fragment from a new surface
 * object (as after a commit), HMAC-SHA256 of a session-sized value, SHA-256 of an answer-sized
 * text, decoding the benchmark's form body. Context for bench/http-actions.ts: BENCHMARKS.md
 * compares their sum with the time per round trip that 30 % of hello-world leaves.
 */
const N = 20_000;

function microseconds(f: (i: number) => unknown): number {
  for (let i = 0; i < 2_000; i++) f(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) f(i);
  return Number(process.hrtime.bigint() - t0) / N / 1000;
}

export async function run(): Promise<void> {
  const app = createDemoApp();
  const service = createConversationStack({ app, store: createMemoryStore(), entropy: createSeededSource('action-parts') });
  const conversation = await service.create('owner');
  const turn = await service.runTurn(conversation.id, 'create a character card');
  if (!turn.ok) throw new Error('the offline planner did not open the character card');
  const ir = turn.next;
  const surface = ir.surfaces[0]!;
  let html = '';
  const render = microseconds((i) => {
    const next = { ...ir, surfaces: [{ ...surface, rev: surface.rev + i, data: { ...surface.data } }] };
    html = compileSurfaceToHtml(next, surface.id, { csrfToken: 'x'.repeat(43), basePath: `/c/${conversation.id}` }) ?? '';
  });
  const body = `_csrf=${'x'.repeat(43)}&_surface=main&_epoch=0&_nonce=${'n'.repeat(22)}&_rev=3&_action=form.submit&_idem=bench-1-2`
    + '&name=Aria&personality=Brave%2C+curious+and+kind.&tags=bard%2C+brave';
  const rows: Array<[string, number]> = [
    [`render the character card fragment (${Buffer.byteLength(html)} B)`, render],
    ['HMAC-SHA256 of 60 B (a session cookie)', microseconds(() => createHmac('sha256', 'secret-0123456789abcdef').update('s'.repeat(60)).digest('base64url'))],
    [`SHA-256 of ${html.length} chars`, microseconds(() => createHash('sha256').update(html).digest('base64url'))],
    [`decode the ${body.length} B form body`, microseconds(() => Object.fromEntries(new URLSearchParams(body)))],
  ];
  for (const [label, us] of rows) process.stdout.write(`${label}: ${us.toFixed(2)} µs\n`);
  process.stdout.write(`sum: ${rows.reduce((sum, [, us]) => sum + us, 0).toFixed(1)} µs\n`);
}
