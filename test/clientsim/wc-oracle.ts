import { A2uiMessageProcessor } from '@a2ui/web_core/v0_8';
import { pathToFileURL } from 'node:url';
import { vi } from 'vitest';
import { SHARED_EXAMPLES_DIR } from '../support/shared-examples.ts';

// The official processor as a test oracle: one message per processMessages call, so a throw
// on one message is recorded and the rest of the stream still runs (a2ui-v0.8.md §9).

export interface WcSurface {
  rootComponentId: string | null;
  componentTree: unknown;
  dataModel: Map<string, unknown>;
  components: Map<string, unknown>;
  styles: Record<string, unknown>;
}

export interface WcRun {
  proc: A2uiMessageProcessor;
  /** Indexes of messages WC threw on. */
  threw: number[];
  surfaces: Map<string, WcSurface>;
  visible: Set<string>;
}

export function silenceWc<T>(fn: () => T): T {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    return fn();
  } finally {
    warn.mockRestore();
    error.mockRestore();
  }
}

export function runWc(stream: readonly unknown[], proc = new A2uiMessageProcessor()): WcRun {
  const threw: number[] = [];
  silenceWc(() => {
    stream.forEach((message, i) => {
      try {
        proc.processMessages([message as never]);
      } catch {
        threw.push(i);
      }
    });
  });
  return { proc, threw, ...wcState(proc) };
}

export function wcState(proc: A2uiMessageProcessor): { surfaces: Map<string, WcSurface>; visible: Set<string> } {
  // Private field, present at runtime: the only way to see surfaces without a root.
  const surfaces = (proc as unknown as { surfaces: Map<string, WcSurface> }).surfaces;
  return { surfaces, visible: new Set(proc.getSurfaces().keys()) };
}

/** Maps, parsed objects, arrays and holes made comparable (order-sensitive via JSON text). */
export function tagged(value: unknown): unknown {
  if (value === undefined) return { undefined: true };
  if (value instanceof Map) return { map: [...value].map(([k, v]) => [k, tagged(v)]) };
  if (Array.isArray(value)) return { array: Array.from(value, tagged) };
  if (typeof value === 'object' && value !== null) return { object: Object.entries(value).map(([k, v]) => [k, tagged(v)]) };
  return value;
}

export function taggedJson(value: unknown): string {
  return JSON.stringify(tagged(value));
}

const isNode = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && 'id' in value && 'type' in value && 'properties' in value && 'dataContextPath' in value;

/** Properties with child nodes replaced by `#<id>`: shows path rewriting and literals, not subtrees. */
function shallow(value: unknown): unknown {
  if (isNode(value)) return `#${String(value['id'])}`;
  if (Array.isArray(value)) return Array.from(value, shallow);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shallow(v)]));
  return value;
}

/** Rendered nodes in document order: `id type dataContextPath weight properties`. Works on WC's tree and on ClientSim's root node. */
export function treeNodes(tree: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isNode(value)) {
      out.push(`${String(value['id'])} ${String(value['type'])} ${String(value['dataContextPath'])} ${String(value['weight'])} ${JSON.stringify(shallow(value['properties']))}`);
      walk(value['properties']);
    } else if (typeof value === 'object' && value !== null && !(value instanceof Map)) Object.values(value).forEach(walk);
  };
  walk(tree);
  return out;
}

/** The official example streams, none when they are not here (their suites are skipped then: EXAMPLES_SKIP). */
export async function readExampleStreams(): Promise<Array<{ name: string; stream: unknown[] }>> {
  if (SHARED_EXAMPLES_DIR === undefined) return [];
  const { readdir, readFile } = await import('node:fs/promises');
  const root = pathToFileURL(`${SHARED_EXAMPLES_DIR}/`);
  const out: Array<{ name: string; stream: unknown[] }> = [];
  for (const dir of ['minimal', 'basic']) {
    const folder = new URL(`${dir}/`, root);
    for (const file of (await readdir(folder)).filter((f) => f.endsWith('.json')).sort()) {
      out.push({ name: `${dir}/${file}`, stream: JSON.parse(await readFile(new URL(file, folder), 'utf8')) as unknown[] });
    }
  }
  return out;
}
