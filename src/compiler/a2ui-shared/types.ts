import type { SurfacerError } from '../../errors/index.ts';
import type { ComponentCompileOptions } from '../components/check.ts';
import type { SurfaceTheme } from './surface-theme.ts';

/**
 * What both A2UI compilers return, whatever the wire version: per-surface batches (one
 * surface's messages, complete and valid on their own), the recovery each surface needed,
 * and the limits they were held to. `M` is the version's message type.
 */

/** A validator finding: the canonical error plus where it is in the stream (0-based). */
export type Violation = SurfacerError & {
  messageIndex: number;
  surfaceId?: string;
  /** The component a finding is about (A2UI_S2C_UNREACHABLE_COMPONENT), for recovery to act on. */
  componentId?: string;
  /** Findings that follow from this one (the components a dangling reference cut off): see follow-ons.ts. */
  followOns?: Violation[];
};

/** What the caller should do about a surface after compiling it. */
export type RecoveryDecision = 'none' | 'soft_fail' | 'surface_fail' | 'epoch_reset';

export type A2uiBatchKind = 'init' | 'update' | 'delete' | 'fallback';

export interface A2uiBatchStats {
  messages: number;
  bytes: number;
  components: number;
  dataEntries: number;
}

/**
 * Everything one surface needs in one response, valid on its own (per-surface atomic emission).
 * `lines` are the messages already serialised (one JSON text per message, no newline), so a
 * host never stringifies twice.
 */
export interface SurfaceBatch<M> {
  surfaceId: string;
  a2uiSurfaceId: string;
  epoch: number;
  rev: number;
  kind: A2uiBatchKind;
  messages: M[];
  lines: string[];
  /** What went wrong (for `fallback`, and for parts dropped under soft_fail). */
  errors: SurfacerError[];
  warnings: SurfacerError[];
  recovery: RecoveryDecision;
  stats: A2uiBatchStats;
}

export type CompileResult<M> =
  | {
    ok: true;
    batches: SurfaceBatch<M>[];
    /** IR surface ids whose epoch the caller must rotate (resetSurfaceEpoch) and recompile. */
    epochResets: string[];
  }
  | { ok: false; errors: SurfacerError[]; batches: []; epochResets: string[] };

export interface A2uiLimits {
  maxMessagesPerResponse: number;
  maxBytesPerMessage: number;
  maxBytesPerSurface: number;
  maxBytesPerResponse: number;
  maxComponentsPerSurface: number;
  maxNestingDepth: number;
  /** Depth of the client data model, counting the namespace (`/draft`) as 1. */
  maxDataDepth: number;
  maxDataEntries: number;
  maxStringBytes: number;
}

export const DEFAULT_A2UI_LIMITS: Readonly<A2uiLimits> = Object.freeze({
  maxMessagesPerResponse: 5_000,
  maxBytesPerMessage: 1024 * 1024,
  maxBytesPerSurface: 2 * 1024 * 1024,
  maxBytesPerResponse: 8 * 1024 * 1024,
  maxComponentsPerSurface: 5_000,
  maxNestingDepth: 50,
  maxDataDepth: 12,
  maxDataEntries: 20_000,
  maxStringBytes: 64 * 1024,
});

/** Options every version's compiler takes; a version adds its own (v0.8: `styles`). */
export interface CompileOptionsBase {
  /** Fail instead of recovering: any violation (even one soft_fail could drop) is an error. */
  strict?: boolean;
  limits?: Partial<A2uiLimits>;
  /** Action names buttons may carry. Absent: every action in the IR (the IR holds registered ones). */
  allowedActions?: readonly string[];
  /** Component types that may be emitted. Default: every type of the version's catalogue. */
  allowedComponents?: readonly string[];
  /** Update only: IR surface ids to re-initialise (deleteSurface + init), e.g. after a fallback. */
  reinit?: readonly string[];
  /**
   * Update only: component types the client already holds, per A2UI surface id (when the host
   * tracks more than `prevIr` tells). A type change is an epoch_reset.
   */
  priorTypes?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /**
   * The app's components and the catalogue this client holds (the negotiation's result). Absent:
   * a surface showing a component cannot be compiled (COMPILER_COMPONENT_UNKNOWN, surface_fail).
   */
  components?: ComponentCompileOptions;
  /** The app's theme: v0.8 `beginRendering.styles` (unless `styles` is given), v0.9 `createSurface.theme`. */
  theme?: SurfaceTheme;
}

/** What a validator is asked, whatever the version. */
export interface ValidateOptionsBase {
  incremental?: boolean;
  /** Types the client already holds, per A2UI surface id: component id → type. */
  priorTypes?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Default: every type of the version's catalogue. */
  allowedComponents?: readonly string[];
  /** Absent: any action name. */
  allowedActions?: readonly string[];
  maxNestingDepth?: number;
  /** The compile's component options: with `catalog: 'app'` the app catalogue is the client's too. */
  components?: ComponentCompileOptions;
}
