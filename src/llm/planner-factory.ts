import type { Planner } from '../planner/types.ts';
import { instrumentPlanner } from '../telemetry/instrument.ts';
import type { SurfacerMetrics } from '../telemetry/metrics.ts';
import { capabilitiesFor, parseCapabilityTable, type CapabilityTable } from './capabilities.ts';
import type { PlannerConfig } from './config.ts';
import { createFallbackPlanner, type FallbackOptions } from './fallback-planner.ts';
import { createOllamaPlanner } from './ollama-planner.ts';
import { createOpenAiPlanner, openAiProviderFor } from './openai-planner.ts';
import { PlannerError } from './planner-error.ts';
import { createReplayPlanner, parseReplayFile } from './replay-planner.ts';

export interface PlannerDeps {
  /** The app's embedded planner: the fallback of every model planner. */
  offline: Planner;
  /** Rendered from the directive registry (renderSystemPrompt). */
  systemPrompt: string;
  /** The directive envelope's JSON Schema (directiveJsonSchema). */
  envelopeSchema: Record<string, unknown>;
  readFile: (path: string) => string;
  /** GenAI metrics of every model request (src/telemetry); absent: none recorded. */
  metrics?: SurfacerMetrics;
  /** Told when the model stops answering and the offline planner answers in its place, and when it is back. */
  onFallback?: FallbackOptions['onChange'];
}

function readTable(config: PlannerConfig, readFile: PlannerDeps['readFile']): CapabilityTable {
  if (config.capabilitiesFile === undefined) return {};
  const parsed = parseCapabilityTable(readFile(config.capabilitiesFile), config.capabilitiesFile);
  if (!parsed.ok) throw new PlannerError(parsed.error);
  return parsed.table;
}

/**
 * The planner `surfacer serve` runs. Model planners fall back to the offline planner when the
 * model cannot answer, and say so; the replay planner does not (a missing answer is a bug in
 * the recording, shown as such). Configuration problems throw an LLM_CONFIG_INVALID PlannerError.
 */
export function createConfiguredPlanner(config: PlannerConfig, deps: PlannerDeps): Planner {
  const common = {
    systemPrompt: deps.systemPrompt, timeoutMs: config.timeoutMs, strict: config.strict,
    retry: { maxRetries: config.maxRetries }, ...(Object.keys(config.sampling).length > 0 ? { sampling: config.sampling } : {}),
    toolLoop: { maxSteps: config.toolMaxSteps, timeoutMs: config.toolTimeoutMs }, stream: config.stream,
    ...(config.captureContent === true ? { captureContent: true } : {}),
  };
  // Inside the fallback: a model request that failed is counted as failed, not as the offline answer.
  const measured = (planner: Planner, model: string | undefined): Planner => (deps.metrics
    ? instrumentPlanner(planner, deps.metrics, model !== undefined ? { requestModel: model } : {})
    : planner);
  const fallbackOptions = deps.onFallback ? { onChange: deps.onFallback } : {};
  switch (config.planner) {
    case 'offline':
      return deps.offline;
    case 'ollama': {
      const ollama = createOllamaPlanner({
        ...common, host: config.ollamaHost, model: config.ollamaModel, format: deps.envelopeSchema,
        capabilities: capabilitiesFor('ollama', config.ollamaModel, readTable(config, deps.readFile)),
      });
      return createFallbackPlanner(measured(ollama, config.ollamaModel), deps.offline, fallbackOptions);
    }
    case 'openai': {
      const table = readTable(config, deps.readFile);
      const openai = createOpenAiPlanner({
        ...common, baseURL: config.openaiBaseUrl, apiKey: config.openaiApiKey!, model: config.openaiModel!, envelopeSchema: deps.envelopeSchema,
        capabilities: capabilitiesFor(openAiProviderFor(config.openaiBaseUrl), config.openaiModel!, table),
      });
      return createFallbackPlanner(measured(openai, config.openaiModel), deps.offline, fallbackOptions);
    }
    case 'replay': {
      const parsed = parseReplayFile(deps.readFile(config.replayFile!), config.replayFile!);
      if (!parsed.ok) throw new PlannerError(parsed.error);
      return createReplayPlanner(parsed.entries, config.replayMatch === undefined ? {} : { match: config.replayMatch });
    }
  }
}
