import { makeError, type SurfacerError } from '../errors/index.ts';
import {
  appendTranscript, ConversationIr, draw, isValidConversationIr, type ConversationIr as Ir, type EntropySource,
} from '../ui-ir/index.ts';
import { childPointer, issue } from './diagnostics.ts';
import { resolveLimits } from './limits.ts';
import { listBudgetError } from './list-budgets.ts';
import type { ApplyContext } from './registry.ts';
import type { DirectiveRegistry } from './registry.ts';
import {
  validateBatch, validateModelOutput, type RunMode, type ValidateOptions, type ValidationResult,
} from './validate.ts';

export interface RunOptions extends ValidateOptions {
  /** Time and nonces; drawn only for directives that are applied, in batch order. */
  source: EntropySource;
}

/** What was applied, canonical: replaying these as an envelope in strict mode gives the same IR. */
export interface AppliedDirective {
  index: number;
  type: string;
  payload: unknown;
}

export interface RunResult {
  ir: Ir;
  applied: AppliedDirective[];
  /** The transcript text that was appended, if any. */
  assistantText?: string;
  warnings: SurfacerError[];
  errors: SurfacerError[];
}

/** Validates `input` (an envelope as JSON) whole, then applies it. Never throws. */
export function runDirectives(registry: DirectiveRegistry, ir: Ir, input: unknown, options: RunOptions): RunResult {
  return applyValidated(ir, validateBatch(registry, input, options), options);
}

/** Parses raw model text, validates it whole, then applies it. Never throws. */
export function runModelOutput(registry: DirectiveRegistry, ir: Ir, text: string, options: RunOptions): RunResult {
  return applyValidated(ir, validateModelOutput(registry, text, options), options);
}

/**
 * Applies a validation result. `assistant_text` becomes a transcript entry first, then each
 * directive's pure `apply` runs in order and the IR it returns must pass the IR schema. Strict:
 * any failure returns the input IR untouched. Best-effort: a failing directive is skipped.
 */
export function applyValidated(ir: Ir, validation: ValidationResult, options: Pick<RunOptions, 'mode' | 'source' | 'limits'>): RunResult {
  const { mode, source } = options;
  const context: ApplyContext = { limits: resolveLimits(options.limits) };
  const warnings = [...validation.warnings];
  const errors = [...validation.errors];
  const unchanged: RunResult = { ir, applied: [], warnings, errors };
  if (mode === 'strict' && !validation.ok) return unchanged;
  let current = ir;
  const applied: AppliedDirective[] = [];
  let assistantText: string | undefined;
  if (validation.assistantText !== undefined) {
    const next = appendTranscript(current, { role: 'assistant', text: validation.assistantText }, { now: source.now() });
    if (isValidConversationIr(next, current)) {
      current = next;
      assistantText = validation.assistantText;
    } else {
      errors.push(issue('DIRECTIVE_IR_INVALID', '/assistant_text', 'the transcript entry would make the IR invalid'));
    }
  }
  for (const directive of validation.directives) {
    const failure = applyOne(current, directive.definition, directive.payload, directive.index, source, context);
    if (failure.ok) {
      current = failure.ir;
      applied.push({ index: directive.index, type: directive.type, payload: directive.payload });
      continue;
    }
    errors.push(failure.error);
    if (mode === 'strict') return unchanged;
    warnings.push(issue('DIRECTIVE_WARN_DROPPED', childPointer('/directives', directive.index), `directive ${directive.index} skipped: ${failure.error.code}`));
  }
  if (mode === 'strict' && errors.length > 0) return unchanged;
  const result: RunResult = { ir: current, applied, warnings, errors };
  if (assistantText !== undefined) result.assistantText = assistantText;
  return result;
}

type Step = { ok: true; ir: Ir } | { ok: false; error: SurfacerError };

function applyOne(
  ir: Ir, definition: ValidationResult['directives'][number]['definition'], payload: unknown, index: number, source: EntropySource,
  context: ApplyContext,
): Step {
  const base = childPointer('/directives', index);
  let result;
  try {
    result = definition.apply(ir, payload, draw(source), context);
  } catch (error) {
    return { ok: false, error: makeError('DIRECTIVE_HANDLER_FAILED', `${definition.type} threw: ${String(error)}`, { pointer: base }) };
  }
  if (!result.ok) {
    const pointer = result.error.pointer === undefined ? base : `${base}/payload${result.error.pointer}`;
    return { ok: false, error: { ...result.error, pointer } };
  }
  // The memoised check first (what did not change passed before); the full parse only for its issues.
  const checked = isValidConversationIr(result.ir, ir) ? undefined : ConversationIr.safeParse(result.ir);
  if (checked !== undefined && !checked.success) {
    const first = checked.error.issues[0];
    const where = first === undefined ? '' : `/${first.path.join('/')}`;
    return { ok: false, error: makeError('DIRECTIVE_IR_INVALID', `${definition.type} produced an invalid IR at ${where}: ${first?.message ?? ''}`, { pointer: base }) };
  }
  const over = listBudgetError(ir, result.ir, context.limits);
  if (over !== undefined) return { ok: false, error: { ...over, pointer: base } };
  return { ok: true, ir: result.ir };
}

export type { RunMode };
