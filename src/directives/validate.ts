import type { SurfacerError } from '../errors/index.ts';
import { parseWithCoercion, payloadErrors } from './coerce.ts';
import {
  childPointer, emptyDiagnostics, issue, strictErrorsFor, type Diagnostics,
} from './diagnostics.ts';
import { shapeDirective, toEnvelope, type DirectiveLookup } from './envelope.ts';
import { normaliseKeys, schemaKeys } from './key-case.ts';
import { exceedsDepth, jsonBytes, jsonText, resolveLimits, utf8Bytes, type DirectiveLimits } from './limits.ts';
import { safeParseModelOutput } from './parse.ts';
import type { DirectiveDefinition, DirectiveRegistry, NormaliseContext } from './registry.ts';

export type RunMode = 'strict' | 'best_effort';

export interface ValidateOptions {
  mode: RunMode;
  limits?: Partial<DirectiveLimits>;
}

/** A directive that passed validation: canonical type, schema output payload. */
export interface ValidDirective {
  index: number;
  type: string;
  payload: unknown;
  definition: DirectiveDefinition;
}

export interface ValidationResult {
  /** True when nothing was dropped and (strict) nothing needed repair. */
  ok: boolean;
  /** Strict mode: empty unless `ok`. Best-effort: every directive that survived. */
  directives: ValidDirective[];
  assistantText?: string;
  warnings: SurfacerError[];
  errors: SurfacerError[];
}

const MAX_ASSISTANT_TEXT = 20_000;

/**
 * Validates a whole batch before anything changes: envelope, budgets, type lookup, key case,
 * the definition's own normalisation, payload schema. Strict mode refuses any repair; best-effort
 * drops only the directives that fail and records why.
 */
export function validateBatch(
  registry: DirectiveRegistry, input: unknown, options: ValidateOptions, prior: readonly SurfacerError[] = [],
): ValidationResult {
  const limits = resolveLimits(options.limits);
  const diagnostics: Diagnostics = { warnings: [...prior], errors: [] };
  // One serialisation gives the batch's size and a private JSON copy, which validation may then
  // repair in place without touching the caller's value.
  const json = jsonText(input);
  if (json === undefined || exceedsDepth(input, limits.maxDepth)) {
    diagnostics.errors.push(issue('DIRECTIVE_ENVELOPE_INVALID', '', `input is not JSON or is nested deeper than ${limits.maxDepth}`));
    return finish(options.mode, diagnostics, []);
  }
  const bytes = utf8Bytes(json);
  if (bytes > limits.maxBatchBytes) {
    diagnostics.errors.push(issue('DIRECTIVE_BUDGET_EXCEEDED', '', `batch is ${bytes} bytes; the limit is ${limits.maxBatchBytes}`));
    return finish(options.mode, diagnostics, []);
  }
  const shaped = toEnvelope(JSON.parse(json) as unknown, diagnostics);
  if (!shaped.ok) {
    diagnostics.errors.push(shaped.error);
    return finish(options.mode, diagnostics, []);
  }
  const { directives: raw, assistant_text: text } = shaped.envelope;
  let assistantText: string | undefined;
  if (typeof text === 'string' && text.length <= MAX_ASSISTANT_TEXT) assistantText = text === '' ? undefined : text;
  else if (text !== undefined) {
    diagnostics.errors.push(issue('DIRECTIVE_ENVELOPE_INVALID', '/assistant_text', `"assistant_text" must be a string of at most ${MAX_ASSISTANT_TEXT} characters`));
  }
  if (raw.length > limits.maxDirectives) {
    diagnostics.errors.push(issue('DIRECTIVE_BUDGET_EXCEEDED', childPointer('/directives', limits.maxDirectives),
      `${raw.length} directives; the limit is ${limits.maxDirectives} per batch (the rest were not read)`));
  }
  const valid: ValidDirective[] = [];
  raw.slice(0, limits.maxDirectives).forEach((entry, index) => {
    const own = emptyDiagnostics();
    let directive: ValidDirective | undefined;
    try {
      directive = validateOne(registry, entry, index, limits, own, bytes > limits.maxDirectiveBytes);
    } catch (error) {
      // An app normaliser or refinement threw: a bug, but it must not take the batch down.
      own.errors.push(issue('DIRECTIVE_HANDLER_FAILED', childPointer('/directives', index), `validation threw: ${String(error)}`));
    }
    diagnostics.warnings.push(...own.warnings);
    diagnostics.errors.push(...own.errors);
    if (directive !== undefined && own.errors.length === 0) valid.push(directive);
    else if (options.mode === 'best_effort') {
      diagnostics.warnings.push(issue('DIRECTIVE_WARN_DROPPED', childPointer('/directives', index), `directive ${index} skipped: ${own.errors[0]?.code ?? 'invalid'}`));
    }
  });
  return finish(options.mode, diagnostics, valid, assistantText);
}

