import { errorSpec, isErrorCode, type SurfacerError } from '../../errors/index.ts';
import type { RecoveryDecision } from './types.ts';

/** Recovery decisions in order of severity: a batch takes the strongest its findings ask for. */
export const RECOVERY_RANK: Readonly<Record<RecoveryDecision, number>> = { none: 0, soft_fail: 1, surface_fail: 2, epoch_reset: 3 };

/** The recovery the error registry assigns to a finding's code (unknown codes: surface_fail). */
export function recoveryOf(error: SurfacerError): RecoveryDecision {
  if (!isErrorCode(error.code)) return 'surface_fail';
  const recovery = errorSpec(error.code).recovery;
  return recovery === 'soft_fail' || recovery === 'surface_fail' || recovery === 'epoch_reset' ? recovery : 'surface_fail';
}

/** Errors and fatals must be dealt with; warnings and infos travel with the batch. */
export function isFinding(e: SurfacerError): boolean {
  return e.severity === 'error' || e.severity === 'fatal';
}
