import type { Planner } from '../planner/index.ts';
import { secondsSince, type SurfacerMetrics } from './metrics.ts';
import { errorType } from './tracing.ts';

/*
 * Metrics around a planner, as a decorator: the planner stays as it is, and what is counted is
 * what its callers see. The service's and the store's decorators are in src/server/instrument.ts,
 * above the conversation they wrap.
 */

/**
 * A model planner whose every request is one GenAI operation (`gen_ai.client.*`): its duration,
 * the tokens the provider reported, the canonical code when it failed. Wrap the model's own
 * planner, inside the fallback to the offline planner, so a failed call is counted as failed.
 */
export function instrumentPlanner(planner: Planner, metrics: SurfacerMetrics, options: { requestModel?: string } = {}): Planner {
  const requestModel = options.requestModel !== undefined ? { requestModel: options.requestModel } : {};
  // Named, not spread: a planner's methods may live on its prototype.
  return {
    name: planner.name, label: planner.label,
    ...(planner.mapText ? { mapText: (text: string) => planner.mapText!(text) } : {}),
    ...(planner.streams === undefined ? {} : { streams: planner.streams }),
    async plan(input, signal) {
      const startedAt = performance.now();
      try {
        const output = await planner.plan(input, signal);
        metrics.modelCall({
          provider: output.provider, ...requestModel, ...(output.model !== undefined ? { responseModel: output.model } : {}),
          seconds: secondsSince(startedAt),
          ...(output.usage ? { inputTokens: output.usage.prompt_tokens, outputTokens: output.usage.completion_tokens } : {}),
        });
        return output;
      } catch (error) {
        metrics.modelCall({
          provider: planner.name, ...requestModel, seconds: secondsSince(startedAt),
          errorType: errorType(error),
        });
        throw error;
      }
    },
  };
}