/** Parse + validate raw model text; parse repairs count as warnings (errors in strict mode). */
export function validateModelOutput(registry: DirectiveRegistry, text: string, options: ValidateOptions): ValidationResult {
  const parsed = safeParseModelOutput(text, options.limits);
  if (!parsed.ok) return finish(options.mode, { warnings: parsed.warnings, errors: parsed.errors }, []);
  return validateBatch(registry, parsed.envelope, options, parsed.warnings);
}

function validateOne(
  registry: DirectiveRegistry, entry: unknown, index: number, limits: DirectiveLimits, diagnostics: Diagnostics,
  /** False when the whole batch is within the per-directive limit, so no directive can exceed it. */
  measure: boolean,
): ValidDirective | undefined {
  const pointer = childPointer('/directives', index);
  const size = measure ? jsonBytes(entry) ?? Infinity : 0;
  if (size > limits.maxDirectiveBytes) {
    diagnostics.errors.push(issue('DIRECTIVE_BUDGET_EXCEEDED', pointer, `directive is ${size} bytes; the limit is ${limits.maxDirectiveBytes}`));
    return undefined;
  }
  const shaped = shapeDirective(entry, pointer, diagnostics, lookupFor(registry));
  if (shaped === undefined) return undefined;
  const resolved = registry.resolve(shaped.type);
  if (resolved === undefined) {
    diagnostics.errors.push(issue('DIRECTIVE_UNKNOWN_TYPE', childPointer(pointer, 'type'), `unknown directive type "${shaped.type}"`));
    return undefined;
  }
  const { definition } = resolved;
  if (resolved.alias) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_ALIAS_USED', childPointer(pointer, 'type'), `"${shaped.type}" read as "${definition.type}"`));
  }
  const payloadPointer = childPointer(pointer, 'payload');
  let payload = normaliseKeys(shaped.payload, schemaKeys(definition.payload), payloadPointer, diagnostics);
  if (definition.normalise !== undefined) {
    const before = diagnostics.errors.length;
    payload = definition.normalise(payload, contextFor(payloadPointer, diagnostics));
    if (diagnostics.errors.length > before) return undefined;
  }
  const parsed = parseWithCoercion(definition.payload, payload, payloadPointer, diagnostics);
  if (!parsed.ok) {
    diagnostics.errors.push(...payloadErrors(parsed.issues, payloadPointer));
    return undefined;
  }
  return { index, type: definition.type, payload: parsed.data, definition };
}

const lookups = new WeakMap<DirectiveRegistry, DirectiveLookup>();

/** What the shaper may know of the registry: a name's payload keys, or undefined when it names no directive. */
function lookupFor(registry: DirectiveRegistry): DirectiveLookup {
  let lookup = lookups.get(registry);
  if (lookup === undefined) {
    lookup = { payloadKeys: (type) => { const r = registry.resolve(type); return r === undefined ? undefined : schemaKeys(r.definition.payload); } };
    lookups.set(registry, lookup);
  }
  return lookup;
}

function contextFor(base: string, diagnostics: Diagnostics): NormaliseContext {
  return {
    warn: (code, pointer, detail) => { diagnostics.warnings.push(issue(code, base + pointer, detail)); },
    fail: (code, pointer, detail) => { diagnostics.errors.push(issue(code, base + pointer, detail)); },
  };
}

function finish(mode: RunMode, diagnostics: Diagnostics, directives: ValidDirective[], assistantText?: string): ValidationResult {
  const errors = mode === 'strict' ? [...diagnostics.errors, ...strictErrorsFor(diagnostics.warnings)] : diagnostics.errors;
  const ok = errors.length === 0;
  const result: ValidationResult = {
    ok, directives: mode === 'strict' && !ok ? [] : directives, warnings: diagnostics.warnings, errors,
  };
  if (assistantText !== undefined && (ok || mode === 'best_effort')) result.assistantText = assistantText;
  return result;
}
