import type { Severity } from '../codes.ts';
import type { ClientSimV09Code } from './codes.ts';

/** A component as the processor stores it: its type and its properties as sent (every key but id and component). */
export interface ComponentV09 {
  readonly id: string;
  readonly type: string;
  readonly properties: Readonly<Record<string, unknown>>;
  /** An app component the surface's catalogue (the app's) defines: validated by its schema, rendered as a leaf. */
  readonly app?: true;
}

/**
 * An app catalogue the client holds (v0.9): its id and, per app component type, the zod schema
 * of the whole wire component (compiler/components/wire-v09.ts builds it from the definitions).
 */
export interface AppCatalogSimV09 {
  readonly catalogId: string;
  readonly components: ReadonlyMap<string, { safeParse(value: unknown): { success: boolean; error?: { issues: ReadonlyArray<{ message: string; path: ReadonlyArray<PropertyKey> }> } } }>;
}

/** One v0.9 surface: created by createSurface, rendered from the component `root`. */
export interface SurfaceStateV09 {
  readonly catalogId: string;
  readonly theme: unknown;
  readonly sendDataModel: boolean;
  readonly components: ReadonlyMap<string, ComponentV09>;
  /** Plain JSON; `{}` at creation (undefined once an update deleted the root). */
  readonly dataModel: unknown;
  /** Index of the message that last changed the surface (for end-of-stream reports). */
  readonly touchedAt: number;
}

export interface SimStateV09 {
  readonly surfaces: ReadonlyMap<string, SurfaceStateV09>;
  /** Messages offered so far (applied or rejected); the next message gets this index. */
  readonly messageCount: number;
}

export interface ViolationV09 {
  readonly code: ClientSimV09Code;
  readonly severity: Severity;
  readonly messageIndex: number;
  readonly surfaceId?: string;
  /** JSON Pointer into the offending message, when one part of it is to blame. */
  readonly pointer?: string;
  readonly detail: string;
}

/** The v0.9 client→server message a renderer sends when a Button's event fires. */
export interface ActionMessageV09 {
  readonly version: 'v0.9' | 'v0.9.1';
  readonly action: {
    readonly name: string;
    readonly surfaceId: string;
    readonly sourceComponentId: string;
    readonly timestamp: string;
    readonly context: Record<string, unknown>;
  };
}
