/**
 * Text-level clean-up of what chat models put around their answer: reasoning blocks, chat
 * template tokens and tagged tool calls. Pure and linear (indexOf scans only, no backtracking
 * regular expressions), and only ever run on replies that are not JSON as a whole, so a tag
 * written inside a JSON string of a canonical reply is never touched.
 */

/** Reasoning delimiters of the common families: Qwen/DeepSeek-R1 `<think>`, Mistral `[THINK]`, gpt-oss analysis. */
const REASONING: ReadonlyArray<readonly [open: string, close: string]> = [
  ['<think>', '</think>'], ['<thinking>', '</thinking>'], ['<reasoning>', '</reasoning>'],
  ['<reflection>', '</reflection>'], ['[THINK]', '[/THINK]'],
  ['<|channel|>analysis<|message|>', '<|end|>'], ['<|channel|>commentary<|message|>', '<|end|>'],
];

export interface Stripped {
  text: string;
  /** A block was removed. */
  found: boolean;
  /** A block opened and never closed: the reply was cut off while the model was still thinking. */
  unclosed: boolean;
}

/**
 * Removes reasoning blocks. A closing tag with no opening tag before it (DeepSeek-R1's template
 * opens `<think>` in the prompt) ends a block that started with the reply. Case-insensitive.
 */
export function stripReasoning(text: string): Stripped {
  let rest = text;
  let found = false;
  const lower = (): string => rest.toLowerCase();
  // Each pass lowers and scans the text again; real replies have one or two blocks.
  for (let guard = 0; guard < 16; guard++) {
    const l = lower();
    let best: { at: number; open: string; close: string } | undefined;
    for (const [open, close] of REASONING) {
      const at = l.indexOf(open.toLowerCase());
      if (at !== -1 && (best === undefined || at < best.at)) best = { at, open, close };
    }
    const orphan = firstOrphanClose(l, best?.at ?? l.length);
    if (orphan !== undefined) {
      rest = rest.slice(orphan);
      found = true;
      continue;
    }
    if (best === undefined) break;
    const end = l.indexOf(best.close.toLowerCase(), best.at + best.open.length);
    if (end === -1) return { text: rest.slice(0, best.at), found: true, unclosed: true };
    rest = rest.slice(0, best.at) + rest.slice(end + best.close.length);
    found = true;
  }
  return { text: rest, found, unclosed: false };
}

/** The index just past a closing tag that appears before any opening tag, if there is one. */
function firstOrphanClose(lower: string, before: number): number | undefined {
  let first: number | undefined;
  for (const [, close] of REASONING) {
    if (close === '<|end|>') continue; // also ends ordinary harmony messages
    const at = lower.indexOf(close.toLowerCase());
    if (at !== -1 && at < before && (first === undefined || at < first)) first = at + close.length;
  }
  return first;
}

/** End-of-turn and role tokens a chat template leaks into the text. */
const TEMPLATE_TOKENS = [
  '<|eot_id|>', '<|eom_id|>', '<|im_end|>', '<|im_start|>assistant', '<|end|>', '<|return|>', '<|endoftext|>',
  '<|start|>assistant', '<|channel|>final<|message|>', '<|message|>', '<end_of_turn>', '<start_of_turn>model', '</s>',
  '<|assistant|>', '<｜end▁of▁sentence｜>', '<｜Assistant｜>',
];

export function stripTemplateTokens(text: string): { text: string; found: boolean } {
  let out = text;
  for (const token of TEMPLATE_TOKENS) if (out.includes(token)) out = out.split(token).join('\n');
  return { text: out, found: out !== text };
}

/**
 * Tagged tool calls → plain JSON blocks the region scan reads: Hermes/Qwen `<tool_call>{…}</tool_call>`,
 * `<function_call>`, Mistral `[TOOL_CALLS]`, Llama's `<|python_tag|>` and `<function=NAME>{…}</function>`,
 * DeepSeek's `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` + a fenced JSON argument block.
 */
export function unwrapToolCallTags(text: string): { text: string; found: boolean } {
  let out = text;
  for (const marker of ['[TOOL_CALLS]', '<|python_tag|>', '<tool_call>', '</tool_call>', '<function_call>', '</function_call>',
    '<｜tool▁calls▁begin｜>', '<｜tool▁calls▁end｜>', '<｜tool▁call▁end｜>']) {
    if (out.includes(marker)) out = out.split(marker).join('\n');
  }
  out = namedCalls(out, '<function=', '>', '</function>');
  out = namedCalls(out, '<｜tool▁call▁begin｜>function<｜tool▁sep｜>', '\n', undefined);
  return { text: out, found: out !== text };
}

/**
 * `<function=NAME>ARGS</function>` → `{"name":"NAME","arguments":ARGS}`. Without a closing tag
 * (DeepSeek), ARGS is the fenced block right after the name, or else the rest of its line.
 */
function namedCalls(text: string, open: string, nameEnd: string, close: string | undefined): string {
  let out = '';
  let from = 0;
  for (let guard = 0; guard < 64; guard++) {
    const at = text.indexOf(open, from);
    if (at === -1) break;
    const nameStop = text.indexOf(nameEnd, at + open.length);
    if (nameStop === -1) break;
    const name = text.slice(at + open.length, nameStop).trim();
    const argsStart = nameStop + nameEnd.length;
    if (!/^[\w.:-]{1,100}$/.test(name)) {
      out += text.slice(from, argsStart);
      from = argsStart;
      continue;
    }
    const args = close === undefined ? argumentsAfter(text, argsStart) : closedArguments(text, argsStart, close);
    out += `${text.slice(from, at)}\n{"name": ${JSON.stringify(name)}, "arguments": ${args.body.trim() || '{}'}}\n`;
    from = args.end;
  }
  return out + text.slice(from);
}

type Arguments = { body: string; end: number };

function closedArguments(text: string, from: number, close: string): Arguments {
  const stop = text.indexOf(close, from);
  return stop === -1 ? { body: text.slice(from), end: text.length } : { body: text.slice(from, stop), end: stop + close.length };
}

function argumentsAfter(text: string, from: number): Arguments {
  const fence = text.indexOf('```', from);
  if (fence !== -1 && /^\s*$/.test(text.slice(from, fence))) {
    const bodyStart = text.indexOf('\n', fence);
    const bodyEnd = bodyStart === -1 ? -1 : text.indexOf('```', bodyStart);
    if (bodyEnd !== -1) return { body: text.slice(bodyStart + 1, bodyEnd), end: bodyEnd + 3 };
  }
  const eol = text.indexOf('\n', from);
  return eol === -1 ? { body: text.slice(from), end: text.length } : { body: text.slice(from, eol), end: eol };
}
