import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { createClientSim, createClientSimV09 } from '../../src/clientsim/index.ts';
import { a2uiWire, type A2uiVersion } from '../../src/compiler/index.ts';
import { runDirectives } from '../../src/directives/index.ts';
import { createSeededSource, emptyConversation, type ConversationIr } from '../../src/ui-ir/index.ts';

/*
 * Issue 33 item 1 on an A2UI renderer: what the person typed lives in the renderer's data model.
 * Another form opening (beside), the same form asked for again, a message shown on the panel:
 * none of their updates touches the typed field, on v0.8 and v0.9 alike.
 */
const registry = createDemoDirectiveRegistry();

function lines(result: ReturnType<ReturnType<typeof a2uiWire>['compileConversation']>): unknown[] {
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.batches.flatMap((b) => b.lines.map((line) => JSON.parse(line) as unknown));
}

function applied(ir: ConversationIr, directive: unknown, source: ReturnType<typeof createSeededSource>): ConversationIr {
  const r = runDirectives(registry, ir, { directives: [directive] }, { mode: 'strict', source });
  if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
  return r.ir;
}

describe('typing in an A2UI renderer survives other panels', () => {
  for (const version of ['0.8', '0.9'] as const satisfies readonly A2uiVersion[]) {
    it(`v${version}: another form, the same form again and a message on the panel leave the typed name`, () => {
      const source = createSeededSource(`typing-${version}`);
      const wire = a2uiWire(version);
      const sim = version === '0.8' ? createClientSim() : createClientSimV09();
      let ir = applied(emptyConversation('t'), { type: 'ui.show_form', payload: { template: 'character_card' } }, source);
      expect(sim.applyAll(lines(wire.compileConversation(ir))).filter((v) => v.severity === 'error')).toEqual([]);
      const card = 'main--e0';
      expect(sim.input(card, 'main.f-name.TextField', 'Brannoc')).toEqual([]);
      const typed = (): unknown => wire.readClientValue((sim.surface(card)!.dataModel as { draft: { name: unknown } }).draft.name);
      expect(typed()).toBe('Brannoc');
      for (const directive of [
        { type: 'ui.show_form', payload: { template: 'persona' } },
        { type: 'ui.show_form', payload: { template: 'character_card' } },
        { type: 'ui.toast', payload: { surface: 'main', level: 'info', text: 'Take your time' } },
        { type: 'ui.ask', payload: { title: 'Q', prompt: 'p', submit: 'Go', fields: [{ name: 'a', label: 'A', type: 'text' }] } },
      ]) {
        const next = applied(ir, directive, source);
        expect(sim.applyAll(lines(wire.compileUpdate(ir, next))).filter((v) => v.severity === 'error'), directive.type).toEqual([]);
        expect(typed(), directive.type).toBe('Brannoc');
        ir = next;
      }
      expect([...sim.surfaces().keys()].sort()).toEqual(['main--e0', 'main-2--e0', 'main-3--e0']);
    });
  }
});
