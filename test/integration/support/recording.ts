import { expect } from 'vitest';
import { createDemoApp } from '../../../src/app/index.ts';
import { createClientSim, type ClientSim } from '../../../src/clientsim/index.ts';
import { applyTurn, runDirectivesAdapter } from '../../../src/conversation/index.ts';
import { createSeededSource, draw, emptyConversation, type ConversationIr } from '../../../src/ui-ir/index.ts';
import { handleEvent, initLines, updateLines } from './host.ts';

/**
 * A recorded demo-app conversation and the A2UI stream a host sends a client that connected
 * after the first turn: the init of that state, then one update per IR change. Turns go through
 * the offline planner and the directives runner (conversation applyTurn); actions are clicks of
 * a live ClientSim posted through the ingress. Everything is seeded, so the recording is stable.
 */
export interface Recording {
  /** IR after change k; `irs[0]` is the state the init was compiled from. */
  readonly irs: readonly ConversationIr[];
  readonly stream: readonly unknown[];
  /** `change[i]` = k when message i belongs to the batch that brought the client to `irs[k]` (0 = init). */
  readonly change: readonly number[];
  /** The live client that followed the whole stream and did the typing and clicking. */
  readonly live: ClientSim;
}

export type Step =
  | { readonly say: string }
  | { readonly type: ReadonlyArray<readonly [componentId: string, value: unknown]>; readonly click: string };

export async function record(opening: string, steps: readonly Step[], seed = 'recording'): Promise<Recording> {
  const app = createDemoApp();
  const source = createSeededSource(seed);
  const turn = async (ir: ConversationIr, text: string): Promise<ConversationIr> => {
    const planned = await app.offlinePlanner.plan({ text, ir }, new AbortController().signal);
    const ctx = { runDirectives: runDirectivesAdapter, registry: app.directives, mode: 'strict' as const };
    const result = applyTurn(ir, { text, rawText: planned.rawText }, ctx, source);
    expect(result.run.errors).toEqual([]);
    return result.ir;
  };

  const irs = [await turn(emptyConversation('conv-1'), opening)];
  const stream: unknown[] = [];
  const change: number[] = [];
  const live = createClientSim();
  const send = (messages: unknown[], k: number): void => {
    for (const m of messages) {
      stream.push(m);
      change.push(k);
    }
    live.applyAll(messages);
  };
  send(initLines(irs[0]!), 0);

  for (const step of steps) {
    const prev = irs.at(-1)!;
    let next: ConversationIr;
    if ('say' in step) next = await turn(prev, step.say);
    else {
      const surfaceId = [...live.hashes().keys()].find((id) => live.surface(id)?.components[step.click] !== undefined);
      expect(surfaceId, `no surface shows ${step.click}`).toBeDefined();
      for (const [componentId, value] of step.type) expect(live.input(surfaceId!, componentId, value)).toEqual([]);
      const clicked = live.click(surfaceId!, step.click);
      if (!clicked.ok) throw new Error(clicked.violation.detail);
      const handled = handleEvent(prev, JSON.stringify(clicked.message), app.actions, draw(source));
      if (!handled.ok) throw new Error(`${handled.error.code}: ${handled.error.technical_detail}`);
      next = handled.ir;
    }
    irs.push(next);
    send(updateLines(prev, next), irs.length - 1);
  }
  return { irs, stream, change, live };
}
