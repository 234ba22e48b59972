import type { SurfacerError } from '../errors/index.ts';

/** A planner failure as a value the caller can fall back on. */
export class PlannerError extends Error {
  constructor(readonly error: SurfacerError) {
    super(`${error.code}: ${error.technical_detail}`);
  }
}
