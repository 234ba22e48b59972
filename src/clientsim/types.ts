import type { ClientSimCode, Severity } from './codes.ts';

/**
 * Data model values. Maps are the containers WC builds from `valueMap`s and from paths;
 * plain objects and arrays come only from JSON-looking strings (WC F6) or user input.
 * The two are kept apart on purpose: WC writes through Maps but silently drops writes through
 * parsed objects (F7), and templates iterate Maps but not objects — a plain-object-only model
 * could not tell these apart, and JS objects would reorder integer-like keys.
 */
export type DataValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | DataMap
  | readonly DataValue[]
  | { readonly [key: string]: DataValue };
export type DataMap = ReadonlyMap<string, DataValue>;

/** A component as stored: the validated wrapper, with unknown properties of known types stripped (as WC's zod does). */
export interface ComponentInstance {
  readonly id: string;
  readonly weight?: number;
  readonly component: Readonly<Record<string, unknown>>;
}

export interface Styles {
  readonly font?: string;
  readonly primaryColor?: string;
}

/**
 * One surface. Phase = `rendering ? 'rendering' : 'buffering'`; a deleted surface is absent
 * from `SimState.surfaces`. `beganAt`/`touchedAt` are message indexes used only to point
 * end-of-stream reports at the message to blame; they are not part of the state hash.
 */
export interface SurfaceState {
  readonly components: ReadonlyMap<string, ComponentInstance>;
  readonly dataModel: DataMap;
  readonly root: string | null;
  readonly styles: Styles;
  readonly catalogId: string | null;
  readonly rendering: boolean;
  readonly beganAt: number | null;
  readonly touchedAt: number;
}

export interface SimState {
  readonly surfaces: ReadonlyMap<string, SurfaceState>;
  /** Messages offered so far (applied or rejected); the next message gets this index. */
  readonly messageCount: number;
}

export interface Violation {
  readonly code: ClientSimCode;
  readonly severity: Severity;
  /** Index of the offending message (for user actions: messages seen before the action). */
  readonly messageIndex: number;
  readonly surfaceId?: string;
  /** JSON Pointer into the offending message, when one part of it is to blame. */
  readonly pointer?: string;
  readonly detail: string;
}

/** A problem found before the message index and surface are known. */
export interface Issue {
  readonly code: ClientSimCode;
  readonly pointer?: string;
  readonly detail: string;
}

export interface DataEntry {
  readonly key: string;
  readonly valueString?: string;
  readonly valueNumber?: number;
  readonly valueBoolean?: boolean;
  readonly valueMap?: readonly DataEntry[];
}

export type ServerMessage =
  | { readonly kind: 'surfaceUpdate'; readonly surfaceId: string; readonly components: readonly ComponentInstance[] }
  | { readonly kind: 'dataModelUpdate'; readonly surfaceId: string; readonly path?: string; readonly contents: readonly DataEntry[] }
  | { readonly kind: 'beginRendering'; readonly surfaceId: string; readonly root: string; readonly catalogId?: string; readonly styles?: Styles }
  | { readonly kind: 'deleteSurface'; readonly surfaceId: string };

/** Injected time source; the core never reads the system clock. */
export type Clock = () => Date;

export interface UserAction {
  readonly name: string;
  readonly surfaceId: string;
  readonly sourceComponentId: string;
  readonly timestamp: string;
  readonly context: Record<string, unknown>;
}

export interface UserActionMessage {
  readonly userAction: UserAction;
}
