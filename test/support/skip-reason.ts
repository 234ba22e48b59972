/*
 * A suite that cannot run here (a folder that is not in the clone, a slow run that is opt-in)
 * is skipped with its reason as test metadata: vitest hands a suite's meta down to its tests,
 * and test/support/summary-reporter.ts prints each reason with its count above the closing line.
 */
declare module 'vitest' {
  interface TaskMeta {
    skipReason?: string;
  }
}

export interface SkipOptions {
  skip: boolean;
  meta: { skipReason?: string };
}

/** Options for `describe(name, options, fn)`: skipped with `reason` when it is defined. */
export function skipUnless(reason: string | undefined): SkipOptions {
  return reason === undefined ? { skip: false, meta: {} } : { skip: true, meta: { skipReason: reason } };
}
