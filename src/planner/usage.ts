import type { TokenUsage } from './types.ts';

/** Token counts summed over several calls (undefined when none reported any). */
export function sumUsage(calls: ReadonlyArray<{ usage?: TokenUsage | undefined }>): TokenUsage | undefined {
  const used = calls.flatMap((c) => (c.usage ? [c.usage] : []));
  if (used.length === 0) return undefined;
  return used.reduce((t, u) => ({
    prompt_tokens: t.prompt_tokens + u.prompt_tokens, completion_tokens: t.completion_tokens + u.completion_tokens, total_tokens: t.total_tokens + u.total_tokens,
  }));
}
