/**
 * Text-level clean-up of what chat models put around their answer: reasoning blocks and chat
 * template tokens (tagged tool calls: tool-call-text.ts). Pure and linear (indexOf scans only, no backtracking
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
  // Only ASCII letters are folded: the tags are ASCII, and toLowerCase() can change the length
  // of other text ('İ' becomes two characters), which would shift every index found in it.
  const lower = (): string => rest.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
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
