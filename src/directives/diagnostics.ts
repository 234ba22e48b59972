import { makeError, type ErrorCode, type SurfacerError } from '../errors/index.ts';
import { formatPointer } from '../ui-ir/index.ts';

/** Collects warnings and errors; every entry is the canonical SurfacerError with a pointer. */
export interface Diagnostics {
  warnings: SurfacerError[];
  errors: SurfacerError[];
}

export function emptyDiagnostics(): Diagnostics {
  return { warnings: [], errors: [] };
}

export function issue(code: ErrorCode, pointer: string, detail: string): SurfacerError {
  return makeError(code, detail, { pointer });
}

/** `/directives/2` + ['payload', 'fields', 0] → `/directives/2/payload/fields/0`. */
export function childPointer(base: string, ...tokens: ReadonlyArray<PropertyKey>): string {
  return base + formatPointer(tokens.map((t) => String(t)));
}

/** Strict mode: each repair becomes an error that names the warning it replaces. */
export function strictErrorsFor(warnings: readonly SurfacerError[]): SurfacerError[] {
  return warnings.map((w) => makeError('DIRECTIVE_NON_CANONICAL', `${w.code}: ${w.technical_detail}`, { pointer: w.pointer ?? '' }));
}

/** A short, bounded rendering of an input value for technical details. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export { isPlainObject } from '../ui-ir/index.ts';

/** Own-property write that cannot reach a prototype, even for a key named `__proto__`. */
export function setOwn(target: Record<string, unknown> | unknown[], key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

