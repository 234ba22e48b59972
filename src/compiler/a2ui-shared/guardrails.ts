import { makeError, type SurfacerError } from '../../errors/index.ts';
import { DEFAULT_A2UI_LIMITS, type A2uiLimits } from './types.ts';

/** Size guardrails of one surface's batch; limits default to DEFAULT_A2UI_LIMITS. */
export function resolveLimits(partial: Partial<A2uiLimits> | undefined): A2uiLimits {
  return { ...DEFAULT_A2UI_LIMITS, ...partial };
}

export function byteLength(line: string): number {
  return Buffer.byteLength(line, 'utf8');
}

/**
 * The UTF-8 sizes of serialised lines, counted only when a limit could be exceeded or someone
 * reads them. Why: `JSON.stringify` returns a large line as a rope, and counting its bytes
 * flattens it (a copy of the whole line): on a 1,000-field v0.9 form that cost more than the
 * stringify itself. A UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair, two units, is 4),
 * so `3 × length` bounds a line without reading it; every check that could fail on that bound
 * still uses the exact count, so the decisions and the numbers reported are the same.
 */
export class LineSizes {
  private readonly exact: (number | undefined)[] = [];
  private total: number | undefined;

  constructor(readonly lines: readonly string[]) {}

  bytes(i: number): number {
    return (this.exact[i] ??= byteLength(this.lines[i]!));
  }

  upperBound(i: number): number {
    return 3 * this.lines[i]!.length;
  }

  totalBytes(): number {
    if (this.total === undefined) {
      let sum = 0;
      for (let i = 0; i < this.lines.length; i += 1) sum += this.bytes(i);
      this.total = sum;
    }
    return this.total;
  }

  totalUpperBound(): number {
    let sum = 0;
    for (let i = 0; i < this.lines.length; i += 1) sum += this.upperBound(i);
    return sum;
  }
}

export interface SurfaceSizeFacts {
  lineSizes: LineSizes;
  /** Components of the surface's whole set (what the client holds after the batch). */
  componentCount: number;
  /**
   * The depth of the whole component tree, asked only when the batch carries part of the set
   * (the validator measures the depth of what a message holds).
   */
  depth: (() => number) | undefined;
  /** The client data model after the batch: maps, arrays (v0.9) and primitive leaves. */
  model: unknown;
}

export function checkSurfaceGuardrails(facts: SurfaceSizeFacts, limits: A2uiLimits): SurfacerError[] {
  const errors: SurfacerError[] = [];
  const sizes = facts.lineSizes;
  for (let i = 0; i < sizes.lines.length; i += 1) {
    if (sizes.upperBound(i) <= limits.maxBytesPerMessage) continue;
    const bytes = sizes.bytes(i);
    if (bytes > limits.maxBytesPerMessage) {
      errors.push(makeError('A2UI_S2C_MESSAGE_TOO_LARGE', `message ${i} is ${bytes} bytes, more than ${limits.maxBytesPerMessage}`));
    }
  }
  if (sizes.totalUpperBound() > limits.maxBytesPerSurface && sizes.totalBytes() > limits.maxBytesPerSurface) {
    errors.push(makeError('A2UI_S2C_SURFACE_TOO_LARGE', `the batch is ${sizes.totalBytes()} bytes, more than ${limits.maxBytesPerSurface}`));
  }
  if (facts.componentCount > limits.maxComponentsPerSurface) {
    errors.push(makeError('A2UI_S2C_TOO_MANY_COMPONENTS',
      `${facts.componentCount} components, more than ${limits.maxComponentsPerSurface}`));
  }
  if (facts.depth !== undefined) {
    const depth = facts.depth();
    if (depth > limits.maxNestingDepth) {
      errors.push(makeError('A2UI_S2C_NESTING_TOO_DEEP', `the component tree is ${depth} levels deep, more than ${limits.maxNestingDepth}`));
    }
  }
  errors.push(...checkModel(facts.model, limits));
  return errors;
}

/** Entries (map keys and array items), depth and the longest string of a data model. */
function checkModel(model: unknown, limits: A2uiLimits): SurfacerError[] {
  let entries = 0;
  let deepest = 0;
  let longest = 0;
  const stack: [object, number][] = typeof model === 'object' && model !== null ? [[model, 0]] : [];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    const values: readonly unknown[] = Array.isArray(node) ? node : Object.values(node);
    if (values.length > 0 && depth + 1 > deepest) deepest = depth + 1;
    entries += values.length;
    for (let i = 0; i < values.length; i += 1) {
      const v = values[i];
      if (typeof v === 'object' && v !== null) stack.push([v, depth + 1]);
      else if (typeof v === 'string' && v.length * 3 > limits.maxStringBytes) longest = Math.max(longest, byteLength(v));
    }
  }
  const errors: SurfacerError[] = [];
  if (deepest > limits.maxDataDepth) {
    errors.push(makeError('A2UI_S2C_DATA_TOO_DEEP', `the data model is ${deepest} levels deep, more than ${limits.maxDataDepth}`));
  }
  if (entries > limits.maxDataEntries) {
    errors.push(makeError('A2UI_S2C_DATA_TOO_LARGE', `${entries} data entries, more than ${limits.maxDataEntries}`));
  }
  if (longest > limits.maxStringBytes) {
    errors.push(makeError('A2UI_S2C_DATA_TOO_LARGE', `a data string is ${longest} bytes, more than ${limits.maxStringBytes}`));
  }
  return errors;
}

/**
 * Depth of the tree under `rootId` (the root is level 1), iteratively; cycles are the
 * validator's job. `children` maps each component id to the ids it refers to.
 */
export function treeDepth(children: ReadonlyMap<string, readonly string[]>, rootId: string): number {
  let max = 0;
  const stack: [string, number][] = [[rootId, 1]];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const [id, depth] = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    max = Math.max(max, depth);
    for (const child of children.get(id) ?? []) stack.push([child, depth + 1]);
  }
  return max;
}
