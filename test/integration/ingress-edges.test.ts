import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createClientSim, type ClientSim, type Violation } from '../../src/clientsim/index.ts';
import { runDirectives } from '../../src/directives/index.ts';
import { checkIngress, DEFAULT_INGRESS_LIMITS } from '../../src/ingress/index.ts';
import {
  createSeededSource, draw, emptyConversation, resetSurfaceEpoch, type ConversationIr, type EntropySource,
} from '../../src/ui-ir/index.ts';
import { validDirectiveEnvelope } from '../support/arbitraries-directives.ts';
import { errorsOf, handleEvent, initLines, parseEvent, updateLines } from './support/host.ts';

/*
 * Must-pass edge cases at the ingress's pure validator (parseA2uiClientEvent + checkIngress),
 * with every userAction produced by ClientSim, i.e. shaped exactly as a renderer sends it.
 */

const app = createDemoApp();
const SUBMIT = 'main.a0-form_submit.Button';

function opened(seed: string): { ir: ConversationIr; sim: ClientSim; source: EntropySource } {
  const source = createSeededSource(seed);
  const ir = runDirectives(app.directives, emptyConversation('conv-1'), {
    directives: [{ type: 'ui.show_form', payload: { template: 'character_card', values: { name: 'Aria', personality: 'Kind' } } }],
  }, { mode: 'strict', source }).ir;
  const sim = createClientSim();
  expect(errorsOf(sim.applyAll(initLines(ir)))).toEqual([]);
  return { ir, sim, source };
}

function bodyOf(sim: ClientSim, surfaceId: string, componentId: string): string {
  const clicked = sim.click(surfaceId, componentId);
  if (!clicked.ok) throw new Error(clicked.violation.detail);
  return JSON.stringify(clicked.message);
}

describe('stale userActions are 409 A2UI_C2S_SURFACE_STALE', () => {
  it('a click sent before the epoch-reset batch arrived is stale; after it, the same button works', () => {
    const { ir, sim, source } = opened('stale-epoch');
    const reset = resetSurfaceEpoch(ir, 'main', draw(source));
    if (!reset.ok) throw new Error(reset.error.code);
    // The user clicks while the reset is in flight: the client still shows main--e0.
    const early = bodyOf(sim, 'main--e0', SUBMIT);
    const parsed = parseEvent(early);
    expect(parsed).toMatchObject({ ok: true, request: { surfaceId: 'main', epoch: 0 } });
    if (!parsed.ok) return;
    expect(checkIngress(parsed.request, reset.ir, app.actions)).toMatchObject({
      ok: false, status: 409, error: { code: 'A2UI_C2S_SURFACE_STALE' },
    });
    // The reset batch: deleteSurface main--e0, then main--e1 from scratch.
    const batch = updateLines(ir, reset.ir);
    expect(batch[0]).toEqual({ deleteSurface: { surfaceId: 'main--e0' } });
    expect(errorsOf(sim.applyAll(batch))).toEqual([]);
    expect([...sim.hashes().keys()]).toEqual(['main--e1']);
    expect(handleEvent(reset.ir, bodyOf(sim, 'main--e1', SUBMIT), app.actions, draw(source))).toMatchObject({ ok: true });
  });

  it('a panel closed and reopened (new epoch by directives): the old rendering is stale', () => {
    const { ir, sim, source } = opened('stale-reopen');
    const old = bodyOf(sim, 'main--e0', SUBMIT);
    const reopened = runDirectives(app.directives, ir, {
      directives: [{ type: 'ui.close', payload: { surface: 'main' } }, { type: 'ui.show_form', payload: { template: 'persona' } }],
    }, { mode: 'strict', source }).ir;
    expect(handleEvent(reopened, old, app.actions, draw(source))).toMatchObject({ status: 409, error: { code: 'A2UI_C2S_SURFACE_STALE' } });
  });

  it('a click from before a submit (older rev) is stale, even on the same epoch', () => {
    const { ir, sim, source } = opened('stale-rev');
    const old = bodyOf(sim, 'main--e0', SUBMIT);
    const saved = handleEvent(ir, old, app.actions, draw(source));
    if (!saved.ok) throw new Error(saved.error.code);
    expect(handleEvent(saved.ir, old, app.actions, draw(source))).toMatchObject({
      status: 409, error: { code: 'A2UI_C2S_SURFACE_STALE', technical_detail: expect.stringContaining('rev 0') },
    });
  });
});

