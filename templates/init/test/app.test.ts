import { afterEach, describe, expect, it } from 'vitest';
import { a2uiWire, createClientSim, createSurfacer, type Surfacer } from 'surfacer';
import { APP_NAME, createApp, noteView, titleFrom } from '../src/app.ts';

/*
 * ClientSim is an A2UI client without a UI: it reads what the compiler sends, as a renderer
 * would, and clicks the buttons a renderer would show. Here it runs one turn of the offline
 * planner, types into the note, presses Save, and sends what a client sends back.
 */
let surfacer: Surfacer | undefined;
afterEach(async () => {
  await surfacer?.close();
  surfacer = undefined;
});

describe(APP_NAME, () => {
  it('the offline planner opens a note titled from the message', () => {
    expect(titleFrom('a note about the team meeting')).toBe('the team meeting');
    expect(titleFrom('hello')).toBeUndefined();
  });

  it('a turn opens the note panel, which a client renders; Save closes it', async () => {
    surfacer = createSurfacer({ app: createApp() });
    const { id } = await surfacer.conversations.create('test');
    const turn = await surfacer.conversations.runTurn(id, 'a note about the team meeting');
    expect(turn.ok).toBe(true);

    const ir = (await surfacer.conversations.get(id))!.ir;
    const compiled = a2uiWire('0.8').compileConversation(ir);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    const sim = createClientSim();
    expect(sim.applyAll(compiled.batches.flatMap((b) => b.messages))).toEqual([]);
    const [surfaceId, surface] = [...sim.surfaces()][0]!;
    expect(surface.rendering).toBe(true);
    expect(JSON.stringify(surface.dataModel)).toContain('the team meeting');

    // The Save button: the one component whose action is note.save.
    const save = Object.entries(surface.components).find(([, c]) => JSON.stringify(c).includes('"note.save"'))?.[0];
    expect(save, `a ${noteView.actions[0]!.label} button`).toBeDefined();
    const click = sim.click(surfaceId, save!);
    if (!click.ok) throw new Error(click.violation.detail);

    const parsed = surfacer.conversations.ingress.parseA2ui(JSON.stringify(click.message), { idempotencyKey: 'save-1' });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed));
    const saved = await surfacer.conversations.applyAction(id, parsed.request);
    expect(saved).toMatchObject({ ok: true, action: 'note.save', toast: { text: 'Saved "the team meeting"' } });
    expect((await surfacer.conversations.get(id))!.ir.surfaces.filter((s) => s.lifecycle !== 'deleted')).toEqual([]);
  });
});
