import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { runModelOutput, validateBatch, validateModelOutput } from '../../src/directives/index.ts';
import { stripReasoning } from '../../src/directives/reply-text.ts';
import { isErrorCode, SurfacerErrorSchema } from '../../src/errors/index.ts';
import { createSeededSource, emptyConversation } from '../../src/ui-ir/index.ts';
import { deepFreeze, driftVariant, validDirectiveEnvelope } from '../support/arbitraries-directives.ts';

/**
 * What models of the common families send when they drift from the envelope (issue 12): each
 * drift is read with its own warning code or refused with a stable code, never a crash.
 */
const registry = createDemoDirectiveRegistry();
const TOAST = { type: 'ui.toast', payload: { level: 'info', text: 'hi' } };
const ENVELOPE = JSON.stringify({ directives: [TOAST] });
const ARGS = '{"level": "info", "text": "hi"}';

const codes = (list: ReadonlyArray<{ code: string }>): string[] => [...new Set(list.map((w) => w.code))].sort();

function read(text: string) {
  const r = validateModelOutput(registry, text, { mode: 'best_effort' });
  return { ...r, canonical: r.directives.map(({ type, payload }) => ({ type, payload })) };
}

describe('drift recovered with a warning', () => {
  it.each([
    ['a <think> block holding braces', `<think>\nThe user wants {"type": "ui.toast"} or [maybe] a form.\n</think>\n\n${ENVELOPE}`, ['DIRECTIVE_WARN_REASONING_STRIPPED']],
    ['DeepSeek-R1 reasoning closed without an opening tag', `Okay, {so} the user…\n</think>\n\n\`\`\`json\n${ENVELOPE}\n\`\`\``, ['DIRECTIVE_WARN_REASONING_STRIPPED', 'DIRECTIVE_WARN_TEXT_REPAIRED']],
    ['Mistral [THINK] reasoning', `[THINK]Need a toast. {x}[/THINK]${ENVELOPE}`, ['DIRECTIVE_WARN_REASONING_STRIPPED']],
    ['gpt-oss analysis channel', `<|channel|>analysis<|message|>Toast {x}.<|end|><|start|>assistant<|channel|>final<|message|>${ENVELOPE}<|return|>`, ['DIRECTIVE_WARN_REASONING_STRIPPED', 'DIRECTIVE_WARN_TEXT_REPAIRED']],
    ['an OpenAI-style tool call, arguments an object', `{"name": "ui.toast", "arguments": ${ARGS}}`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['an OpenAI-style tool call, arguments a JSON string', JSON.stringify({ name: 'ui.toast', arguments: ARGS }), ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['an OpenAI tool_calls message', JSON.stringify({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ui.toast', arguments: ARGS } }] }), ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a Hermes/Qwen <tool_call> tag', `<tool_call>\n{"name": "ui.toast", "arguments": ${ARGS}}\n</tool_call>`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a Mistral [TOOL_CALLS] list', `[TOOL_CALLS] [{"name": "ui.toast", "arguments": ${ARGS}}]`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a Llama <|python_tag|> call with parameters', `<|python_tag|>{"name": "ui.toast", "parameters": ${ARGS}}<|eom_id|>`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TEXT_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a Llama <function=…> call', `<function=ui.toast>${ARGS}</function>`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a DeepSeek tool-call block', `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ui.toast\n\`\`\`json\n${ARGS}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a gpt-oss commentary-channel tool call', `<|channel|>commentary to=functions.ui.toast <|constrain|>json<|message|>${ARGS}<|call|>`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a Mistral v11 [TOOL_CALLS]name[ARGS] call', `[TOOL_CALLS]ui.toast[ARGS]${ARGS}`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a Llama 3.2 {"type": "function", "name", "parameters"} call', `{"type": "function", "name": "ui.toast", "parameters": ${ARGS}}`, ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['a Gemma tool_code Python call', "```tool_code\nui.toast(level='info', text='hi')\n```", ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TEXT_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['an XML <invoke> call', '<function_calls>\n<invoke name="ui.toast">\n<parameter name="level">info</parameter>\n<parameter name="text">hi</parameter>\n</invoke>\n</function_calls>', ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_TOOL_CALL_READ']],
    ['Python literals and single quotes', `{'directives': [{'type': 'ui.toast', 'payload': {'level': 'info', 'text': 'hi', 'surface': None}}]}`, ['DIRECTIVE_WARN_COERCED', 'DIRECTIVE_WARN_TEXT_REPAIRED']],
    ['JavaScript object literal with a comment', `{directives: [{type: 'ui.toast', payload: {level: 'info', text: 'hi'}}]} // done`, ['DIRECTIVE_WARN_TEXT_REPAIRED']],
    ['an envelope encoded as a JSON string', JSON.stringify(ENVELOPE), ['DIRECTIVE_WARN_SHAPE_REPAIRED']],
    ['directives encoded as a JSON string', JSON.stringify({ directives: JSON.stringify([TOAST]) }), ['DIRECTIVE_WARN_SHAPE_REPAIRED']],
    ['action/params for type/payload', '{"directives": [{"action": "ui.toast", "params": {"level": "info", "text": "hi"}}]}', ['DIRECTIVE_WARN_KEY_SYNONYM']],
    ['op/arguments for type/payload', `{"directives": [{"op": "toast", "arguments": ${ARGS}}]}`, ['DIRECTIVE_WARN_ALIAS_USED', 'DIRECTIVE_WARN_KEY_SYNONYM']],
    ['a single "directive"', `{"directive": ${JSON.stringify(TOAST)}}`, ['DIRECTIVE_WARN_KEY_SYNONYM', 'DIRECTIVE_WARN_SHAPE_REPAIRED']],
    ['null for an optional field', '{"directives": [{"type": "ui.toast", "payload": {"level": "info", "text": "hi", "surface": null}}], "assistant_text": null}', ['DIRECTIVE_WARN_COERCED']],
  ])('%s', (_name, text, expected) => {
    const r = read(text);
    expect(r.errors).toEqual([]);
    expect(r.canonical).toEqual([TOAST]);
    expect(codes(r.warnings)).toEqual(expected);
  });

  it('reads an envelope with a message and no directives as a message', () => {
    const r = read('{"assistant_text": "Hello!"}');
    expect([r.errors, r.canonical, r.assistantText]).toEqual([[], [], 'Hello!']);
    expect(codes(r.warnings)).toEqual(['DIRECTIVE_WARN_SHAPE_REPAIRED']);
  });

  it('reads yes/no for a boolean and one object for a list', () => {
    const r = read('{"directives": [{"type": "ui.show_form", "payload": {"template": "scene_settings", "values": {"content_warnings": "yes"}}}]}');
    expect(r.canonical[0]!.payload).toEqual({ template: 'scene_settings', values: { content_warnings: true } });
    const list = validateModelOutput(registry, '{"directives": [{"type": "ui.request_upload", "payload": {"accept": {"x": 1}, "purpose": "p"}}]}', { mode: 'best_effort' });
    expect(list.errors.map((e) => e.pointer)).toEqual(['/directives/0/payload/accept/0']);
  });

  it('reads "message" as the assistant text of an envelope', () => {
    const r = read(`{"message": "Done!", "directives": [${JSON.stringify(TOAST)}]}`);
    expect(r.assistantText).toBe('Done!');
    expect(codes(r.warnings)).toEqual(['DIRECTIVE_WARN_KEY_SYNONYM']);
  });

  it.each([['NaN'], ['Infinity'], ['-Infinity'], ['1e999']])('reads a non-finite number (%s) for an optional field as absent', (n) => {
    const r = read(`{"directives": [{"type": "ui.show_form", "payload": {"template": "scene_settings", "values": {"tone": ${n}, "genre": "fantasy"}}}]}`);
    expect(r.errors).toEqual([]);
    expect(r.canonical).toEqual([{ type: 'ui.show_form', payload: { template: 'scene_settings', values: { genre: 'fantasy' } } }]);
    expect(r.warnings.find((w) => w.code === 'DIRECTIVE_WARN_COERCED')?.pointer).toBe('/directives/0/payload/values/tone');
  });

  it('keeps tags, apostrophes and Python words that are inside JSON strings', () => {
    const text = JSON.stringify({ directives: [{ type: 'ui.toast', payload: { level: 'info', text: "<think>it's True</think> None" } }] });
    const r = read(text);
    expect(r.warnings).toEqual([]);
    expect(r.canonical[0]!.payload).toEqual({ level: 'info', text: "<think>it's True</think> None" });
  });

  it('does not take a name that is no directive for a type', () => {
    const r = read('{"directives": [{"name": "Aria", "arguments": {"x": 1}}]}');
    expect(r.errors.map((e) => [e.code, e.pointer])).toEqual([['DIRECTIVE_UNKNOWN_TYPE', '/directives/0/type']]);
  });
});

describe('drift refused with a stable code', () => {
  it.each([
    ['a reply cut off inside the JSON', `{"directives": [${JSON.stringify(TOAST)}, {"type": "ui.show_form", "payload": {"templ`, 'DIRECTIVE_REPLY_TRUNCATED'],
    ['a reply cut off inside its reasoning', '<think>\nThe user wants a toast, so I will write {"directives":', 'DIRECTIVE_REPLY_TRUNCATED'],
    ['A2UI written directly', '{"surfaceUpdate": {"surfaceId": "main", "components": [{"id": "root", "component": {"Text": {"text": {"literalString": "hi"}}}}]}}', 'DIRECTIVE_MARKUP_FORBIDDEN'],
    ['A2UI messages as JSONL', '{"beginRendering": {"surfaceId": "main", "root": "root"}}\n{"dataModelUpdate": {"surfaceId": "main", "contents": []}}', 'DIRECTIVE_MARKUP_FORBIDDEN'],
    ['an A2UI message inside the envelope', '{"directives": [{"surfaceUpdate": {"surfaceId": "main", "components": []}}]}', 'DIRECTIVE_MARKUP_FORBIDDEN'],
    ['HTML written directly', '<form method="post"><label>Name <input name="name"></label><button>Save</button></form>', 'DIRECTIVE_MARKUP_FORBIDDEN'],
    ['an empty reply', '   \n', 'DIRECTIVE_PARSE_FAILED'],
    ['only reasoning', '<think>Hmm {x}</think>\n', 'DIRECTIVE_PARSE_FAILED'],
    ['broken JSON', '```json\n{"directives": [{"type": "ui.toast" "payload": {}}]}\n```', 'DIRECTIVE_PARSE_FAILED'],
    ['JSON that is not an envelope', '{"answer": 42}', 'DIRECTIVE_ENVELOPE_INVALID'],
    ['an unknown directive', '{"directives": [{"type": "ui.render_html", "payload": {"html": "<b>x</b>"}}]}', 'DIRECTIVE_UNKNOWN_TYPE'],
    ['a tool call of an unknown tool', '<tool_call>{"name": "web_search", "arguments": {"q": "x"}}</tool_call>', 'DIRECTIVE_UNKNOWN_TYPE'],
  ])('%s', (_name, text, code) => {
    const r = read(text);
    expect(r.ok).toBe(false);
    expect(r.errors.map((e) => e.code)).toContain(code);
  });

  it('never half-applies a truncated reply whose first directives are complete', () => {
    const ir = deepFreeze(emptyConversation('t'));
    const text = `{"directives": [${JSON.stringify(TOAST)}, ${JSON.stringify(TOAST)}, {"type": "ui.toast", "payload": {"lev`;
    const r = runModelOutput(registry, ir, text, { mode: 'best_effort', source: createSeededSource('t') });
    expect(r.applied).toEqual([]);
    expect(r.ir).toBe(ir);
  });
});

/** Fragments that steer random text into the parser's drift paths. */
const drifty = fc.array(fc.constantFrom(
  '{', '}', '[', ']', '"', "'", ',', ':', '\\', '```json\n', '<think>', '</think>', '[THINK]', '<tool_call>', '</tool_call>',
  '[TOOL_CALLS]', '<|python_tag|>', '<function=ui.toast>', '</function>', '<|channel|>analysis<|message|>', '<|end|>',
  'True', 'None', 'NaN', '-Infinity', '1e999', '//', '/*', '*/', '"name":', '"arguments":', '"params":', '"action":',
  '"directives":', '"directive":', '"tool_calls":', '"type":', '"ui.toast"', '"payload":', '"level":"info"', '"text":"x"',
  '{type:', '"surfaceUpdate":', '<form>', ' ', '\n', 'null', '"__proto__"',
  '<function_calls>', '</function_calls>', '<invoke name="ui.toast">', '<parameter name="text">', '<parameter name="level">', '</parameter>', '</invoke>',
), { maxLength: 50 }).map((parts) => parts.join(''));

describe('drift properties', () => {
  fcTest.prop([fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), drifty)], { numRuns: 500 })(
    'any text: no throw, and the result is a valid batch or canonical errors; strict changes nothing on error',
    (text) => {
      const r = validateModelOutput(registry, text, { mode: 'best_effort' });
      for (const e of [...r.errors, ...r.warnings]) {
        expect(SurfacerErrorSchema.safeParse(e).success).toBe(true);
        expect(isErrorCode(e.code)).toBe(true);
      }
      if (r.errors.length === 0) {
        const again = validateBatch(registry, { directives: r.directives.map(({ type, payload }) => ({ type, payload })) }, { mode: 'strict' });
        expect(again.errors).toEqual([]);
      }
      const ir = deepFreeze(emptyConversation('p'));
      const strict = runModelOutput(registry, ir, text, { mode: 'strict', source: createSeededSource('p') });
      if (strict.errors.length > 0) expect(strict.ir).toBe(ir);
    },
  );

  fcTest.prop([validDirectiveEnvelope(), fc.string({ maxLength: 40 })], { numRuns: 200 })(
    'every drift rendering of a valid envelope reads back the same directives, with a warning',
    (envelope, noise) => {
      const expected = validateBatch(registry, envelope, { mode: 'strict' }).directives.map(({ type, payload }) => ({ type, payload }));
      for (const variant of driftVariant(envelope, noise)) {
        const r = validateModelOutput(registry, variant.text, { mode: 'best_effort' });
        expect(r.errors, variant.kind).toEqual([]);
        expect(r.directives.map(({ type, payload }) => ({ type, payload })), variant.kind).toEqual(expected);
        expect(r.warnings.length, variant.kind).toBeGreaterThan(0);
      }
    },
  );
});

describe('reasoning blocks around any text', () => {
  // toLowerCase() changes the length of some letters ('İ' → 'i̇'): indexes found in lowered text
  // once cut the reply in the wrong places.
  fcTest.prop([fc.string({ unit: 'binary' }).filter((t) => !t.includes('<')), fc.string({ unit: 'binary' }).filter((t) => !t.includes('<'))])(
    'a think block is cut out exactly, whatever comes before it',
    (before, thought) => {
      expect(stripReasoning(`${before}<think>${thought}</think>{"x":1}`)).toEqual({ text: `${before}{"x":1}`, found: true, unclosed: false });
    },
  );

  it('reads the envelope after a reasoning block in a reply that starts with non-ASCII text', () => {
    const result = validateModelOutput(createDemoDirectiveRegistry(), 'İİİ <think>plan</think>{"assistant_text":"Merhaba!","directives":[]}', { mode: 'best_effort' });
    expect(result.assistantText).toBe('Merhaba!');
  });
});
