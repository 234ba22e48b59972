import { A2uiMessageProcessor, A2uiMessageSchema } from '@a2ui/web_core/v0_8';
import { vi } from 'vitest';
import type { A2uiMessage } from '../../../src/compiler/index.ts';

/** The official v0.8 processor as a test oracle (a2ui-v0.8.md §9). */
export function silenceWc(): void {
  // WC logs JSON-string parse failures and `.`-key misuse; the suites check behaviour, not logs.
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
}

export function newProcessor(): A2uiMessageProcessor {
  return new A2uiMessageProcessor();
}

/** Schema-checks and applies messages one by one; throws with the failing message's index. */
export function feed(processor: A2uiMessageProcessor, messages: readonly A2uiMessage[], label = ''): void {
  messages.forEach((message, i) => {
    const check = A2uiMessageSchema.safeParse(message);
    if (!check.success) {
      throw new Error(`${label} message ${i} rejected by A2uiMessageSchema: ${check.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}\n${JSON.stringify(message)}`);
    }
    const errors: string[] = [];
    const original = console.error;
    // The processor reports some refusals only here (e.g. a data root that is not a map): they count.
    console.error = (...args: unknown[]) => { errors.push(args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ')); };
    try {
      processor.processMessages([message as never]);
    } catch (error) {
      throw new Error(`${label} message ${i} failed in processMessages: ${(error as Error).message}\n${JSON.stringify(message)}`);
    } finally {
      console.error = original;
    }
    const unexplained = errors.filter((e) => !HARMLESS_ERRORS.some((h) => h.pattern.test(e)));
    if (unexplained.length > 0) {
      throw new Error(`${label} message ${i}: the processor reported ${unexplained.join(' | ')}\n${JSON.stringify(message)}`);
    }
  });
}

/** What the official v0.8 processor says on console.error that is known harmless, and why. */
const HARMLESS_ERRORS: ReadonlyArray<{ pattern: RegExp; why: string }> = [];

function canon(value: unknown): unknown {
  const v = value instanceof Map ? Object.fromEntries(value) : value;
  if (Array.isArray(v)) return v.map(canon);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, canon(o[k])]));
  }
  return v;
}

/** What a user sees and edits: per visible surface the resolved tree, data, root and styles. */
export function visibleState(processor: A2uiMessageProcessor): string {
  const out: Record<string, unknown> = {};
  for (const [id, s] of processor.getSurfaces()) {
    out[id] = { root: s.rootComponentId, tree: s.componentTree, data: s.dataModel, styles: s.styles };
  }
  return JSON.stringify(canon(out));
}

export function dataModelOf(processor: A2uiMessageProcessor, surfaceId: string): unknown {
  const s = processor.getSurfaces().get(surfaceId);
  return s ? canon(s.dataModel) : undefined;
}
