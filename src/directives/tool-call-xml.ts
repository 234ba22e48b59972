import { setOwn } from './diagnostics.ts';
import { tryParseJson } from './json-repair.ts';

/**
 * Tool calls written as XML-like blocks, as Claude's prompted tool use and some gateways write
 * them:
 *
 *   <function_calls>
 *   <invoke name="NAME">
 *   <parameter name="KEY">VALUE</parameter>
 *   </invoke>
 *   </function_calls>
 *
 * Each `<invoke>` becomes a `{"name": NAME, "arguments": {KEY: VALUE, …}}` block the region scan
 * reads, like the other tool-call syntaxes of tool-call-text.ts. A VALUE that is a JSON object,
 * array or number is read as that; anything else is the string, trimmed (the validator coerces
 * where the schema wants another type). `</function_calls>` is often a stop sequence, so it may
 * be missing; an `<invoke>` that never closes, or a block that ends inside a tag, means the reply
 * was cut off. Pure; indexOf scans bounded by a number of calls and parameters.
 */
const MAX_CALLS = 64;
const MAX_PARAMETERS = 256;
const NAME = /^[\w.:-]{1,100}$/;
const NAME_ATTRIBUTE = /\sname\s*=\s*(?:"([^"]*)"|'([^']*)')/;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const INVOKE_CLOSE = '</invoke>';
const PARAMETER_CLOSE = '</parameter>';

export function unwrapXmlToolCalls(input: string): { text: string; found: boolean; unclosed: boolean } {
  let out = '';
  let from = 0;
  let unclosed = false;
  for (let calls = 0; calls < MAX_CALLS; calls++) {
    const at = findTag(input, '<invoke', from);
    if (at === -1) break;
    const tagEnd = input.indexOf('>', at);
    const close = tagEnd === -1 ? -1 : input.indexOf(INVOKE_CLOSE, tagEnd);
    if (close === -1) {
      unclosed = true;
      break;
    }
    const name = nameAttribute(input.slice(at, tagEnd + 1));
    const args = name === undefined || !NAME.test(name) ? undefined : parameters(input.slice(tagEnd + 1, close));
    // A call that cannot be read stays as written: the parser refuses it rather than guess.
    out += args === undefined ? input.slice(from, close + INVOKE_CLOSE.length) : `${input.slice(from, at)}\n${JSON.stringify({ name, arguments: args })}\n`;
    from = close + INVOKE_CLOSE.length;
  }
  if (!unclosed) unclosed = endsInsideCallBlock(input);
  let text = out + input.slice(from);
  for (const marker of ['<function_calls>', '</function_calls>']) if (text.includes(marker)) text = text.split(marker).join('\n');
  return { text, found: text !== input, unclosed };
}

/** `{KEY: VALUE}` of the `<parameter>` elements of one call; undefined when one is not closed or has no name. */
function parameters(body: string): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  let from = 0;
  for (let n = 0; n < MAX_PARAMETERS; n++) {
    const at = findTag(body, '<parameter', from);
    if (at === -1) return args;
    const tagEnd = body.indexOf('>', at);
    const close = tagEnd === -1 ? -1 : body.indexOf(PARAMETER_CLOSE, tagEnd);
    const key = tagEnd === -1 ? undefined : nameAttribute(body.slice(at, tagEnd + 1));
    if (close === -1 || key === undefined || key === '') return undefined;
    setOwn(args, key, parameterValue(body.slice(tagEnd + 1, close)));
    from = close + PARAMETER_CLOSE.length;
  }
  return undefined;
}

function parameterValue(raw: string): unknown {
  const value = raw.trim();
  if (value.startsWith('{') || value.startsWith('[')) {
    const parsed = tryParseJson(value);
    if (parsed.ok) return parsed.value;
  }
  if (JSON_NUMBER.test(value)) {
    const number = Number(value);
    if (Number.isFinite(number)) return number;
  }
  return value;
}

function nameAttribute(tag: string): string | undefined {
  const match = NAME_ATTRIBUTE.exec(tag);
  return match === null ? undefined : (match[1] ?? match[2]!).trim();
}

/** The next `<NAME` that is that tag, not a longer name (`<invoke` but not `<invoker`). */
function findTag(text: string, open: string, from: number): number {
  for (let at = text.indexOf(open, from); at !== -1; at = text.indexOf(open, at + open.length)) {
    const next = text[at + open.length];
    if (next === undefined || next === '>' || next === '/' || /\s/.test(next)) return at;
  }
  return -1;
}

/** A `<function_calls>` block left open whose text stops inside a tag (`…</invoke>\n<inv`): cut off. */
function endsInsideCallBlock(text: string): boolean {
  if (text.lastIndexOf('<function_calls>') <= text.lastIndexOf('</function_calls>')) return false;
  const tail = text.trimEnd();
  const lastTag = tail.lastIndexOf('<');
  return lastTag !== -1 && /^<\/?[A-Za-z_]*$/.test(tail.slice(lastTag));
}
