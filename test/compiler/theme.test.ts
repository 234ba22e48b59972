import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileA2uiUpdate, compileA2uiV09Update, compileConversationToA2ui, compileConversationToA2uiV09, validateA2uiMessages, validateA2uiV09Messages,
  type A2uiMessage, type A2uiV09Message, type CompileOptionsBase,
} from '../../src/compiler/index.ts';
import { feed as feedV09, newOracle } from '../support/a2ui-v0_9-oracle.ts';
import { arbConversationIr, arbTransitionSequence, applyTransitions } from '../support/arbitraries-ir.ts';
import { feed as feedV08, newProcessor, silenceWc } from './a2ui-v0_8/wc-oracle.ts';

/*
 * The app's theme on the A2UI wire (CompileOptionsBase.theme): v0.8 beginRendering.styles
 * {primaryColor, font}, v0.9 createSurface.theme {primaryColor}. Over generated IR: every surface
 * that starts carries it, the official processors take every message, our validators find
 * nothing, the theme's colour passes the v0.9 basic catalogue's own theme schema, and the output
 * is a pure function of IR and options. A colour outside #rrggbb never reaches the wire.
 */
const RUNS = 150;
const LONG = 300_000;

const hexColour = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
  .map((cs) => `#${cs.map((c) => c.toString(16).padStart(2, '0')).join('')}`);
const fontList = fc.array(fc.constantFrom('Georgia', '"Iowan Old Style"', 'system-ui', 'sans-serif', "'Segoe UI'", 'Inter'), { minLength: 1, maxLength: 4 })
  .map((names) => names.join(', '));
const arbTheme = fc.record({ primaryColor: hexColour, font: fontList });

/** The v0.9 basic catalogue's theme schema, as the spec ships it (node_modules/@a2ui/web_core). */
const themeSchemaV09 = ((): (value: unknown) => boolean => {
  // The package's exports do not list its schema files: read from beside its v0_9 entry.
  const dir = dirname(createRequire(import.meta.url).resolve('@a2ui/web_core/v0_9'));
  const catalog = JSON.parse(readFileSync(join(dir, 'schemas/catalogs/basic/catalog.json'), 'utf8')) as { $defs: { theme: object } };
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  return ajv.compile(catalog.$defs.theme);
})();

function v08Messages(result: ReturnType<typeof compileConversationToA2ui>): A2uiMessage[] {
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  for (const b of result.batches) expect(b.recovery, JSON.stringify(b.errors)).toBe('none');
  return result.batches.flatMap((b) => b.messages);
}

function v09Messages(result: ReturnType<typeof compileConversationToA2uiV09>): A2uiV09Message[] {
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  for (const b of result.batches) expect(b.recovery, JSON.stringify(b.errors)).toBe('none');
  return result.batches.flatMap((b) => b.messages);
}

describe('the theme on the A2UI wire', () => {
  it('v0.8: every beginRendering carries it as styles; the official processor takes it and keeps it', () => {
    silenceWc();
    let started = 0;
    fc.assert(fc.property(arbConversationIr, arbTheme, (ir, theme) => {
      const options: CompileOptionsBase = { theme };
      const messages = v08Messages(compileConversationToA2ui(ir, options));
      // Pure: the same IR and options give the same bytes.
      expect(JSON.stringify(v08Messages(compileConversationToA2ui(ir, options)))).toBe(JSON.stringify(messages));
      const begins = messages.flatMap((m) => ('beginRendering' in m ? [m.beginRendering] : []));
      started += begins.length;
      for (const begin of begins) expect(begin.styles).toEqual({ primaryColor: theme.primaryColor, font: theme.font });
      expect(validateA2uiMessages(messages).filter((v) => v.severity !== 'warning')).toEqual([]);
      const processor = newProcessor();
      feedV08(processor, messages);
      for (const begin of begins) expect(processor.getSurfaces().get(begin.surfaceId)?.styles).toEqual(begin.styles);
    }), { numRuns: RUNS });
    expect(started).toBeGreaterThan(RUNS / 2);
  }, LONG);

  it('v0.9: every createSurface carries it as theme, valid against the basic catalogue\'s theme schema', () => {
    let started = 0;
    fc.assert(fc.property(arbConversationIr, arbTheme, (ir, theme) => {
      const options: CompileOptionsBase = { theme };
      const messages = v09Messages(compileConversationToA2uiV09(ir, options));
      expect(JSON.stringify(v09Messages(compileConversationToA2uiV09(ir, options)))).toBe(JSON.stringify(messages));
      const creates = messages.flatMap((m) => ('createSurface' in m ? [m.createSurface] : []));
      started += creates.length;
      for (const create of creates) {
        // The basic catalogue's theme has no font: only the colour travels.
        expect(create.theme).toEqual({ primaryColor: theme.primaryColor });
        expect(themeSchemaV09(create.theme)).toBe(true);
      }
      expect(validateA2uiV09Messages(messages).filter((v) => v.severity !== 'warning')).toEqual([]);
      const oracle = newOracle();
      feedV09(oracle, messages);
      for (const create of creates) expect(oracle.processor.model.getSurface(create.surfaceId)?.theme).toEqual(create.theme);
    }), { numRuns: RUNS });
    expect(started).toBeGreaterThan(RUNS / 2);
  }, LONG);

  it('updates stay valid under a theme: a surface re-created on the way carries it too', () => {
    silenceWc();
    fc.assert(fc.property(arbTransitionSequence, arbTheme, (steps, theme) => {
      const irs = applyTransitions(steps);
      const v08 = newProcessor();
      const v09 = newOracle();
      for (let i = 1; i < irs.length; i += 1) {
        const a = compileA2uiUpdate(irs[i - 1], irs[i]!, { theme });
        const b = compileA2uiV09Update(irs[i - 1], irs[i]!, { theme });
        const m08 = v08Messages(a);
        const m09 = v09Messages(b);
        for (const m of m08) if ('beginRendering' in m) expect(m.beginRendering.styles?.primaryColor).toBe(theme.primaryColor);
        for (const m of m09) if ('createSurface' in m) expect(m.createSurface.theme).toEqual({ primaryColor: theme.primaryColor });
        feedV08(v08, m08, `step ${i}`);
        feedV09(v09, m09, `step ${i}`);
      }
    }), { numRuns: 60 });
  }, LONG);

  it('a primaryColor outside #rrggbb is left out with a warning, never sent', () => {
    fc.assert(fc.property(arbConversationIr, fc.constantFrom('red', '#12345', '#1234567', 'url(x)', ''), (ir, primaryColor) => {
      const v08 = compileConversationToA2ui(ir, { theme: { primaryColor } });
      const v09 = compileConversationToA2uiV09(ir, { theme: { primaryColor } });
      for (const m of v08Messages(v08)) if ('beginRendering' in m) expect(m.beginRendering.styles?.primaryColor).toBeUndefined();
      for (const m of v09Messages(v09)) if ('createSurface' in m) expect(m.createSurface.theme).toBeUndefined();
      // Only a started surface needs the colour: the warning comes with any batch.
      if (v08.ok && v08.batches.length > 0) expect(v08.batches[0]!.warnings.map((w) => w.code)).toContain('A2UI_S2C_STYLES_INVALID');
      if (v09.ok && v09.batches.length > 0) expect(v09.batches[0]!.warnings.map((w) => w.code)).toContain('A2UI_S2C_STYLES_INVALID');
    }), { numRuns: 40 });
  });
});
