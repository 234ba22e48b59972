import type { Directive, ModelOutputFixture } from './fixture.ts';

/**
 * Hand-written answers in the exact formats model families document or are known to emit
 * (chat templates, tool-call conventions, reasoning channels), plus the messy cases a generator
 * would not think of. Each label says what a person reading the answer would expect.
 * `node --import tsx eval/generate.ts` writes them to test/fixtures/model-outputs/handwritten.jsonl.
 */
const TOAST: Directive = { type: 'ui.toast', payload: { level: 'success', text: 'Saved!' } };
const CARD: Directive = { type: 'ui.show_form', payload: { template: 'character_card', values: { name: 'Aria' } } };
const SCENE: Directive = { type: 'ui.show_form', payload: { template: 'scene_settings', values: { genre: 'horror', content_warnings: true } } };
const CARD_OPEN: Directive[] = [CARD];
const cardJson = JSON.stringify(CARD.payload);
const repairCard = { answer: JSON.stringify({ assistant_text: 'Here is the card.', directives: [CARD] }), directives: [CARD], assistant_text: 'Here is the card.' };
const repairToast = { answer: JSON.stringify({ directives: [TOAST] }), directives: [TOAST] };

type Fixture = Omit<ModelOutputFixture, 'setup'> & { setup?: Directive[] };

const ok = (directives: Directive[], warnings: string[], assistant_text?: string): ModelOutputFixture['expect'] =>
  ({ outcome: 'recovered', directives, warnings, ...(assistant_text === undefined ? {} : { assistant_text }) });
const no = (code: string, pointer?: string): ModelOutputFixture['expect'] => ({ outcome: 'rejected', code, ...(pointer === undefined ? {} : { pointer }) });

