import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { createEnvelopeStreamReader, runDirectives, runModelOutput, validateBatch, validateModelOutput } from '../../src/directives/index.ts';
import { looksLikeDirectives } from '../../src/directives/drift.ts';
import { createSeededSource, emptyConversation } from '../../src/ui-ir/index.ts';
import { deepFreeze, validDirective, validDirectiveEnvelope, type Envelope } from '../support/arbitraries-directives.ts';

/**
 * Only the answer is applied (issue 32): a model that writes its answer and then, in prose,
 * quotes other JSON (an example, an explanation of the answer) must not have the quoted JSON
 * applied as a second answer that repeats or undoes the first. The first whole answer wins; a
 * run of lone directives or tool calls before any whole answer is the answer.
 */
const registry = createDemoDirectiveRegistry();
const TOAST = { type: 'ui.toast', payload: { level: 'success', text: 'Saved!' } };
const CARD = { type: 'ui.show_form', payload: { template: 'character_card', values: { name: 'Aria' } } };
const CLOSE = { type: 'ui.close', payload: { surface: 'main' } };
const envelope = (...directives: object[]): string => JSON.stringify({ directives });
const fence = (json: string): string => `\`\`\`json\n${json}\n\`\`\``;

function read(text: string) {
  const r = validateModelOutput(registry, text, { mode: 'best_effort' });
  return { ...r, canonical: r.directives.map(({ type, payload }) => ({ type, payload })), codes: r.warnings.map((w) => w.code) };
}

describe('JSON quoted after the answer is not applied', () => {
  it.each([
    ['an envelope, then an example envelope that would undo it', `${envelope(CARD)}\n\nTo close it later: ${envelope(CLOSE)}`, [CARD]],
    ['an envelope, then the same directive quoted to explain it', `${envelope(TOAST)}\nThe directive ${JSON.stringify(TOAST)} shows a toast.`, [TOAST]],
    ['a fenced envelope, then a fenced example', `Here:\n${fence(envelope(CARD))}\nOr:\n${fence(envelope(CLOSE))}`, [CARD]],
    ['a bare list, then a quoted tool call', `[${JSON.stringify(TOAST)}]\nSame as {"name": "ui.close", "arguments": {"surface": "main"}}`, [TOAST]],
    ['tool calls, then the envelope they stand for', `<tool_call>{"name": "ui.toast", "arguments": ${JSON.stringify(TOAST.payload)}}</tool_call>\nAs an envelope: ${envelope(TOAST)}`, [TOAST]],
    ['an envelope, then an XML tool call in prose', `${envelope(CARD)}\nWith tools: <invoke name="ui.close"><parameter name="surface">main</parameter></invoke>`, [CARD]],
    ['an OpenAI tool_calls message, then an example', `${JSON.stringify({ tool_calls: [{ type: 'function', function: { name: 'ui.toast', arguments: JSON.stringify(TOAST.payload) } }] })}\ne.g. ${envelope(CLOSE)}`, [TOAST]],
  ])('%s', (_name, text, expected) => {
    const r = read(text);
    expect(r.errors).toEqual([]);
    expect(r.canonical).toEqual(expected);
    expect(r.codes).toContain('DIRECTIVE_WARN_EXTRA_JSON_IGNORED');
    expect(r.warnings.find((w) => w.code === 'DIRECTIVE_WARN_EXTRA_JSON_IGNORED')?.pointer).toBe('');
  });

  it('keeps the answer\'s own text, not the quoted one\'s', () => {
    const r = read(`${JSON.stringify({ assistant_text: 'Here is the card.', directives: [CARD] })}\nFor example ${JSON.stringify({ assistant_text: 'Closed.', directives: [CLOSE] })}`);
    expect([r.canonical, r.assistantText]).toEqual([[CARD], 'Here is the card.']);
  });

  it('a complete answer followed by a cut-off example is the answer (the example is prose)', () => {
    const r = read(`${envelope(TOAST)}\n\nA longer one: {"directives": [{"type": "ui.toast", "payload": {"level": "in`);
    expect([r.errors, r.canonical]).toEqual([[], [TOAST]]);
    expect(r.codes).toEqual(['DIRECTIVE_WARN_TEXT_REPAIRED']);
  });

  it('still reads several lone directives and tool calls as one answer', () => {
    const r = read(`${JSON.stringify(CARD)}\n\nand then\n\n${JSON.stringify(TOAST)}`);
    expect(r.canonical).toEqual([CARD, TOAST]);
    expect(r.codes).not.toContain('DIRECTIVE_WARN_EXTRA_JSON_IGNORED');
  });

  it.each([
    ['lone directives whose last one is cut off', `${JSON.stringify(CARD)}\n{"type": "ui.toast", "payload": {"lev`, 'DIRECTIVE_REPLY_TRUNCATED'],
    ['an answer cut off before its example', `${envelope(CARD).slice(0, -3)}`, 'DIRECTIVE_REPLY_TRUNCATED'],
    ['an envelope inside broken JSON', `{"result": ${envelope(TOAST)} oops}\n${envelope(CLOSE)}`, 'DIRECTIVE_PARSE_FAILED'],
  ])('still refuses %s', (_name, text, code) => {
    expect(read(text).errors.map((e) => e.code)).toContain(code);
  });

  it('strict mode refuses an answer with quoted JSON after it and changes nothing', () => {
    const ir = deepFreeze(emptyConversation('s'));
    const r = runModelOutput(registry, ir, `${envelope(TOAST)}\ne.g. ${envelope(CLOSE)}`, { mode: 'strict', source: createSeededSource('s') });
    expect(r.errors.map((e) => e.technical_detail)).toContainEqual(expect.stringContaining('DIRECTIVE_WARN_EXTRA_JSON_IGNORED'));
    expect(r.ir).toBe(ir);
  });
});

