// The composition root: one function assembles the conversation service, both hosts and the
// backend, for `surfacer serve` and for every app embedding Surfacer (src/index.ts).
export { createSurfacer, MIN_SESSION_SECRET_LENGTH, SurfacerConfigError } from './create-surfacer.ts';
export type { ListenOptions, Surfacer, SurfacerOptions } from './create-surfacer.ts';