const FIXTURES: Fixture[] = [
  {
    id: 'hw.llama32-explains-after', family: 'llama3.2', category: 'fences_and_prose', user: 'make a card for Aria',
    answer: `\`\`\`json\n{\n  "assistant_text": "Here is the card.",\n  "directives": [\n    {\n      "type": "ui.show_form",\n      "payload": ${cardJson}\n    }\n  ]\n}\n\`\`\`\n\nThis JSON object contains a single directive that opens the character card form with the name field set to "Aria". You can modify the values as needed.`,
    expect: ok([CARD], ['DIRECTIVE_WARN_TEXT_REPAIRED'], 'Here is the card.'),
  },
  {
    id: 'hw.qwen3-draft-in-think', family: 'qwen3', category: 'reasoning_block', user: 'make a card for Aria',
    answer: `<think>\nOkay, let me draft: {"directives": [{"type": "ui.show_form", "payload": {"template": "persona"}}]}. Wait, no, they asked for a character, not a persona. So template should be character_card.\n</think>\n\n{"assistant_text": "Here is the card.", "directives": [${JSON.stringify(CARD)}]}`,
    expect: ok([CARD], ['DIRECTIVE_WARN_REASONING_STRIPPED'], 'Here is the card.'),
  },
  {
    id: 'hw.qwen3-empty-think', family: 'qwen3', category: 'reasoning_block', user: 'thanks! /no_think',
    answer: `<think>\n\n</think>\n\n{"directives": [${JSON.stringify(TOAST)}]}`,
    expect: ok([TOAST], ['DIRECTIVE_WARN_REASONING_STRIPPED']),
  },
  {
    id: 'hw.r1-complete-draft-then-final', family: 'deepseek-r1', category: 'reasoning_block', user: 'show a horror scene with content warnings',
    answer: `Alright, the user wants a horror scene. First attempt:\n\`\`\`json\n{"directives": [{"type": "ui.show_form", "payload": {"template": "scene_settings"}}]}\n\`\`\`\nHmm, I should also set genre to horror and turn content_warnings on.\n</think>\n\n\`\`\`json\n{"directives": [${JSON.stringify(SCENE)}]}\n\`\`\``,
    expect: ok([SCENE], ['DIRECTIVE_WARN_REASONING_STRIPPED']),
  },
  {
    id: 'hw.claude-thinking-answer-tags', family: 'claude-3.5', category: 'reasoning_block', user: 'make a card for Aria',
    answer: `<thinking>\nThe user wants a card; I'll prefill {name: "Aria"}.\n</thinking>\n\n<answer>\n{"assistant_text": "Here is the card.", "directives": [${JSON.stringify(CARD)}]}\n</answer>`,
    expect: ok([CARD], ['DIRECTIVE_WARN_REASONING_STRIPPED', 'DIRECTIVE_WARN_TEXT_REPAIRED'], 'Here is the card.'),
  },
  {
    id: 'hw.gpt-oss-commentary-tool-call', family: 'gpt-oss', category: 'tool_call_tagged', user: 'save it',
    answer: `<|channel|>analysis<|message|>User confirmed; show a success toast.<|end|><|start|>assistant<|channel|>commentary to=functions.ui.toast <|constrain|>json<|message|>{"level":"success","text":"Saved!"}<|call|>`,
    expect: ok([TOAST], ['DIRECTIVE_WARN_REASONING_STRIPPED', 'DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.mistral-v11-args', family: 'mistral-small', category: 'tool_call_tagged', user: 'save it',
    answer: '[TOOL_CALLS]ui.toast[ARGS]{"level": "success", "text": "Saved!"}',
    expect: ok([TOAST], ['DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.mistral-tool-call-with-id', family: 'mistral', category: 'tool_call_tagged', user: 'save it',
    answer: '[TOOL_CALLS][{"name": "ui.toast", "arguments": {"level": "success", "text": "Saved!"}, "id": "a1B2c3D4e"}]',
    expect: ok([TOAST], ['DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.llama32-type-function', family: 'llama3.2', category: 'tool_call_object', user: 'save it',
    answer: '{"type": "function", "name": "ui.toast", "parameters": {"level": "success", "text": "Saved!"}}',
    expect: ok([TOAST], ['DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.llama31-python-tag-two-calls', family: 'llama3.1', category: 'tool_call_object', user: 'open a card for Aria and confirm',
    answer: `<|python_tag|>{"name": "ui.show_form", "parameters": ${cardJson}}; {"name": "ui.toast", "parameters": {"level": "success", "text": "Saved!"}}<|eom_id|>`,
    expect: ok([CARD, TOAST], ['DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.qwen25-tool-call-python-quotes', family: 'qwen2.5', category: 'tool_call_tagged', user: 'save it',
    answer: "<tool_call>\n{'name': 'ui.toast', 'arguments': {'level': 'success', 'text': 'Saved!'}}\n</tool_call>",
    expect: ok([TOAST], ['DIRECTIVE_WARN_TOOL_CALL_READ', 'DIRECTIVE_WARN_TEXT_REPAIRED']),
  },
  {
    id: 'hw.gemma-tool-code', family: 'gemma3', category: 'tool_call_tagged', user: 'save it',
    answer: "```tool_code\nui.toast(level='success', text='Saved!')\n```",
    expect: ok([TOAST], ['DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.envelope-without-directives', family: 'llama3.1', category: 'key_synonyms', user: 'hi there',
    answer: '{"assistant_text": "Hello! I can open a character card, your persona or the scene settings."}',
    expect: ok([], ['DIRECTIVE_WARN_SHAPE_REPAIRED'], 'Hello! I can open a character card, your persona or the scene settings.'),
  },
  {
    id: 'hw.empty-directives', family: 'gpt-4o-mini', category: 'canonical', user: 'hi there',
    answer: '{"assistant_text": "Hello!", "directives": []}',
    expect: { outcome: 'recovered', directives: [], warnings: [], assistant_text: 'Hello!', exact: true },
  },
  {
    id: 'hw.yes-for-boolean', family: 'phi4-mini', category: 'aliases_and_case', user: 'horror scene, warnings on',
    answer: '{"directives": [{"type": "ui.show_form", "payload": {"template": "scene_settings", "values": {"genre": "horror", "content_warnings": "yes"}}}]}',
    expect: ok([SCENE], ['DIRECTIVE_WARN_COERCED']),
  },
  {
    id: 'hw.ops-single-object', family: 'llama3.2', category: 'aliases_and_case', user: 'tagline: Sings of kings', setup: CARD_OPEN,
    answer: '{"directives": [{"type": "ui.patch", "payload": {"ops": {"op": "replace", "path": "/draft/tagline", "value": "Sings of kings"}}}]}',
    expect: ok([{ type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/draft/tagline', value: 'Sings of kings' }] } }], ['DIRECTIVE_WARN_COERCED']),
  },
  {
    id: 'hw.segment-path-and-set', family: 'mistral', category: 'aliases_and_case', user: 'tagline: Sings of kings', setup: CARD_OPEN,
    answer: '{"directives": [{"type": "patch", "payload": {"ops": [{"op": "set", "path": "tagline", "value": "Sings of kings"}]}}]}',
    expect: ok([{ type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/draft/tagline', value: 'Sings of kings' }] } }], ['DIRECTIVE_WARN_ALIAS_USED', 'DIRECTIVE_WARN_SEGMENT_PATH']),
  },
  {
    id: 'hw.tone-as-string-tags-as-list', family: 'gemma3', category: 'aliases_and_case', user: 'dark fantasy scene',
    answer: '```json\n{"directives": [{"type": "ui.show_form", "payload": {"template": "Scene Settings", "values": {"genre": "Fantasy", "tone": "8"}}}]}\n```',
    expect: ok([{ type: 'ui.show_form', payload: { template: 'scene_settings', values: { genre: 'fantasy', tone: 8 } } }], ['DIRECTIVE_WARN_COERCED', 'DIRECTIVE_WARN_ALIAS_USED']),
  },
  {
    id: 'hw.js-escaped-apostrophe', family: 'llama3.2', category: 'python_literals', user: 'save it',
    answer: '{"directives": [{"type": "ui.toast", "payload": {"level": "success", "text": "Saved! It\\\'s done."}}]}',
    expect: ok([{ type: 'ui.toast', payload: { level: 'success', text: "Saved! It's done." } }], ['DIRECTIVE_WARN_TEXT_REPAIRED']),
  },
  {
    id: 'hw.smart-quotes-from-chat-ui', family: 'gpt-4o', category: 'fences_and_prose', user: 'save it',
    answer: '{\u201Cdirectives\u201D: [{\u201Ctype\u201D: \u201Cui.toast\u201D, \u201Cpayload\u201D: {\u201Clevel\u201D: \u201Csuccess\u201D, \u201Ctext\u201D: \u201CSaved!\u201D}}]}',
    expect: ok([TOAST], ['DIRECTIVE_WARN_TEXT_REPAIRED']),
  },
  {
    id: 'hw.explanation-object-after', family: 'llama3.1', category: 'fences_and_prose', user: 'save it',
    answer: `{"directives": [${JSON.stringify(TOAST)}]}\n{"explanation": "A toast confirms the save."}`,
    expect: ok([TOAST], ['DIRECTIVE_WARN_TEXT_REPAIRED']),
  },
  {
    id: 'hw.html-in-assistant-text', family: 'gpt-4o-mini', category: 'canonical', user: 'save it',
    answer: `{"assistant_text": "<b>Saved!</b>", "directives": [${JSON.stringify(TOAST)}]}`,
    expect: { outcome: 'recovered', directives: [TOAST], warnings: [], assistant_text: '<b>Saved!</b>', exact: true },
  },
  {
    id: 'hw.bom-and-fence', family: 'phi4', category: 'fences_and_prose', user: 'save it',
    answer: `\uFEFF\`\`\`json\n{"directives": [${JSON.stringify(TOAST)}]}\n\`\`\``,
    expect: ok([TOAST], ['DIRECTIVE_WARN_TEXT_REPAIRED']),
  },
  {
    id: 'hw.refusal-prose', family: 'llama3.1', category: 'prose_only', user: 'write something nasty',
    answer: "I'm sorry, but I can't help with that request.",
    expect: { outcome: 'prose', assistant_text: "I'm sorry, but I can't help with that request." },
  },
  {
    id: 'hw.describes-instead-of-doing', family: 'mistral', category: 'prose_only', user: 'make a card for Aria',
    answer: "I'll open the character card form for you with the name Aria pre-filled. Once it appears, add her personality and press save.",
    expect: { outcome: 'prose', assistant_text: "I'll open the character card form for you with the name Aria pre-filled. Once it appears, add her personality and press save." },
  },
  {
    id: 'hw.markdown-prose-answer', family: 'gemma3', category: 'prose_only', user: 'what can you do?',
    answer: 'I can help you with:\n\n* **Character cards**: name, personality, greeting\n* **Your persona**: how characters see you\n* **Scene settings**: genre, tone and more\n\nWhat would you like to start with?',
    expect: { outcome: 'prose', assistant_text: 'I can help you with:\n\n* **Character cards**: name, personality, greeting\n* **Your persona**: how characters see you\n* **Scene settings**: genre, tone and more\n\nWhat would you like to start with?' },
  },
  {
    id: 'hw.truncated-in-text', family: 'gpt-4o-mini', category: 'truncated', user: 'make a card for Aria',
    answer: '{"assistant_text": "Here is a character card for Aria, a wandering bard who', expect: no('DIRECTIVE_REPLY_TRUNCATED'), repair: repairCard,
  },
  {
    id: 'hw.truncated-second-tool-call', family: 'qwen2.5', category: 'truncated', user: 'open a card for Aria and confirm',
    answer: `<tool_call>\n{"name": "ui.show_form", "arguments": ${cardJson}}\n</tool_call>\n<tool_call>\n{"name": "ui.toast", "arguments": {"level": "succ`,
    expect: no('DIRECTIVE_REPLY_TRUNCATED'), repair: { answer: JSON.stringify({ directives: [CARD, TOAST] }), directives: [CARD, TOAST] },
  },
  {
    id: 'hw.example-json-in-prose', family: 'llama3.2', category: 'broken_json', user: 'make a card for Aria',
    answer: 'To create the card I would send something like {"name": "Aria", "class": "bard"} to the form.',
    expect: no('DIRECTIVE_PARSE_FAILED'), repair: repairCard,
  },
  {
    id: 'hw.directives-keyed-by-type', family: 'phi4-mini', category: 'broken_json', user: 'save it',
    answer: '{"directives": {"ui.toast": {"level": "success", "text": "Saved!"}}}', expect: no('DIRECTIVE_ENVELOPE_INVALID', '/directives/0/type'), repair: repairToast,
  },
  {
    id: 'hw.empty-fence', family: 'llama3.2', category: 'empty', user: 'save it', answer: '```json\n```', expect: no('DIRECTIVE_PARSE_FAILED'), repair: repairToast,
  },
  {
    id: 'hw.a2ui-v09', family: 'gemini-2.5-flash', category: 'a2ui_or_html', user: 'make a card for Aria',
    answer: '{"createSurface": {"surfaceId": "main", "catalogId": "standard"}}\n{"updateComponents": {"surfaceId": "main", "components": [{"id": "root", "component": "Text", "text": "Aria"}]}}',
    expect: no('DIRECTIVE_MARKUP_FORBIDDEN'), repair: repairCard,
  },
  {
    id: 'hw.toast-message-key', family: 'llama3.2', category: 'invalid_payload', user: 'save it',
    answer: '{"directives": [{"type": "ui.toast", "payload": {"level": "success", "message": "Saved!"}}]}', expect: no('DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/text'), repair: repairToast,
  },
  {
    id: 'hw.ask-dropdown-type', family: 'gemma3', category: 'invalid_payload', user: 'ask me which genre',
    answer: '{"directives": [{"type": "ui.ask", "payload": {"title": "Genre", "prompt": "Which genre?", "fields": [{"name": "genre", "label": "Genre", "type": "dropdown", "options": ["fantasy", "horror"]}], "submit": "OK"}}]}',
    expect: no('DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/fields/0/type'),
    repair: {
      answer: '{"directives": [{"type": "ui.ask", "payload": {"title": "Genre", "prompt": "Which genre?", "fields": [{"name": "genre", "label": "Genre", "type": "select", "options": ["fantasy", "horror"]}], "submit": "OK"}}]}',
      directives: [{ type: 'ui.ask', payload: { title: 'Genre', prompt: 'Which genre?', fields: [{ name: 'genre', label: 'Genre', type: 'select', options: ['fantasy', 'horror'] }], submit: 'OK' } }],
    },
  },
  {
    id: 'hw.capitalised-surface', family: 'phi4', category: 'invalid_payload', user: 'close it', setup: CARD_OPEN,
    answer: '{"directives": [{"type": "ui.close", "payload": {"surface": "Main Panel"}}]}', expect: no('DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/surface'),
    repair: { answer: '{"directives": [{"type": "ui.close", "payload": {"surface": "main"}}]}', directives: [{ type: 'ui.close', payload: { surface: 'main' } }] },
  },
  {
    id: 'hw.assistant-text-too-long', family: 'llama3.2', category: 'over_budget', user: 'tell me a story',
    answer: JSON.stringify({ assistant_text: 'Once upon a time. '.repeat(1200), directives: [] }), expect: no('DIRECTIVE_ENVELOPE_INVALID', '/assistant_text'),
    repair: { answer: JSON.stringify({ assistant_text: 'Once upon a time, a bard sang.', directives: [] }), directives: [], assistant_text: 'Once upon a time, a bard sang.' },
  },
  {
    id: 'hw.unknown-and-valid', family: 'qwen3', category: 'unknown_directive', user: 'open a card and show an image',
    answer: `<think>I'll show the card and an image.</think>\n{"directives": [${JSON.stringify(CARD)}, {"type": "ui.image", "payload": {"url": "https://example.com/aria.png"}}]}`,
    expect: no('DIRECTIVE_UNKNOWN_TYPE', '/directives/1/type'), repair: { answer: JSON.stringify({ directives: [CARD] }), directives: [CARD] },
  },
  // Only the answer is applied: JSON quoted after it (an example, an explanation) is prose.
  {
    id: 'hw.envelope-then-undo-example', family: 'llama3.1', category: 'quoted_json_after', user: 'make a card for Aria',
    answer: `{"assistant_text": "Here is the card.", "directives": [${JSON.stringify(CARD)}]}\n\nNote: to remove the form again you would send {"directives": [{"type": "ui.close", "payload": {"surface": "main"}}]}, and to only say something, {"directives": []}.`,
    expect: ok([CARD], ['DIRECTIVE_WARN_TEXT_REPAIRED', 'DIRECTIVE_WARN_EXTRA_JSON_IGNORED'], 'Here is the card.'),
  },
  {
    id: 'hw.envelope-then-cut-off-example', family: 'mistral-nemo', category: 'quoted_json_after', user: 'save it',
    answer: `{"directives": [${JSON.stringify(TOAST)}]}\n\nA longer variant would be {"directives": [{"type": "ui.toast", "payload": {"level": "info", "text": "Saving`,
    expect: ok([TOAST], ['DIRECTIVE_WARN_TEXT_REPAIRED']),
  },
  {
    id: 'hw.bare-array-then-tool-call-example', family: 'qwen2.5', category: 'quoted_json_after', user: 'save it',
    answer: `[${JSON.stringify(TOAST)}]\n\nThis is the same as the tool call {"name": "ui.toast", "arguments": {"level": "success", "text": "Saved!"}}.`,
    expect: ok([TOAST], ['DIRECTIVE_WARN_SHAPE_REPAIRED', 'DIRECTIVE_WARN_EXTRA_JSON_IGNORED']),
  },
  {
    id: 'hw.tool-call-then-envelope-restated', family: 'hermes3', category: 'quoted_json_after', user: 'save it',
    answer: `<tool_call>\n{"name": "ui.toast", "arguments": ${JSON.stringify(TOAST.payload)}}\n</tool_call>\nIn envelope form that is {"directives": [${JSON.stringify(TOAST)}]}.`,
    expect: ok([TOAST], ['DIRECTIVE_WARN_TOOL_CALL_READ', 'DIRECTIVE_WARN_EXTRA_JSON_IGNORED']),
  },
  {
    id: 'hw.envelope-then-xml-example', family: 'claude-3.5', category: 'quoted_json_after', user: 'make a card for Aria',
    answer: `\`\`\`json\n{"assistant_text": "Here is the card.", "directives": [${JSON.stringify(CARD)}]}\n\`\`\`\nWith tools it would read <invoke name="ui.close"><parameter name="surface">main</parameter></invoke>.`,
    expect: ok([CARD], ['DIRECTIVE_WARN_TEXT_REPAIRED', 'DIRECTIVE_WARN_EXTRA_JSON_IGNORED'], 'Here is the card.'),
  },
  // Tool calls as XML-like blocks.
  {
    id: 'hw.xml-invoke-stop-sequence', family: 'claude-3.5', category: 'tool_call_xml', user: 'open a card for Aria and confirm',
    answer: `I'll open the card and confirm.\n\n<function_calls>\n<invoke name="ui.show_form">\n<parameter name="template">character_card</parameter>\n<parameter name="values">{"name": "Aria"}</parameter>\n</invoke>\n<invoke name="ui.toast">\n<parameter name="level">success</parameter>\n<parameter name="text">Saved!</parameter>\n</invoke>\n`,
    expect: ok([CARD, TOAST], ['DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.xml-invoke-json-and-numbers', family: 'claude-3-haiku', category: 'tool_call_xml', user: 'dark fantasy scene',
    answer: '<function_calls><invoke name="ui.show_form"><parameter name="template">scene_settings</parameter><parameter name="values">\n{\n  "genre": "fantasy",\n  "tone": 8\n}\n</parameter></invoke></function_calls>',
    expect: ok([{ type: 'ui.show_form', payload: { template: 'scene_settings', values: { genre: 'fantasy', tone: 8 } } }], ['DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.xml-invoke-after-thinking', family: 'claude-3.5', category: 'tool_call_xml', user: 'save it',
    answer: '<thinking>A success toast {level: success} is enough.</thinking>\n<function_calls>\n<invoke name="ui.toast">\n<parameter name="level">success</parameter>\n<parameter name="text">\nSaved!\n</parameter>\n</invoke>\n</function_calls>',
    expect: ok([TOAST], ['DIRECTIVE_WARN_REASONING_STRIPPED', 'DIRECTIVE_WARN_TOOL_CALL_READ']),
  },
  {
    id: 'hw.xml-invoke-unknown-tool', family: 'claude-3.5', category: 'unknown_directive', user: 'make a card for Aria',
    answer: '<function_calls>\n<invoke name="web_search">\n<parameter name="query">famous fantasy bards</parameter>\n</invoke>\n</function_calls>',
    expect: no('DIRECTIVE_UNKNOWN_TYPE', '/directives/0/type'), repair: repairCard,
  },
  {
    id: 'hw.xml-invoke-cut-off', family: 'claude-3-haiku', category: 'truncated', user: 'open a card for Aria and confirm',
    answer: `<function_calls>\n<invoke name="ui.show_form">\n<parameter name="template">character_card</parameter>\n<parameter name="values">${JSON.stringify(CARD.payload.values)}</parameter>\n</invoke>\n<invoke name="ui.toast">\n<parameter name="level">succ`,
    expect: no('DIRECTIVE_REPLY_TRUNCATED'), repair: { answer: JSON.stringify({ directives: [CARD, TOAST] }), directives: [CARD, TOAST] },
  },
];

export function handwrittenFixtures(): ModelOutputFixture[] {
  return FIXTURES.map((f) => ({ ...f, setup: f.setup ?? [] }));
}