/** Prose a model writes around JSON: no brackets (they would open JSON) and no tags (reasoning, tool calls). */
const words = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => !/[{[<`~]/.test(s));

/** Any JSON object a model may quote: an envelope, a directive, a tool call, or arbitrary JSON. */
const quoted = fc.oneof(
  validDirectiveEnvelope({ maxDirectives: 2 }),
  validDirective(),
  validDirective().map((d) => ({ name: d.type, arguments: d.payload })),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
);

/** How the answer is written: compact, pretty, fenced, or a bare list. */
const rendering = fc.constantFrom('compact', 'pretty', 'fenced', 'bare');

/** The answer as the prompt asks for it: its text first (a text after the directives is read whole, not streamed). */
function render(answer: Envelope, how: string): string {
  if (how === 'bare' && answer.directives.length > 0) return JSON.stringify(answer.directives);
  const ordered = answer.assistant_text === undefined ? answer : { assistant_text: answer.assistant_text, directives: answer.directives };
  if (how === 'pretty') return JSON.stringify(ordered, null, 2);
  if (how === 'fenced') return fence(JSON.stringify(ordered));
  return JSON.stringify(ordered);
}

function cuts(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  return [...points, text.length].map((p, i) => text.slice(i === 0 ? 0 : points[i - 1], p));
}

describe('any answer followed by prose holding any JSON object', () => {
  fcTest.prop([validDirectiveEnvelope(), rendering, fc.array(fc.tuple(words, quoted, fc.boolean()), { minLength: 1, maxLength: 3 }), words, fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 200 })(
    'only the answer\'s directives are applied, whole and streamed at any chunk boundaries',
    (answer, how, quotes, tail, at) => {
      const text = `${render(answer, how)}${quotes.map(([before, value, fenced]) => `\n${before} ${fenced ? fence(JSON.stringify(value)) : JSON.stringify(value)}`).join('')}\n${tail}`;
      const own = how === 'bare' && answer.directives.length > 0 ? { directives: answer.directives } : answer;
      const expected = validateBatch(registry, own, { mode: 'best_effort' });
      const whole = validateModelOutput(registry, text, { mode: 'best_effort' });
      expect(whole.errors).toEqual([]);
      expect(whole.directives.map(({ type, payload }) => ({ type, payload }))).toEqual(expected.directives.map(({ type, payload }) => ({ type, payload })));
      expect(whole.assistantText).toEqual(expected.assistantText);
      if (quotes.some(([, value]) => looksLikeDirectives(value))) expect(whole.warnings.map((w) => w.code)).toContain('DIRECTIVE_WARN_EXTRA_JSON_IGNORED');

      const ir = deepFreeze(emptyConversation('q'));
      const applied = runModelOutput(registry, ir, text, { mode: 'best_effort', source: createSeededSource('q') });
      expect(applied.ir).toEqual(runDirectives(registry, ir, own, { mode: 'best_effort', source: createSeededSource('q') }).ir);

      const reader = createEnvelopeStreamReader(registry, { mode: 'best_effort' });
      for (const chunk of cuts(text, at)) reader.push(chunk);
      const end = reader.finish();
      expect(end.agrees).toBe(true);
      expect([...reader.yielded, ...end.rest].map((d) => [d.index, d.type])).toEqual(whole.directives.map((d) => [d.index, d.type]));
    },
  );
});