describe('oversized and too-deep contexts are 413 A2UI_C2S_CONTEXT_TOO_LARGE', () => {
  it('a body over maxBodyBytes (a huge text typed into a TextField)', () => {
    const { sim } = opened('big-body');
    // Under the per-string limit, spread over fields: only the body size is over.
    const chunk = 'x'.repeat(DEFAULT_INGRESS_LIMITS.maxStringLength - 10);
    for (const field of ['name', 'tagline', 'personality', 'greeting', 'tags']) {
      expect(sim.input('main--e0', `main.f-${field}.TextField`, chunk)).toEqual([]);
    }
    const body = bodyOf(sim, 'main--e0', SUBMIT);
    expect(Buffer.byteLength(body)).toBeGreaterThan(DEFAULT_INGRESS_LIMITS.maxBodyBytes);
    expect(parseEvent(body)).toMatchObject({ ok: false, status: 413, error: { code: 'A2UI_C2S_CONTEXT_TOO_LARGE' } });
  });

  it('one string over maxStringLength in an otherwise small body', () => {
    const { sim } = opened('long-string');
    expect(sim.input('main--e0', 'main.f-greeting.TextField', 'é'.repeat(DEFAULT_INGRESS_LIMITS.maxStringLength + 1))).toEqual([]);
    const body = bodyOf(sim, 'main--e0', SUBMIT);
    expect(Buffer.byteLength(body)).toBeLessThan(DEFAULT_INGRESS_LIMITS.maxBodyBytes);
    expect(parseEvent(body)).toMatchObject({
      ok: false, status: 413, error: { code: 'A2UI_C2S_CONTEXT_TOO_LARGE', pointer: '/userAction/context/greeting' },
    });
  });

  it('a context value nested deeper than maxContextDepth (a bound path holding a deep map)', () => {
    const { sim } = opened('deep');
    let deep: unknown = 'leaf';
    for (let i = 0; i < DEFAULT_INGRESS_LIMITS.maxContextDepth; i += 1) deep = { k: deep };
    // A renderer resolves a path to whatever the model holds there; a map goes out as an object.
    expect(sim.setValue('main--e0', '/draft/tagline', deep)).toEqual([]);
    const body = bodyOf(sim, 'main--e0', SUBMIT);
    expect(JSON.parse(body)).toMatchObject({ userAction: { context: { tagline: { k: { k: { k: { k: 'leaf' } } } } } } });
    expect(parseEvent(body)).toMatchObject({ ok: false, status: 413, error: { code: 'A2UI_C2S_CONTEXT_TOO_LARGE' } });
    // One level less passes the bounds (and then fails the form's schema: a tagline is text).
    expect(sim.setValue('main--e0', '/draft/tagline', (deep as { k: unknown }).k)).toEqual([]);
    expect(parseEvent(bodyOf(sim, 'main--e0', SUBMIT))).toMatchObject({ ok: true });
  });
});

describe('generated demo conversations', () => {
  const turns = fc.array(validDirectiveEnvelope({ maxDirectives: 3 }), { minLength: 1, maxLength: 4 });

  it('the compiler never emits a BoundValue with path and literal, nor anything else ClientSim rejects; every rendered button posts a current, well-formed userAction (200 runs)', () => {
    let clicks = 0;
    fc.assert(fc.property(turns, fc.string({ maxLength: 6 }), (envelopes, seed) => {
      const source = createSeededSource(seed);
      const sim = createClientSim();
      const seen: Violation[] = [];
      let ir = emptyConversation('conv-1');
      for (const envelope of envelopes) {
        const next = runDirectives(app.directives, ir, envelope, { mode: 'best_effort', source }).ir;
        seen.push(...sim.applyAll(updateLines(ir, next)));
        ir = next;
      }
      seen.push(...sim.endOfStream());
      expect(seen.filter((v) => v.code === 'CLIENTSIM_BOUND_VALUE_PATH_AND_LITERAL')).toEqual([]);
      expect(errorsOf(seen)).toEqual([]);
      for (const [surfaceId, surface] of sim.surfaces()) {
        for (const [id, component] of Object.entries(surface.components)) {
          if (!Object.hasOwn(component.component, 'Button')) continue;
          const clicked = sim.click(surfaceId, id);
          // Buttons of an earlier view linger unreferenced (v0.8 cannot remove components).
          if (!clicked.ok) {
            expect(clicked.violation.code).toBe('CLIENTSIM_COMPONENT_NOT_FOUND');
            continue;
          }
          clicks += 1;
          const parsed = parseEvent(JSON.stringify(clicked.message));
          expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
          if (!parsed.ok) continue;
          const checked = checkIngress(parsed.request, ir, app.actions);
          // Current and allowlisted; a form may still be refused later by its own checks (422).
          expect(checked.ok, JSON.stringify(checked.ok ? null : checked.error)).toBe(true);
        }
      }
    }), { numRuns: 200 });
    expect(clicks).toBeGreaterThan(100);
  });

  it('positive control: ClientSim does reject path+literal', () => {
    const sim = createClientSim();
    const violations = sim.apply({
      surfaceUpdate: { surfaceId: 's', components: [{ id: 't', component: { Text: { text: { path: '/a', literalString: 'x' } } } }] },
    });
    expect(violations.map((v) => v.code)).toContain('CLIENTSIM_BOUND_VALUE_PATH_AND_LITERAL');
  });
});
