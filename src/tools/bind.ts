import { makeError, type ErrorCode } from '../errors/index.ts';
import type { PlannerTools } from '../planner/types.ts';
import { DEFAULT_TOOL_TIMEOUT_MS, type ToolRegistry } from './registry.ts';

// What a tool may hand the model: results are clipped to this many characters of JSON.
const MAX_RESULT_CHARS = 16_000;

/** The error a tool call came to, as the model is given it: a stable code and what went wrong. */
function failed(code: ErrorCode, detail: string): { ok: false; result: unknown } {
  const error = makeError(code, detail.slice(0, 1000));
  return { ok: false, result: { error: { code: error.code, detail: error.technical_detail } } };
}

/**
 * The app's tools bound to one conversation, as a turn's planner calls them. Throws only when
 * the turn itself was cancelled (`signal`); otherwise an unknown tool, arguments its schema refuses, a throw, a timeout or a result that is not
 * JSON come back as `ok: false` with `{error: {code, detail}}`, which the planner sends to the
 * model as the tool's result (the model may then correct its call or answer without it).
 */
export function bindTools(registry: ToolRegistry, conversation: { id: string; owner: string | undefined }): PlannerTools {
  return {
    definitions: registry.schemas,
    async call(name, args, signal) {
      const tool = registry.resolve(name);
      if (tool === undefined) return failed('TOOL_UNKNOWN', `no tool named ${JSON.stringify(name).slice(0, 80)}; available: ${registry.schemas.map((s) => s.name).join(', ')}`);
      const parsed = tool.input.safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return failed('TOOL_INPUT_INVALID', `${issue?.path.map(String).join('.') || 'arguments'}: ${issue?.message ?? 'invalid'}`);
      }
      const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = AbortSignal.any([signal, timeout]);
      let value: unknown;
      try {
        const running = tool.handler(parsed.data, { conversation, signal: combined });
        running.catch(() => {});
        value = await Promise.race([running, aborted(combined)]);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (timeout.aborted) return failed('TOOL_TIMEOUT', `${name} gave no result within ${timeoutMs} ms`);
        return failed('TOOL_FAILED', `${name}: ${(error as Error)?.message ?? String(error)}`);
      }
      let json: string | undefined;
      try {
        json = JSON.stringify(value);
      } catch (error) {
        return failed('TOOL_FAILED', `${name} returned a value that is not JSON: ${(error as Error).message}`);
      }
      if (json === undefined) return { ok: true, result: null };
      if (json.length > MAX_RESULT_CHARS) return failed('TOOL_FAILED', `${name} returned ${json.length} characters of JSON (at most ${MAX_RESULT_CHARS})`);
      return { ok: true, result: JSON.parse(json) as unknown };
    },
  };
}

/** Rejects when `signal` aborts (a handler that ignores its signal is abandoned). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) { reject(signal.reason); return; }
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
