import { escapeToken, isSafeDataKey } from '../ui-ir/index.ts';
import { SAFE_ID_PATTERN } from './request.ts';

export function isSafeId(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= maxLength && SAFE_ID_PATTERN.test(value);
}

const REV_TEXT = /^(0|[1-9][0-9]{0,15})$/;

/** rev/epoch as clients echo them: a non-negative integer, or its decimal text ("3", not "3.0" or " 3"). */
export function parseCounter(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && REV_TEXT.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** Idempotency keys are opaque to us: visible ASCII, bounded. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]+$/;

export function isValidIdempotencyKey(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= maxLength && IDEMPOTENCY_KEY.test(value);
}

/**
 * Pointer of the first object key in a context value (any depth) that is not a safe data key. Context keys
 * name data fields; anything else (`__proto__`, `a.b`, `tags[]`) never came from our UI.
 */
export function findUnsafeKey(root: unknown, rootPointer: string): string | undefined {
  const stack: Array<{ value: unknown; pointer: string }> = [{ value: root, pointer: rootPointer }];
  while (stack.length > 0) {
    const { value, pointer } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, pointer: `${pointer}/${i}` }));
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const childPointer = `${pointer}/${escapeToken(key)}`;
      if (!isSafeDataKey(key)) return childPointer;
      stack.push({ value: child, pointer: childPointer });
    }
  }
  return undefined;
}
