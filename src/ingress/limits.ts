/**
 * Resource bounds for client→server input, one object for both adapters. Everything past a
 * bound is rejected with A2UI_C2S_CONTEXT_TOO_LARGE (413), including a body over
 * `maxBodyBytes` (why 413 and not 400: see index.ts).
 */
export interface IngressLimits {
  /** Raw A2UI body in bytes (checked before decoding/parsing); HTML: UTF-8 bytes of all names and values. */
  readonly maxBodyBytes: number;
  /** Container nesting inside the context: the context object is 1, an array in it 2. */
  readonly maxContextDepth: number;
  /** Object keys plus array items across the whole body (A2UI) or all fields and their items (HTML). */
  readonly maxEntries: number;
  /** Longest string, key or value, in UTF-16 code units. */
  readonly maxStringLength: number;
  /** surfaceId, sourceComponentId, action name, nonce and idempotency key (envelope rule, 400). */
  readonly maxIdLength: number;
}

export const DEFAULT_INGRESS_LIMITS: IngressLimits = Object.freeze({
  maxBodyBytes: 64 * 1024,
  maxContextDepth: 4,
  maxEntries: 256,
  maxStringLength: 16 * 1024,
  maxIdLength: 128,
});

/** Levels the A2UI envelope adds above the context: `{userAction: {context: …}}`. */
export const ENVELOPE_DEPTH = 2;

const resolved = new WeakSet<IngressLimits>([DEFAULT_INGRESS_LIMITS]);

/**
 * Merges overrides into the defaults; a bound that is not a positive integer is a programming
 * error. A result passed back in is returned as is, so per-limits caches keep hitting.
 */
export function resolveLimits(overrides?: Partial<IngressLimits>): IngressLimits {
  if (overrides === undefined) return DEFAULT_INGRESS_LIMITS;
  if (resolved.has(overrides as IngressLimits)) return overrides as IngressLimits;
  const limits: Record<string, number> = {};
  for (const name of Object.keys(DEFAULT_INGRESS_LIMITS) as Array<keyof IngressLimits>) {
    const value = overrides[name] ?? DEFAULT_INGRESS_LIMITS[name];
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`ingress limit ${name} must be a positive integer`);
    limits[name] = value;
  }
  const frozen = Object.freeze(limits) as unknown as IngressLimits;
  resolved.add(frozen);
  return frozen;
}
