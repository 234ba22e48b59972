import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../eval/fixture.ts';
import { createDemoApp } from '../../src/app/index.ts';
import { createEnvelopeStreamReader, runModelOutput, applyValidated, validateModelOutput, type StreamEvent } from '../../src/directives/index.ts';
import { createSeededSource, emptyConversation } from '../../src/ui-ir/index.ts';

/**
 * The incremental envelope reader: fed an answer in chunks it yields the assistant text as it
 * grows and each directive when its JSON object closes, validated as the whole answer would be.
 * Property over every fixture answer of the eval (test/fixtures/model-outputs) and random chunk
 * boundaries: the events do not depend on the boundaries, no directive is yielded before its
 * closing brace arrived, and what streaming applies (yielded, then the rest) is what the whole
 * answer applies.
 */
const registry = createDemoApp().directives;
const fixtures = loadFixtures();
const answers = fixtures.flatMap((f) => [{ id: f.id, text: f.answer }, ...(f.repair ? [{ id: `${f.id}#repair`, text: f.repair.answer }] : [])]);

function chunked(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) { out.push(text.slice(from, p)); from = p; }
  out.push(text.slice(from));
  return out;
}

type Summary = { text: string; directives: Array<{ index: number; type: string; payload: string; offset: number }>; rejected: number[] };

function read(chunks: string[]): { summary: Summary; reader: ReturnType<typeof createEnvelopeStreamReader>; events: Array<{ event: StreamEvent; pushed: number }> } {
  const reader = createEnvelopeStreamReader(registry, { mode: 'best_effort' });
  const summary: Summary = { text: '', directives: [], rejected: [] };
  const events: Array<{ event: StreamEvent; pushed: number }> = [];
  let pushed = 0;
  for (const chunk of chunks) {
    pushed += chunk.length;
    for (const event of reader.push(chunk)) {
      events.push({ event, pushed });
      if (event.kind === 'text') summary.text += event.delta;
      else if (event.kind === 'directive') summary.directives.push({ index: event.directive.index, type: event.directive.type, payload: JSON.stringify(event.directive.payload), offset: event.offset });
      else summary.rejected.push(event.index);
    }
  }
  return { summary, reader, events };
}

