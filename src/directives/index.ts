export { createDirectiveRegistry, foldDirectiveName } from './registry.ts';
export type {
  ApplyContext, DirectiveDefinition, DirectiveRegistry, DirectiveWarningCode, NormaliseContext,
} from './registry.ts';
export { DEFAULT_LIMITS, jsonBytes, resolveLimits } from './limits.ts';
export type { DirectiveLimits } from './limits.ts';
export { itemBudget, listBudgetError } from './list-budgets.ts';
export { parseModelOutput, safeParseModelOutput } from './parse.ts';
export type { ParseResult } from './parse.ts';
export type { RawEnvelope } from './envelope.ts';
export { validateBatch, validateModelOutput } from './validate.ts';
export type { RunMode, ValidateOptions, ValidationResult, ValidDirective } from './validate.ts';
export { applyValidated, runDirectives, runModelOutput } from './run.ts';
export type { AppliedDirective, RunOptions, RunResult } from './run.ts';
export {
  normalisePatchOps, normaliseWritablePath, PATCH_OP_ALIASES, PatchOpSchema, toDataOps, WRITABLE_POINTER,
} from './patch.ts';
export type { PatchOp } from './patch.ts';
export { directiveEnvelopeSchema, directiveJsonSchema, directiveSchema, payloadJsonSchema } from './json-schema.ts';
export { renderDirectiveCatalogue, renderDirectiveEntry } from './catalogue.ts';
export { CATALOGUE_MARKER, renderPromptTemplate, renderSystemPrompt, SYSTEM_PROMPT_URL } from './prompt.ts';
export { toCamelCase, toSnakeCase } from './key-case.ts';
export { createEnvelopeStreamReader } from './stream-reader.ts';
export type { EnvelopeStreamReader, StreamEvent, StreamFinish, StreamReaderOptions } from './stream-reader.ts';
