import { createDemoApp } from '../src/app/index.ts';
import { directiveJsonSchema } from '../src/directives/index.ts';
import { toStrictValue } from '../src/llm/index.ts';
import { jsLiteral, pythonRepr } from '../test/support/model-dialects.ts';
import type { Directive, Expectation, ModelOutputFixture } from './fixture.ts';
import { envelopeOf, type Intent } from './intents.ts';

/**
 * How models of the common families actually write an answer, one style per habit, each
 * labelled with what a person would expect. A style renders an intent (the ground truth) in
 * a family's manner; the label follows from the style, never from running the parser.
 */
export type Rendered = Pick<ModelOutputFixture, 'answer' | 'expect'> & { repair?: ModelOutputFixture['repair'] };

export interface Style {
  name: string;
  category: string;
  families: readonly string[];
  applies?: (intent: Intent) => boolean;
  render(intent: Intent, family: string, n: number): Rendered;
}

const envelopeSchema = directiveJsonSchema(createDemoApp().directives);
const compact = (i: Intent): string => JSON.stringify(envelopeOf(i));
const pretty = (i: Intent): string => JSON.stringify(envelopeOf(i), null, 2);
const fenced = (json: string): string => `\`\`\`json\n${json}\n\`\`\``;
const isForm = (i: Intent): boolean => i.directives.some((d) => d.type === 'ui.show_form');
const single = (i: Intent): boolean => i.directives.length === 1;

function recovered(intent: Intent, warnings: string[], options: { text?: boolean; directives?: Directive[]; exact?: boolean } = {}): Expectation {
  return {
    outcome: 'recovered', directives: options.directives ?? intent.directives, warnings,
    ...(options.text === false ? {} : { assistant_text: intent.assistant_text }),
    ...(options.exact ? { exact: true } : {}),
  };
}

/** The corrected answer a model of `family` gives to the repair follow-up, in its usual manner. */
export function cleanAnswer(intent: Intent, family: string): string {
  if (family.startsWith('qwen3')) return `<think>\nI must fix the listed problems and answer with the envelope only.\n</think>\n\n${compact(intent)}`;
  if (family.startsWith('deepseek-r1')) return `The previous answer had errors; fix them.\n</think>\n\n${fenced(pretty(intent))}`;
  if (family.startsWith('gpt-oss')) return `<|channel|>analysis<|message|>Fix the errors.<|end|><|start|>assistant<|channel|>final<|message|>${compact(intent)}`;
  if (family.startsWith('gpt')) return compact(intent);
  return `Here is the corrected JSON:\n\n${fenced(pretty(intent))}`;
}

function rejected(intent: Intent, family: string, code: string, answer: string, pointer?: string): Rendered {
  return {
    answer, expect: { outcome: 'rejected', code, ...(pointer === undefined ? {} : { pointer }) },
    repair: { answer: cleanAnswer(intent, family), directives: intent.directives, assistant_text: intent.assistant_text },
  };
}

const CLOSE_EXAMPLE = { directives: [{ type: 'ui.close', payload: { surface: 'main' } }] };
const xmlInvoke = (d: Directive, indent: boolean): string => `<invoke name="${d.type}">\n${Object.entries(d.payload)
  .map(([k, v]) => `<parameter name="${k}">${typeof v === 'string' ? v : JSON.stringify(v, null, indent ? 2 : undefined)}</parameter>`).join('\n')}\n</invoke>`;
const toolCall = (d: Directive, args: 'object' | 'string', key = 'arguments') => ({ name: d.type, [key]: args === 'object' ? d.payload : JSON.stringify(d.payload) });

const PROSE: Record<string, string> = {
  card: "Sure! I'd be happy to help you create a character card for Aria. What kind of personality should she have: cheerful, mysterious, or something else?",
  persona: "Got it, Sam! I'll keep my replies formal. Is there anything else you'd like me to know about you?",
  scene: 'Ooh, a foggy harbour at night sounds wonderfully atmospheric. Should the mystery lean towards the supernatural, or stay grounded?',
  ask: 'No problem! I can help you build a character, describe your own persona, or set the scene for a story. Which sounds most fun?',
  toast: "You're welcome! Let me know if you want to change anything else.",
  villain: "Great idea! Every good story needs a memorable villain. What is your villain's main goal, and what makes them frightening?",
  upload: 'To add an avatar, you can paste an image link into the Avatar URL field of your character card.',
};

