import { makeError, type SurfacerError } from '../../errors/index.ts';
import { isA2Map, type A2Map } from './data.ts';
import { DEFAULT_A2UI_LIMITS, type A2uiComponent, type A2uiLimits } from './types.ts';
import { childIds } from './catalogue.ts';

/** Size guardrails of one surface's batch; limits default to DEFAULT_A2UI_LIMITS. */
export function resolveLimits(partial: Partial<A2uiLimits> | undefined): A2uiLimits {
  return { ...DEFAULT_A2UI_LIMITS, ...partial };
}

export function byteLength(line: string): number {
  return Buffer.byteLength(line, 'utf8');
}

export interface SurfaceSizeFacts {
  lineBytes: readonly number[];
  /** The surface's whole component set (what the client holds after the batch). */
  components: readonly A2uiComponent[];
  rootId: string;
  /** Check the depth here (the validator only sees the components of the message itself). */
  checkDepth: boolean;
  model: A2Map;
}

export function checkSurfaceGuardrails(facts: SurfaceSizeFacts, limits: A2uiLimits): SurfacerError[] {
  const errors: SurfacerError[] = [];
  let total = 0;
  facts.lineBytes.forEach((bytes, i) => {
    total += bytes;
    if (bytes > limits.maxBytesPerMessage) {
      errors.push(makeError('A2UI_S2C_MESSAGE_TOO_LARGE', `message ${i} is ${bytes} bytes, more than ${limits.maxBytesPerMessage}`));
    }
  });
  if (total > limits.maxBytesPerSurface) {
    errors.push(makeError('A2UI_S2C_SURFACE_TOO_LARGE', `the batch is ${total} bytes, more than ${limits.maxBytesPerSurface}`));
  }
  if (facts.components.length > limits.maxComponentsPerSurface) {
    errors.push(makeError('A2UI_S2C_TOO_MANY_COMPONENTS',
      `${facts.components.length} components, more than ${limits.maxComponentsPerSurface}`));
  }
  if (facts.checkDepth) {
    const depth = treeDepth(facts.components, facts.rootId);
    if (depth > limits.maxNestingDepth) {
      errors.push(makeError('A2UI_S2C_NESTING_TOO_DEEP', `the component tree is ${depth} levels deep, more than ${limits.maxNestingDepth}`));
    }
  }
  errors.push(...checkModel(facts.model, limits));
  return errors;
}

function checkModel(model: A2Map, limits: A2uiLimits): SurfacerError[] {
  let entries = 0;
  let deepest = 0;
  let longest = 0;
  const stack: [A2Map, number][] = [[model, 0]];
  while (stack.length > 0) {
    const [map, depth] = stack.pop()!;
    for (const key of Object.keys(map)) {
      const v = map[key]!;
      entries += 1;
      deepest = Math.max(deepest, depth + 1);
      if (isA2Map(v)) stack.push([v, depth + 1]);
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

/** Depth of the tree under `rootId` (the root is level 1), iteratively; cycles are the validator's job. */
export function treeDepth(components: readonly A2uiComponent[], rootId: string): number {
  const children = new Map<string, readonly string[]>();
  for (const c of components) {
    const [type, props] = Object.entries(c.component)[0] ?? [];
    if (type === undefined || props === undefined) continue;
    children.set(c.id, childIds(type, props));
  }
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
