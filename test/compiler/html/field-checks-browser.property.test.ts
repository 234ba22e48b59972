import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileConversationToHtml } from '../../../src/compiler/html/index.ts';
import { emptyConversation, failedRule, openSurface, createSeededSource, draw, patternProblem, type FieldBlock, type FieldControl } from '../../../src/ui-ir/index.ts';
import { chromiumSuite } from '../../support/browser/index.ts';

/*
 * Issue 32 item 1, the HTML half of the property: for any field rules and any value a person
 * types, the htmx page's verdict in Chromium (its constraint validation, with app.js putting the
 * server's words on it) is the server's, with the same message; with JavaScript off the
 * attributes alone give the same verdict on every input (a textarea has no pattern attribute:
 * there the server's refusal says it).
 */
const APP_JS = readFileSync(new URL('../../../src/host-html/static/app.js', import.meta.url), 'utf8');

const atoms = ['a', 'Z', '0', '-', '@', '\\d', '\\w', '\\s', '[a-z]', '[A-Z0-9]', '(?:ab|c)'];
const pattern = fc.array(fc.tuple(fc.constantFrom(...atoms), fc.constantFrom('', '?', '*', '+', '{2}', '{1,3}')), { minLength: 1, maxLength: 4 })
  .map((xs) => xs.map(([a, q]) => `${a}${q}`).join(''))
  .filter((p) => patternProblem(p) === undefined);
const TEXT_CONTROLS: FieldControl[] = ['text', 'secret', 'email', 'url', 'tags', 'textarea'];
const field = (controls: readonly FieldControl[]): fc.Arbitrary<FieldBlock> => fc.record({
  control: fc.constantFrom(...controls),
  required: fc.boolean(),
  minLength: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  maxLength: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  pattern: fc.option(fc.record({ regex: pattern, message: fc.constant('Not in the form asked for.') }), { nil: undefined }),
}).map((r) => {
  const f: FieldBlock = { kind: 'field', name: 'answer', label: 'Answer', control: r.control, required: r.required };
  if (r.minLength !== undefined) f.minLength = r.minLength;
  if (r.maxLength !== undefined) f.maxLength = Math.max(r.maxLength, r.minLength ?? 0);
  if (r.pattern !== undefined) f.pattern = r.pattern;
  return f;
});
/** What a person types: any characters, and the ones the patterns name. (A text input drops line breaks: the value it holds is what is judged.) */
const typed = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '0', '7', ' ', '@', '-', '.', 'é', '😀', 'x', ':', '/'), maxLength: 9 }),
  fc.constantFrom('a@b.co', 'ada@example.org', 'https://example.com/x', 'http://a b', '   ', 'ab', 'AB12'),
);

/** The form of one field, as the htmx page shows it. */
function formHtml(f: FieldBlock): string {
  const source = createSeededSource('html-checks');
  const ir = openSurface(emptyConversation('c1'), {
    id: 'main', view: { template: 'checks', title: 'Checks', blocks: [f], actions: [{ name: 'ask.submit', label: 'Send', role: 'submit', primary: true }] },
    draft: { answer: '' },
  }, draw(source));
  return compileConversationToHtml(ir).html;
}

type Seen = { valid: boolean; message: string; held: string };

/**
 * Each form shown, the value typed as a person types it (Playwright's fill: an edit by the user,
 * which is what makes a browser apply minlength and maxlength), the verdict read.
 */
async function judge(page: import('playwright-core').Page, cases: Array<{ html: string; value: string }>): Promise<Seen[]> {
  const out: Seen[] = [];
  for (const { html, value } of cases) {
    await page.evaluate((markup) => { document.getElementById('root')!.innerHTML = markup; }, html);
    const control = page.locator('[name="answer"]');
    await control.fill(value);
    out.push(await control.evaluate((el: HTMLInputElement | HTMLTextAreaElement) => {
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { valid: el.checkValidity(), message: el.validationMessage, held: el.value };
    }));
  }
  return out;
}

describe('the htmx page\'s field checks in Chromium', () => {
  const chromium = chromiumSuite();

  for (const js of [true, false]) {
    it(`give the server's verdict${js ? ' and words (JavaScript on)' : ' on every input (JavaScript off)'}, for any rules and anything typed`, async () => {
      const context = await chromium.browser.newContext({ javaScriptEnabled: true });
      try {
        const page = await context.newPage();
        await page.setContent('<!doctype html><html><head><title>checks</title></head><body><div id="root"></div></body></html>');
        // JavaScript off for the page's own script: app.js is simply not there (the test drives the page).
        if (js) await page.addScriptTag({ content: APP_JS });
        // A new sample every run; FIELD_CHECKS_SEED replays one.
        const seed = Number(process.env['FIELD_CHECKS_SEED'] ?? Date.now() % 1_000_000);
        const controls = js ? TEXT_CONTROLS : TEXT_CONTROLS.filter((c) => c !== 'textarea');
        const samples = fc.sample(field(controls).chain((f) => fc.tuple(fc.constant(f), typed)), { numRuns: 400, seed });
        const seen = await judge(page, samples.map(([f, value]) => ({ html: formHtml(f), value })));
        let refused = 0;
        samples.forEach(([f, value], i) => {
          const { valid, message, held } = seen[i]!;
          const server = failedRule(f, held);
          const label = `seed ${seed}: ${JSON.stringify(f)} typed ${JSON.stringify(value)} (held ${JSON.stringify(held)})`;
          expect(valid, label).toBe(server === undefined);
          if (js && server !== undefined) expect(message, label).toBe(server.message);
          if (server !== undefined) refused += 1;
        });
        expect(refused, `seed ${seed}`).toBeGreaterThan(25);
        expect(samples.length - refused, `seed ${seed}`).toBeGreaterThan(25);
      } finally {
        await context.close();
      }
    }, 120_000);
  }
});