describe('incremental envelope reader', () => {
  it('yields the text as it grows and a directive when its object closes, not before', () => {
    const answer = '{"assistant_text":"Hello \\"you\\" \\u00e9","directives":[{"type":"ui.toast","payload":{"level":"info","text":"a}"}},{"type":"ui.toast","payload":{"level":"info","text":"b"}}]}';
    const firstEnd = answer.indexOf('}},') + 2;
    const { summary, events } = read(chunked(answer, [10, 20, firstEnd - 1, firstEnd, firstEnd + 5]));
    expect(summary.text).toBe('Hello "you" é');
    expect(summary.directives.map((d) => d.offset)).toEqual([firstEnd, answer.length - 2]);
    // The first directive is yielded by the chunk that carried its closing brace, before the rest arrived.
    const first = events.find((e) => e.event.kind === 'directive')!;
    expect(first.pushed).toBe(firstEnd);
    // Text grew over several chunks.
    expect(events.filter((e) => e.event.kind === 'text').length).toBeGreaterThan(1);
  });

  it('rejects a directive that fails validation by itself and goes on with the next', () => {
    const answer = '{"assistant_text":"x","directives":[{"type":"ui.nope","payload":{}},{"type":"ui.toast","payload":{"level":"info","text":"b"}}]}';
    const { summary, reader } = read([answer]);
    expect(summary.rejected).toEqual([0]);
    expect(summary.directives.map((d) => d.index)).toEqual([1]);
    expect(reader.finish().agrees).toBe(true);
  });

  it('does not read a dialect progressively (single quotes): the whole answer is read at the end', () => {
    const answer = "{'directives':[{'type':'ui.toast','payload':{'level':'info','text':'b'}}]}";
    const { summary, reader } = read([answer]);
    expect(summary.directives).toEqual([]);
    const end = reader.finish();
    expect(end.rest.map((d) => d.type)).toEqual(['ui.toast']);
  });

  it('a cut-off answer keeps the directives that closed; the whole reading says it was truncated', () => {
    const answer = '{"assistant_text":"x","directives":[{"type":"ui.toast","payload":{"level":"info","text":"a"}},{"type":"ui.toast","payload":{"level":"in';
    const { summary, reader } = read([answer]);
    expect(summary.directives).toHaveLength(1);
    const end = reader.finish();
    expect(end.whole.errors.map((e) => e.code)).toContain('DIRECTIVE_REPLY_TRUNCATED');
    expect(end.rest).toEqual([]);
  });

  // Answers with JSON quoted after them, and XML tool calls (issue 32): split at every single boundary.
  const everyBoundary = fixtures.filter((f) => ['quoted_json_after', 'tool_call_xml'].includes(f.category) || f.id.startsWith('hw.xml-'));
  it.each(everyBoundary.map((f) => [f.id, f.answer]))('%s: the same events and the same directives as read whole, split at every boundary', (_id, text) => {
    const once = read([text]).summary;
    const whole = validateModelOutput(registry, text, { mode: 'best_effort' }).directives.map((d) => [d.index, d.type, JSON.stringify(d.payload)]);
    for (let at = 0; at <= text.length; at++) {
      const { summary, reader } = read([text.slice(0, at), text.slice(at)]);
      expect(summary).toEqual(once);
      const end = reader.finish();
      expect(end.agrees).toBe(true);
      if (!end.truncated) expect([...reader.yielded, ...end.rest].map((d) => [d.index, d.type, JSON.stringify(d.payload)])).toEqual(whole);
    }
  });

  test.prop([fc.constantFrom(...answers), fc.array(fc.nat(), { maxLength: 12 })], { numRuns: 400 })(
    'over every fixture answer and random chunk boundaries: the same events as read whole, and the same applied result as non-streamed',
    ({ text }, cuts) => {
      const once = read([text]).summary;
      const { summary, reader, events } = read(chunked(text, cuts));
      expect(summary).toEqual(once);
      // Never half a directive: a directive is yielded only once its closing brace was pushed.
      for (const { event, pushed } of events) if (event.kind === 'directive') expect(event.offset).toBeLessThanOrEqual(pushed);
      const end = reader.finish();
      expect(end.agrees).toBe(true);
      if (end.truncated) {
        // Cut off: nothing more comes of the whole answer; what closed before the cut stays.
        expect(end.rest).toEqual([]);
        return;
      }
      const whole = validateModelOutput(registry, text, { mode: 'best_effort' });
      const streamed = [...reader.yielded, ...end.rest];
      expect(streamed.map((d) => [d.index, d.type, JSON.stringify(d.payload)])).toEqual(whole.directives.map((d) => [d.index, d.type, JSON.stringify(d.payload)]));
      // Applied the streamed way, as the server does (one part per yielded directive, the answer's
      // text with the first, then what the end left), the IR is the whole answer's.
      const ir = emptyConversation('p');
      const wholeRun = runModelOutput(registry, ir, text, { mode: 'best_effort', source: createSeededSource('s') });
      const source = createSeededSource('s');
      const { assistantText: _text, ...noText } = whole;
      const parts = [...reader.yielded.map((d) => [d]), end.rest];
      let streamedIr = ir;
      parts.forEach((directives, i) => {
        const part = i === 0 && whole.assistantText !== undefined ? { ...noText, assistantText: whole.assistantText, directives } : { ...noText, directives };
        streamedIr = applyValidated(streamedIr, part, { mode: 'best_effort', source }).ir;
      });
      expect(streamedIr).toEqual(wholeRun.ir);
      if (reader.yielded.length > 0) expect(reader.appliedText).toBe(whole.assistantText);
      // The preview text is the whole answer's text whenever the envelope is readable whole.
      if (summary.text !== '' && whole.errors.length === 0 && whole.assistantText !== undefined) expect(whole.assistantText.startsWith(summary.text)).toBe(true);
    },
  );
});
