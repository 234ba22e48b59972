import type { SurfacerError } from '../../errors/index.ts';
import type { A2uiComponentType } from './catalogue.ts';

/** The v0.8 server→client messages in the subset the compiler emits (a2ui-v0.8.md §0). */
export type A2uiBoundValue =
  | { path: string }
  | { literalString: string }
  | { literalNumber: number }
  | { literalBoolean: boolean }
  | { literalArray: string[] };

export type A2uiContextValue = { path: string } | { literalString: string } | { literalNumber: number } | { literalBoolean: boolean };

export interface A2uiAction {
  name: string;
  context?: { key: string; value: A2uiContextValue }[];
}

export interface A2uiComponent {
  id: string;
  weight?: number;
  component: Partial<Record<A2uiComponentType, Record<string, unknown>>>;
}

/** A primitive data entry, or a map of primitive entries (one level only, §4.2). */
export type A2uiDataEntry =
  | { key: string; valueString: string }
  | { key: string; valueNumber: number }
  | { key: string; valueBoolean: boolean }
  | { key: string; valueMap: A2uiDataEntry[] };

export interface A2uiStyles {
  font?: string;
  primaryColor?: string;
}

export type A2uiMessage =
  | { surfaceUpdate: { surfaceId: string; components: A2uiComponent[] } }
  | { dataModelUpdate: { surfaceId: string; path?: string; contents: A2uiDataEntry[] } }
  | { beginRendering: { surfaceId: string; root: string; catalogId?: string; styles?: A2uiStyles } }
  | { deleteSurface: { surfaceId: string } };

/** A validator finding: the canonical error plus where it is in the stream (0-based). */
export type Violation = SurfacerError & {
  messageIndex: number;
  surfaceId?: string;
  /** The component a finding is about (A2UI_S2C_UNREACHABLE_COMPONENT), for recovery to act on. */
  componentId?: string;
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
export interface A2uiSurfaceBatch {
  surfaceId: string;
  a2uiSurfaceId: string;
  epoch: number;
  rev: number;
  kind: A2uiBatchKind;
  messages: A2uiMessage[];
  lines: string[];
  /** What went wrong (for `fallback`, and for parts dropped under soft_fail). */
  errors: SurfacerError[];
  warnings: SurfacerError[];
  recovery: RecoveryDecision;
  stats: A2uiBatchStats;
}

export type A2uiCompileResult =
  | {
    ok: true;
    batches: A2uiSurfaceBatch[];
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

export interface A2uiCompileOptions {
  /** Fail instead of recovering: any violation (even one soft_fail could drop) is an error. */
  strict?: boolean;
  limits?: Partial<A2uiLimits>;
  /** Action names buttons may carry. Absent: every action in the IR (the IR holds registered ones). */
  allowedActions?: readonly string[];
  /** Component types that may be emitted. Default: the 18 standard types. */
  allowedComponents?: readonly string[];
  /** beginRendering styles: only `font` and `primaryColor` (`#RRGGBB`). */
  styles?: A2uiStyles;
  /** compileA2uiUpdate only: IR surface ids to re-initialise (deleteSurface + init), e.g. after a fallback. */
  reinit?: readonly string[];
  /**
   * compileA2uiUpdate only: component types the client already holds, per A2UI surface id
   * (when the host tracks more than `prevIr` tells). A type change is an epoch_reset.
   */
  priorTypes?: ReadonlyMap<string, ReadonlyMap<string, string>>;
}
