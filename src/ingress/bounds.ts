import { escapeToken } from '../ui-ir/index.ts';

/** UTF-8 length without allocating (hosts hand us strings; the limit is in bytes). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) { bytes += 4; i++; } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * True when JSON text nests containers deeper than `max`. A linear scan over the text, before
 * JSON.parse sees it, so a body of 60,000 `[` costs one pass and no recursion anywhere.
 * Malformed text is left for the parser to reject.
 */
export function jsonNestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) { if (++depth > max) return true; }
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export interface Bounds {
  readonly maxDepth: number;
  readonly maxEntries: number;
  readonly maxStringLength: number;
}

export interface BoundsViolation {
  readonly pointer: string;
  readonly detail: string;
}

/**
 * First violation of depth / entry count / string length in a parsed JSON value, by an
 * iterative walk. Entries are counted when a container is reached, so the walk does at most
 * `maxEntries` steps before it stops, whatever the input.
 */
export function findBoundsViolation(root: unknown, bounds: Bounds, rootPointer = ''): BoundsViolation | undefined {
  const stack: Array<{ value: unknown; depth: number; pointer: string }> = [{ value: root, depth: 0, pointer: rootPointer }];
  let entries = 0;
  while (stack.length > 0) {
    const { value, depth, pointer } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.length > bounds.maxStringLength) {
        return { pointer, detail: `string of ${value.length} characters (limit ${bounds.maxStringLength})` };
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > bounds.maxDepth) return { pointer, detail: `nested deeper than ${bounds.maxDepth}` };
    const children: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, i) => [String(i), item])
      : Object.entries(value);
    entries += children.length;
    if (entries > bounds.maxEntries) return { pointer, detail: `more than ${bounds.maxEntries} keys and items` };
    for (const [key, child] of children) {
      const childPointer = `${pointer}/${escapeToken(key)}`;
      if (key.length > bounds.maxStringLength) return { pointer: childPointer, detail: `key longer than ${bounds.maxStringLength}` };
      stack.push({ value: child, depth: depth + 1, pointer: childPointer });
    }
  }
  return undefined;
}
