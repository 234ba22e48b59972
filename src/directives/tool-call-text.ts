import { matchBracket } from './json-repair.ts';
import { unwrapXmlToolCalls } from './tool-call-xml.ts';

/**
 * Tool calls written as text, in the formats model families document, turned into plain JSON
 * `{"name": …, "arguments": …}` blocks the region scan reads:
 * - Hermes/Qwen `<tool_call>{…}</tool_call>`, `<function_call>…`, Llama `<|python_tag|>{…}`,
 *   Mistral `[TOOL_CALLS][{…}]` (the JSON is already there: only the tags go);
 * - Mistral v11 `[TOOL_CALLS]NAME[ARGS]{…}`, Llama `<function=NAME>{…}</function>`, DeepSeek
 *   `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` + a fenced JSON block, gpt-oss
 *   `<|channel|>commentary to=functions.NAME … <|message|>{…}<|call|>`;
 * - Gemma's ```tool_code fences holding a Python call `NAME(key=value, …)`;
 * - `<function_calls><invoke name="NAME"><parameter name="KEY">…` blocks (tool-call-xml.ts).
 * Pure; every scan is indexOf-based and bounded by a number of calls.
 */
const MAX_CALLS = 64;
const NAME = /^[\w.:-]{1,100}$/;

/** `unclosed`: a call that was still being written when the reply ended. */
type Found = { text: string; found: boolean; unclosed: boolean };

export function unwrapToolCallTags(input: string): Found {
  const xml = unwrapXmlToolCalls(input);
  let text = xml.text;
  text = namedCalls(text, '<|channel|>commentary to=', '<|message|>', '<|call|>', (name) => name.replace(/^functions\./, '').split(/\s/)[0]!);
  text = namedCalls(text, '[TOOL_CALLS]', '[ARGS]', undefined);
  text = namedCalls(text, '<function=', '>', '</function>');
  text = namedCalls(text, '<｜tool▁call▁begin｜>function<｜tool▁sep｜>', '\n', '<｜tool▁call▁end｜>');
  text = pythonCalls(text);
  for (const marker of ['[TOOL_CALLS]', '<|python_tag|>', '<tool_call>', '</tool_call>', '<function_call>', '</function_call>',
    '<｜tool▁calls▁begin｜>', '<｜tool▁calls▁end｜>', '<|call|>']) {
    if (text.includes(marker)) text = text.split(marker).join('\n');
  }
  return { text, found: text !== input, unclosed: xml.unclosed };
}

/** `OPEN NAME NAME_END ARGS [CLOSE]` → `{"name": NAME, "arguments": ARGS}`. */
function namedCalls(text: string, open: string, nameEnd: string, close: string | undefined, clean = (n: string) => n.trim()): string {
  let out = '';
  let from = 0;
  for (let calls = 0; calls < MAX_CALLS; calls++) {
    const at = text.indexOf(open, from);
    if (at === -1) break;
    const nameStop = text.indexOf(nameEnd, at + open.length);
    if (nameStop === -1) break;
    const name = clean(text.slice(at + open.length, nameStop));
    const argsStart = nameStop + nameEnd.length;
    if (!NAME.test(name)) {
      out += text.slice(from, argsStart);
      from = argsStart;
      continue;
    }
    const args = argumentsAt(text, argsStart, close);
    out += `${text.slice(from, at)}\n{"name": ${JSON.stringify(name)}, "arguments": ${args.body.trim() || '{}'}}\n`;
    from = args.end;
  }
  return out + text.slice(from);
}

/** The arguments: a balanced JSON value, else a fenced block, else up to CLOSE or the end of the line. */
function argumentsAt(text: string, from: number, close: string | undefined): { body: string; end: number } {
  let start = from;
  while (start < text.length && /\s/.test(text[start]!)) start++;
  const skipClose = (end: number): number => (close !== undefined && text.startsWith(close, skipBlank(text, end)) ? skipBlank(text, end) + close.length : end);
  if (text[start] === '{' || text[start] === '[') {
    const { end } = matchBracket(text, start);
    if (end !== -1) return { body: text.slice(start, end + 1), end: skipClose(end + 1) };
  }
  if (text.startsWith('```', start)) {
    const bodyStart = text.indexOf('\n', start);
    const bodyEnd = bodyStart === -1 ? -1 : text.indexOf('```', bodyStart);
    if (bodyEnd !== -1) return { body: text.slice(bodyStart + 1, bodyEnd), end: skipClose(bodyEnd + 3) };
  }
  const stop = close === undefined ? -1 : text.indexOf(close, from);
  if (stop !== -1) return { body: text.slice(from, stop), end: stop + close!.length };
  const eol = text.indexOf('\n', from);
  return eol === -1 ? { body: text.slice(from), end: text.length } : { body: text.slice(from, eol), end: eol };
}

function skipBlank(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/** ```tool_code fences holding `name(key=value, …)` (Gemma) → tool-call JSON; Python literals are left to json-repair. */
function pythonCalls(text: string): string {
  let out = '';
  let from = 0;
  for (let calls = 0; calls < MAX_CALLS; calls++) {
    const at = text.indexOf('```tool_code', from);
    if (at === -1) break;
    const bodyStart = text.indexOf('\n', at);
    const bodyEnd = bodyStart === -1 ? -1 : text.indexOf('```', bodyStart);
    if (bodyEnd === -1) break;
    const call = pythonCall(text.slice(bodyStart + 1, bodyEnd).trim());
    out += text.slice(from, at) + (call ?? text.slice(at, bodyEnd + 3));
    from = bodyEnd + 3;
  }
  return out + text.slice(from);
}

function pythonCall(source: string): string | undefined {
  const open = source.indexOf('(');
  if (open === -1 || !source.endsWith(')')) return undefined;
  const name = source.slice(0, open).trim();
  if (!NAME.test(name)) return undefined;
  const args = splitTopLevel(source.slice(open + 1, -1));
  const fields: string[] = [];
  for (const arg of args) {
    if (arg.trim() === '') continue;
    const eq = /^\s*([A-Za-z_]\w*)\s*=([\s\S]*)$/.exec(arg);
    if (eq === null) return undefined;
    fields.push(`${JSON.stringify(eq[1])}: ${eq[2]!.trim()}`);
  }
  return `\n{"name": ${JSON.stringify(name)}, "arguments": {${fields.join(', ')}}}\n`;
}

/** Splits on commas outside strings and brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) { parts.push(text.slice(last, i)); last = i + 1; }
  }
  parts.push(text.slice(last));
  return parts;
}
