/** Budgets of design.md §4. Sizes are UTF-8 bytes of the JSON text of the value. */
export interface DirectiveLimits {
  maxDirectives: number;
  maxDirectiveBytes: number;
  maxBatchBytes: number;
  /** Raw model text; larger replies are refused before any repair scan runs. */
  maxTextBytes: number;
  /** Nesting depth of any JSON value, checked before any recursive walk. */
  maxDepth: number;
  /** Items one list may hold after a directive (list directives: show, add). */
  maxListItems: number;
  /** UTF-8 bytes of one list item's JSON (list directives: show, add, update; a table's rows too). */
  maxListItemBytes: number;
  /** Rows one table may hold after a directive (ui.show_table; the list directives on a table). A table pages, so this exceeds maxListItems. */
  maxTableRows: number;
  /** Columns of one table (ui.show_table). */
  maxTableColumns: number;
  /** Rows per page of one table (ui.show_table): what one compiled page may hold. */
  maxTablePageSize: number;
}

export const DEFAULT_LIMITS: Readonly<DirectiveLimits> = Object.freeze({
  maxDirectives: 64,
  maxDirectiveBytes: 64 * 1024,
  maxBatchBytes: 128 * 1024,
  maxTextBytes: 256 * 1024,
  maxDepth: 32,
  maxListItems: 100,
  maxListItemBytes: 2 * 1024,
  maxTableRows: 500,
  maxTableColumns: 12,
  maxTablePageSize: 50,
});

export function resolveLimits(overrides: Partial<DirectiveLimits> | undefined): DirectiveLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** The JSON text of a value, or undefined when it is not JSON-serialisable. */
export function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** JSON size in bytes, or undefined when the value is not JSON-serialisable. */
export function jsonBytes(value: unknown): number | undefined {
  const text = jsonText(value);
  return text === undefined ? undefined : utf8Bytes(text);
}

/** Iterative, so a hostile 100k-deep array cannot overflow the stack before it is refused. */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
