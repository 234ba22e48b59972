import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { createEnvelopeStreamReader, validateBatch, validateModelOutput } from '../../src/directives/index.ts';
import { unwrapXmlToolCalls } from '../../src/directives/tool-call-xml.ts';
import { validDirectiveEnvelope, type Directive } from '../support/arbitraries-directives.ts';

/**
 * Tool calls written as XML-like blocks (`<function_calls>`, `<invoke name>`, `<parameter
 * name>`), as Claude's prompted tool use and some gateways write them: read like the other
 * tool-call syntaxes in the text, with DIRECTIVE_WARN_TOOL_CALL_READ.
 */
const registry = createDemoDirectiveRegistry();
const TOAST = { type: 'ui.toast', payload: { level: 'success', text: 'Saved!' } };
const TOAST_XML = '<invoke name="ui.toast">\n<parameter name="level">success</parameter>\n<parameter name="text">Saved!</parameter>\n</invoke>';

function read(text: string) {
  const r = validateModelOutput(registry, text, { mode: 'best_effort' });
  return { ...r, canonical: r.directives.map(({ type, payload }) => ({ type, payload })), codes: [...new Set(r.warnings.map((w) => w.code))] };
}

describe('XML tool calls read as directives', () => {
  it.each([
    ['a <function_calls> block', `<function_calls>\n${TOAST_XML}\n</function_calls>`, [TOAST]],
    ['a block whose closing tag was a stop sequence', `<function_calls>\n${TOAST_XML}\n`, [TOAST]],
    ['an <invoke> without the block', TOAST_XML, [TOAST]],
    ['prose before the block', `I'll confirm the save.\n\n<function_calls>${TOAST_XML}</function_calls>`, [TOAST]],
    ['single-quoted names and values padded with blank lines', "<invoke name='ui.toast'><parameter name='level'>\nsuccess\n</parameter><parameter name='text'>  Saved!  </parameter></invoke>", [TOAST]],
    ['two calls, in order', `<function_calls>\n<invoke name="ui.show_form"><parameter name="template">persona</parameter></invoke>\n${TOAST_XML}\n</function_calls>`,
      [{ type: 'ui.show_form', payload: { template: 'persona' } }, TOAST]],
    ['JSON values: an object (pretty), a number', '<invoke name="ui.show_form"><parameter name="template">scene_settings</parameter><parameter name="values">{\n  "genre": "horror",\n  "tone": 8\n}</parameter></invoke>',
      [{ type: 'ui.show_form', payload: { template: 'scene_settings', values: { genre: 'horror', tone: 8 } } }]],
    ['a JSON array value', '<invoke name="ui.request_upload"><parameter name="accept">["image/png"]</parameter><parameter name="purpose">An avatar.</parameter></invoke>',
      [{ type: 'ui.request_upload', payload: { accept: ['image/png'], purpose: 'An avatar.' } }]],
    ['after a reasoning block', `<thinking>Saved {x}</thinking>\n<function_calls>${TOAST_XML}</function_calls>`, [TOAST]],
  ])('%s', (_name, text, expected) => {
    const r = read(text);
    expect(r.errors).toEqual([]);
    expect(r.canonical).toEqual(expected);
    expect(r.codes).toContain('DIRECTIVE_WARN_TOOL_CALL_READ');
  });

  it('reads a value that only looks like a number as text where it is not one (leading zero), and a number as a number', () => {
    expect(JSON.parse(unwrapXmlToolCalls('<invoke name="f"><parameter name="a">007</parameter><parameter name="b">-1.5e2</parameter><parameter name="c">true</parameter></invoke>').text))
      .toEqual({ name: 'f', arguments: { a: '007', b: -150, c: 'true' } });
  });

  it('a parameter named __proto__ is an own key, not the prototype', () => {
    const out = unwrapXmlToolCalls('<invoke name="f"><parameter name="__proto__">{"polluted": true}</parameter></invoke>');
    const call = JSON.parse(out.text) as { arguments: Record<string, unknown> };
    expect(Object.hasOwn(call.arguments, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('leaves other tags and prose mentions alone', () => {
    expect(unwrapXmlToolCalls('an <invoker> and <parameters>').found).toBe(false);
    expect(read('I can call tools for you.').codes).toEqual(['DIRECTIVE_WARN_PROSE_ONLY']);
  });
});

describe('XML tool calls refused with a stable code', () => {
  it.each([
    ['a call cut off inside a parameter', `<function_calls>\n<invoke name="ui.toast">\n<parameter name="level">succ`, 'DIRECTIVE_REPLY_TRUNCATED'],
    ['a call cut off inside its opening tag', '<function_calls>\n<invoke name="ui.to', 'DIRECTIVE_REPLY_TRUNCATED'],
    ['a second call cut off inside its tag name', `<function_calls>\n${TOAST_XML}\n<inv`, 'DIRECTIVE_REPLY_TRUNCATED'],
    ['a call of a tool that is no directive', '<function_calls><invoke name="web_search"><parameter name="q">bards</parameter></invoke></function_calls>', 'DIRECTIVE_UNKNOWN_TYPE'],
    ['a parameter that never closes inside a closed call', '<invoke name="ui.toast"><parameter name="level">success</invoke>', 'DIRECTIVE_PARSE_FAILED'],
    ['a call with no name', '<invoke><parameter name="level">success</parameter></invoke>', 'DIRECTIVE_PARSE_FAILED'],
    ['a payload the directive does not take', '<invoke name="ui.toast"><parameter name="level">loud</parameter><parameter name="text">x</parameter></invoke>', 'DIRECTIVE_PAYLOAD_INVALID'],
  ])('%s', (_name, text, code) => {
    const r = read(text);
    expect(r.ok).toBe(false);
    expect(r.errors.map((e) => e.code)).toContain(code);
  });
});

/** A string a model writes as a plain parameter value: read back unchanged (no padding, nothing JSON-like, no tags). */
const plain = (value: unknown): boolean => typeof value !== 'string'
  || (value === value.trim() && value !== '' && !/^[[{]|^-?\d|</.test(value));

function asXml(directives: readonly Directive[]): string {
  const invoke = (d: Directive): string => `<invoke name="${d.type}">\n${Object.entries(d.payload)
    .map(([k, v]) => `<parameter name="${k}">${typeof v === 'string' ? v : JSON.stringify(v)}</parameter>`).join('\n')}\n</invoke>`;
  return `<function_calls>\n${directives.map(invoke).join('\n')}\n</function_calls>`;
}

describe('XML tool call properties', () => {
  fcTest.prop([validDirectiveEnvelope({ maxDirectives: 3 }).filter((e) => e.directives.length > 0 && e.directives.every((d) => Object.values(d.payload).every(plain)))], { numRuns: 150 })(
    'any valid directives written as XML calls read back as the same directives, whole and streamed',
    (envelope) => {
      const text = asXml(envelope.directives);
      const expected = validateBatch(registry, { directives: envelope.directives }, { mode: 'strict' }).directives.map(({ type, payload }) => ({ type, payload }));
      const r = read(text);
      expect(r.errors).toEqual([]);
      expect(r.canonical).toEqual(expected);
      expect(r.codes).toContain('DIRECTIVE_WARN_TOOL_CALL_READ');
      const reader = createEnvelopeStreamReader(registry, { mode: 'best_effort' });
      for (const c of text) reader.push(c);
      const end = reader.finish();
      expect(end.agrees).toBe(true);
      expect(end.rest.map(({ type, payload }) => ({ type, payload }))).toEqual(expected);
    },
  );
});