export const STYLES: Style[] = [
  // Recovered with no or only text-level warnings.
  { name: 'canonical', category: 'canonical', families: ['gpt-4o-mini', 'qwen2.5', 'llama3.1'], render: (i) => ({ answer: compact(i), expect: recovered(i, [], { exact: true }) }) },
  { name: 'pretty', category: 'canonical', families: ['gpt-4o', 'mistral-small'], render: (i) => ({ answer: `${pretty(i)}\n`, expect: recovered(i, [], { exact: true }) }) },
  { name: 'fenced', category: 'fences_and_prose', families: ['llama3.2', 'gemma3', 'phi4'], render: (i) => ({ answer: `Here is the JSON response:\n\n${fenced(pretty(i))}`, expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED']) }) },
  { name: 'prose-after', category: 'fences_and_prose', families: ['mistral-nemo', 'llama3.2'], render: (i) => ({ answer: `${pretty(i)}\n\nLet me know if you'd like any changes!`, expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED']) }) },
  { name: 'eot-token', category: 'fences_and_prose', families: ['llama3.1', 'qwen2.5'], render: (i, f) => ({ answer: `${compact(i)}${f.startsWith('qwen') ? '<|im_end|>' : '<|eot_id|>'}`, expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED']) }) },
  // Reasoning blocks before the answer.
  { name: 'think', category: 'reasoning_block', families: ['qwen3', 'qwq'], render: (i) => ({ answer: `<think>\n${i.reasoning}\n</think>\n\n${compact(i)}`, expect: recovered(i, ['DIRECTIVE_WARN_REASONING_STRIPPED']) }) },
  { name: 'r1-think', category: 'reasoning_block', families: ['deepseek-r1'], render: (i) => ({ answer: `${i.reasoning}\n</think>\n\n${fenced(pretty(i))}`, expect: recovered(i, ['DIRECTIVE_WARN_REASONING_STRIPPED', 'DIRECTIVE_WARN_TEXT_REPAIRED']) }) },
  { name: 'harmony', category: 'reasoning_block', families: ['gpt-oss'], render: (i) => ({ answer: `<|channel|>analysis<|message|>${i.reasoning}<|end|><|start|>assistant<|channel|>final<|message|>${compact(i)}<|return|>`, expect: recovered(i, ['DIRECTIVE_WARN_REASONING_STRIPPED']) }) },
  { name: 'magistral-think', category: 'reasoning_block', families: ['magistral'], render: (i) => ({ answer: `[THINK]${i.reasoning}[/THINK]\n${compact(i)}`, expect: recovered(i, ['DIRECTIVE_WARN_REASONING_STRIPPED']) }) },
  // Tool-call syntaxes instead of the envelope (no assistant text: a tool call carries none).
  { name: 'python-tag', category: 'tool_call_object', families: ['llama3.1'], applies: single, render: (i) => ({ answer: `<|python_tag|>${JSON.stringify(toolCall(i.directives[0]!, 'object', 'parameters'))}<|eom_id|>`, expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }) }) },
  { name: 'name-arguments', category: 'tool_call_object', families: ['llama3.2', 'hermes3'], render: (i) => ({ answer: JSON.stringify(i.directives.length === 1 ? toolCall(i.directives[0]!, 'object') : i.directives.map((d) => toolCall(d, 'object'))), expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }) }) },
  { name: 'arguments-string', category: 'tool_call_string', families: ['gpt-4o', 'firefunction'], applies: single, render: (i) => ({ answer: JSON.stringify(toolCall(i.directives[0]!, 'string')), expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }) }) },
  {
    name: 'openai-tool-calls', category: 'tool_call_string', families: ['gpt-4o-mini', 'gpt-4.1'], render: (i, _f, n) => ({
      answer: JSON.stringify({ role: 'assistant', content: null, tool_calls: i.directives.map((d, k) => ({ id: `call_${n}${k}abc`, type: 'function', function: { name: d.type, arguments: JSON.stringify(d.payload) } })) }),
      expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }),
    }),
  },
  { name: 'hermes-tags', category: 'tool_call_tagged', families: ['qwen2.5', 'hermes3'], render: (i) => ({ answer: i.directives.map((d) => `<tool_call>\n${JSON.stringify(toolCall(d, 'object'))}\n</tool_call>`).join('\n'), expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }) }) },
  { name: 'mistral-tool-calls', category: 'tool_call_tagged', families: ['mistral', 'mistral-nemo'], render: (i) => ({ answer: `[TOOL_CALLS] ${JSON.stringify(i.directives.map((d) => toolCall(d, 'object')))}`, expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }) }) },
  { name: 'function-tag', category: 'tool_call_tagged', families: ['llama3.2'], applies: single, render: (i) => ({ answer: `<function=${i.directives[0]!.type}>${JSON.stringify(i.directives[0]!.payload)}</function>`, expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }) }) },
  { name: 'deepseek-tool-call', category: 'tool_call_tagged', families: ['deepseek-v3'], applies: single, render: (i) => ({ answer: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>${i.directives[0]!.type}\n${fenced(JSON.stringify(i.directives[0]!.payload))}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }) }) },
  // Other JSON dialects.
  { name: 'python-repr', category: 'python_literals', families: ['phi4-mini', 'gemma3', 'llama3.2'], render: (i) => ({ answer: pythonRepr(envelopeOf(i)), expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED']) }) },
  { name: 'python-fenced', category: 'python_literals', families: ['gemma3', 'phi4'], render: (i) => ({ answer: `\`\`\`python\nresponse = ${pythonRepr(envelopeOf(i))}\n\`\`\``, expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED']) }) },
  { name: 'js-literal', category: 'python_literals', families: ['gemma3'], render: (i) => ({ answer: `${fenced(`// UI update\n${jsLiteral(envelopeOf(i))}`)}`, expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED']) }) },
  { name: 'json-string', category: 'envelope_as_string', families: ['llama3.2', 'granite3', 'gpt-4o-mini'], render: (i) => ({ answer: JSON.stringify(compact(i)), expect: recovered(i, ['DIRECTIVE_WARN_SHAPE_REPAIRED']) }) },
  { name: 'directives-string', category: 'envelope_as_string', families: ['mistral-small'], render: (i) => ({ answer: JSON.stringify({ assistant_text: i.assistant_text, directives: JSON.stringify(i.directives) }), expect: recovered(i, ['DIRECTIVE_WARN_SHAPE_REPAIRED']) }) },
  { name: 'action-params', category: 'key_synonyms', families: ['llama3.2', 'gemma3'], render: (i) => ({ answer: JSON.stringify({ message: i.assistant_text, directives: i.directives.map((d) => ({ action: d.type, params: d.payload })) }), expect: recovered(i, ['DIRECTIVE_WARN_KEY_SYNONYM']) }) },
  { name: 'op-arguments', category: 'key_synonyms', families: ['mistral', 'qwen2.5'], render: (i) => ({ answer: JSON.stringify({ assistant_text: i.assistant_text, directives: i.directives.map((d) => ({ op: d.type, arguments: d.payload })) }), expect: recovered(i, ['DIRECTIVE_WARN_KEY_SYNONYM']) }) },
  { name: 'single-directive', category: 'key_synonyms', families: ['phi4', 'llama3.1'], applies: single, render: (i) => ({ answer: JSON.stringify({ response: i.assistant_text, directive: i.directives[0] }), expect: recovered(i, ['DIRECTIVE_WARN_KEY_SYNONYM']) }) },
  {
    name: 'nan-tone', category: 'non_finite_numbers', families: ['qwen2.5', 'llama3.1'], applies: (i) => JSON.stringify(i.directives).includes('"tone"'),
    render: (i) => {
      const without = i.directives.map((d) => ({ ...d, payload: { ...d.payload, values: Object.fromEntries(Object.entries(d.payload.values as object).filter(([k]) => k !== 'tone')) } }));
      return { answer: compact(i).replace(/"tone":\d+/, '"tone": NaN'), expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED', 'DIRECTIVE_WARN_COERCED'], { directives: without }) };
    },
  },
  {
    name: 'null-fields', category: 'non_finite_numbers', families: ['gpt-4o-mini'], applies: (i) => JSON.stringify(toStrictValue(envelopeOf(i), envelopeSchema)) !== compact(i),
    render: (i) => ({ answer: JSON.stringify(toStrictValue(envelopeOf(i), envelopeSchema)), expect: recovered(i, ['DIRECTIVE_WARN_COERCED']) }),
  },
  {
    name: 'overflow-number', category: 'non_finite_numbers', families: ['llama3.2'], applies: (i) => JSON.stringify(i.directives).includes('"tone"'),
    render: (i) => {
      const without = i.directives.map((d) => ({ ...d, payload: { ...d.payload, values: Object.fromEntries(Object.entries(d.payload.values as object).filter(([k]) => k !== 'tone')) } }));
      return { answer: compact(i).replace(/"tone":\d+/, '"tone":1e999'), expect: recovered(i, ['DIRECTIVE_WARN_COERCED'], { directives: without }) };
    },
  },
  {
    name: 'camel-alias', category: 'aliases_and_case', families: ['gemma3', 'phi4'],
    render: (i) => {
      const camel = (s: string): string => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
      const rename = (v: unknown, inValues: boolean): unknown => (Array.isArray(v) ? v.map((x) => rename(x, inValues))
        : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [inValues ? camel(k) : k, rename(x, inValues || k === 'values')])) : v);
      const directives = i.directives.map((d) => ({ type: camel(d.type), payload: rename(d.payload, false) }));
      return { answer: JSON.stringify({ assistantText: i.assistant_text, directives }), expect: recovered(i, ['DIRECTIVE_WARN_KEY_CASE']) };
    },
  },
  { name: 'flat-payload', category: 'aliases_and_case', families: ['llama3.2', 'mistral'], render: (i) => ({ answer: JSON.stringify({ assistant_text: i.assistant_text, directives: i.directives.map((d) => ({ type: d.type, ...d.payload })) }), expect: recovered(i, ['DIRECTIVE_WARN_SHAPE_REPAIRED']) }) },
  { name: 'bare-array', category: 'aliases_and_case', families: ['qwen2.5', 'phi4-mini'], render: (i) => ({ answer: JSON.stringify(i.directives), expect: recovered(i, ['DIRECTIVE_WARN_SHAPE_REPAIRED'], { text: false }) }) },
  // Plain prose: the soft fail.
  { name: 'prose-only', category: 'prose_only', families: ['llama3.2', 'mistral', 'gemma3'], applies: (i) => Object.hasOwn(PROSE, i.key), render: (i) => ({ answer: `${PROSE[i.key]!}\n`, expect: { outcome: 'prose', assistant_text: PROSE[i.key]! } }) },
  { name: 'think-then-prose', category: 'prose_only', families: ['qwen3', 'deepseek-r1'], applies: (i) => Object.hasOwn(PROSE, i.key), render: (i, f) => ({ answer: `${f === 'qwen3' ? '<think>\n' : ''}${i.reasoning} Maybe I should just ask.\n</think>\n\n${PROSE[i.key]!}`, expect: { outcome: 'prose', assistant_text: PROSE[i.key]! } }) },
  // Refused, each with a stable code; a scripted model then answers the repair follow-up.
  { name: 'truncated', category: 'truncated', families: ['llama3.2', 'qwen2.5', 'gpt-4o-mini'], render: (i, f) => rejected(i, f, 'DIRECTIVE_REPLY_TRUNCATED', pretty(i).slice(0, Math.floor(pretty(i).length * 0.7))) },
  { name: 'truncated-think', category: 'truncated', families: ['qwen3', 'deepseek-r1'], render: (i, f) => rejected(i, f, 'DIRECTIVE_REPLY_TRUNCATED', `<think>\n${i.reasoning} Let me write it: {"directives": [{"type": "${i.directives[0]!.type}", "payload": {`) },
  { name: 'many-toasts', category: 'over_budget', families: ['llama3.2', 'mistral'], applies: (i) => i.key === 'toast' || i.key === 'multi', render: (i, f) => rejected(i, f, 'DIRECTIVE_BUDGET_EXCEEDED', JSON.stringify({ directives: Array.from({ length: 70 }, (_, k) => ({ type: 'ui.toast', payload: { level: 'info', text: `Step ${k + 1} done.` } })) }), '/directives/64') },
  // A model stuck in a loop: past the 256 KB text budget, refused before any scan.
  { name: 'runaway', category: 'over_budget', families: ['llama3.2'], applies: (i) => i.key === 'card', render: (i, f) => rejected(i, f, 'DIRECTIVE_BUDGET_EXCEEDED', `${'I will help you with that. '.repeat(10_000)}${compact(i)}`) },
  // An envelope over the 128 KB batch budget (a pasted wall of text as the assistant's message).
  { name: 'huge-batch', category: 'over_budget', families: ['qwen2.5'], applies: (i) => i.key === 'scene', render: (i, f) => rejected(i, f, 'DIRECTIVE_BUDGET_EXCEEDED', JSON.stringify({ assistant_text: 'The harbour fog rolls in. '.repeat(5_200), directives: i.directives })) },
  {
    name: 'unknown-type', category: 'unknown_directive', families: ['llama3.2', 'gemma3', 'qwen3', 'gpt-4o-mini'],
    render: (i, f, n) => {
      const made = [
        { type: 'ui.render_html', payload: { html: '<div class="card">Aria</div>' } }, { type: 'ui.chart', payload: { kind: 'bar', data: [1, 2, 3] } },
        { type: 'ui.navigate', payload: { url: '/characters' } }, { type: 'ui.modal', payload: { title: 'Hello' } },
      ][n % 4]!;
      return rejected(i, f, 'DIRECTIVE_UNKNOWN_TYPE', JSON.stringify({ assistant_text: i.assistant_text, directives: [...i.directives, made] }), `/directives/${i.directives.length}/type`);
    },
  },
  { name: 'unknown-tool', category: 'unknown_directive', families: ['qwen2.5', 'hermes3'], applies: (i) => i.key === 'card' || i.key === 'villain', render: (i, f) => rejected(i, f, 'DIRECTIVE_UNKNOWN_TYPE', '<tool_call>\n{"name": "web_search", "arguments": {"query": "famous fantasy bards"}}\n</tool_call>', '/directives/0/type') },
  {
    name: 'wrong-template', category: 'wrong_template', families: ['llama3.1', 'mistral', 'gemma3'], applies: isForm,
    render: (i, f, n) => {
      const name = ['world_map', 'inventory', 'quest_log'][n % 3]!;
      const directives = i.directives.map((d) => (d.type === 'ui.show_form' ? { ...d, payload: { template: name } } : d));
      const at = i.directives.findIndex((d) => d.type === 'ui.show_form');
      return rejected(i, f, 'DIRECTIVE_TEMPLATE_UNKNOWN', JSON.stringify({ assistant_text: i.assistant_text, directives }), `/directives/${at}/payload/template`);
    },
  },
  {
    name: 'invalid-payload', category: 'invalid_payload', families: ['llama3.2', 'phi4-mini', 'qwen2.5'], applies: (i) => ['toast', 'ask', 'upload', 'multi'].includes(i.key),
    render: (i, f) => {
      const bad = i.directives.map((d) => (d.type === 'ui.toast' ? { ...d, payload: { ...d.payload, level: 'celebrate' } }
        : d.type === 'ui.ask' ? { ...d, payload: { ...d.payload, fields: (d.payload.fields as Array<Record<string, unknown>>).map(({ options: _o, ...rest }) => rest) } }
          : d.type === 'ui.request_upload' ? { ...d, payload: { ...d.payload, accept: [] } } : d));
      const at = bad.findIndex((d, k) => d !== i.directives[k]);
      const pointer = { 'ui.toast': 'level', 'ui.ask': 'fields/0/options', 'ui.request_upload': 'accept' }[bad[at]!.type as 'ui.toast'];
      return rejected(i, f, 'DIRECTIVE_PAYLOAD_INVALID', JSON.stringify({ assistant_text: i.assistant_text, directives: bad }), `/directives/${at}/payload/${pointer}`);
    },
  },
  {
    name: 'committed-write', category: 'invalid_payload', families: ['llama3.1', 'mistral'], applies: (i) => i.directives[0]!.type === 'ui.patch',
    render: (i, f) => rejected(i, f, 'DIRECTIVE_COMMITTED_READONLY', compact(i).replace('/draft/', '/committed/'), '/directives/0/payload/ops/0/path'),
  },
  {
    name: 'missing-field', category: 'invalid_payload', families: ['gemma3', 'qwen3'], applies: (i) => i.directives[0]!.type === 'ui.patch',
    render: (i, f) => rejected(i, f, 'DIRECTIVE_PATCH_OP_INVALID', compact(i).replace(/\/draft\/\w+/, '/draft/age'), '/directives/0/payload/ops/0/path'),
  },
  {
    name: 'unknown-surface', category: 'invalid_payload', families: ['llama3.2', 'gpt-4o-mini'], applies: (i) => ['close', 'patch', 'patch2'].includes(i.key),
    render: (i, f) => rejected(i, f, 'DIRECTIVE_SURFACE_UNKNOWN', JSON.stringify({ assistant_text: i.assistant_text, directives: i.directives.map((d) => ({ ...d, payload: { ...d.payload, surface: 'sidebar' } })) }), '/directives/0/payload/surface'),
  },
  {
    name: 'a2ui', category: 'a2ui_or_html', families: ['gemini-2.0-flash', 'gpt-4o', 'llama3.3'], applies: isForm,
    render: (i, f) => rejected(i, f, 'DIRECTIVE_MARKUP_FORBIDDEN', [
      { surfaceUpdate: { surfaceId: 'main', components: [{ id: 'root', component: { Column: { children: { explicitList: ['title'] } } } }, { id: 'title', component: { Text: { text: { literalString: i.assistant_text } } } }] } },
      { beginRendering: { surfaceId: 'main', root: 'root' } },
    ].map((m) => JSON.stringify(m)).join('\n')),
  },
  {
    name: 'html', category: 'a2ui_or_html', families: ['llama3.2', 'mistral'], applies: (i) => isForm(i) || i.key === 'ask',
    render: (i, f) => rejected(i, f, 'DIRECTIVE_MARKUP_FORBIDDEN', `Here's a form for you:\n\n<form method="post">\n  <label>Name <input name="name" value="Aria"></label>\n  <button type="submit">Save</button>\n</form>`),
  },
  {
    name: 'empty', category: 'empty', families: ['llama3.2', 'qwen3', 'mistral'], applies: (i) => ['card', 'toast', 'scene', 'ask'].includes(i.key),
    render: (i, f) => rejected(i, f, 'DIRECTIVE_PARSE_FAILED', f === 'qwen3' ? `<think>\n${i.reasoning}\n</think>\n\n` : f === 'mistral' ? '   \n' : ''),
  },
  { name: 'broken-json', category: 'broken_json', families: ['llama3.2', 'phi4-mini', 'gemma3'], render: (i, f) => rejected(i, f, 'DIRECTIVE_PARSE_FAILED', fenced(pretty(i).replace('",\n', '"\n'))) },
  { name: 'not-envelope', category: 'broken_json', families: ['llama3.1', 'mistral'], applies: isForm, render: (i, f) => rejected(i, f, 'DIRECTIVE_ENVELOPE_INVALID', JSON.stringify({ status: 'ok', form: 'opened', details: i.assistant_text }), '/directives') },
  // The answer, then prose quoting other JSON: applied, the quoted JSON would undo or repeat it.
  {
    name: 'example-after', category: 'quoted_json_after', families: ['llama3.1', 'mistral-nemo', 'gemma3'],
    render: (i) => ({ answer: `${fenced(pretty(i))}\n\nIf you change your mind later, I would close it with:\n\n${fenced(JSON.stringify(CLOSE_EXAMPLE))}`, expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED', 'DIRECTIVE_WARN_EXTRA_JSON_IGNORED']) }),
  },
  {
    name: 'explained-after', category: 'quoted_json_after', families: ['llama3.2', 'phi4', 'qwen2.5'],
    render: (i) => ({ answer: `${compact(i)}\n\nExplanation: ${i.directives.map((d) => `\`${JSON.stringify(d)}\` uses ${d.type}`).join(', then ')}.`, expect: recovered(i, ['DIRECTIVE_WARN_TEXT_REPAIRED', 'DIRECTIVE_WARN_EXTRA_JSON_IGNORED']) }),
  },
  // Tool calls as XML-like blocks (Claude's prompted format, some gateways); the closing tag is often a stop sequence.
  {
    name: 'xml-invoke', category: 'tool_call_xml', families: ['claude-3.5', 'claude-3-haiku'],
    render: (i, _f, n) => ({
      answer: `${n % 2 === 0 ? `${i.assistant_text}\n\n` : ''}<function_calls>\n${i.directives.map((d) => xmlInvoke(d, n % 3 === 0)).join('\n')}\n${n % 4 === 1 ? '' : '</function_calls>'}`,
      expect: recovered(i, ['DIRECTIVE_WARN_TOOL_CALL_READ'], { text: false }),
    }),
  },
];
