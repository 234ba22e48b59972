/**
 * The one normalised request both adapters produce. Transport details (A2UI envelope, HTML
 * hidden fields) stop here; checks and actions see only this.
 */
export interface ActionRequest {
  readonly kind: 'action';
  readonly transport: 'a2ui' | 'html';
  /** IR surface id (for A2UI: decoded from the wire surfaceId). */
  readonly surfaceId: string;
  readonly epoch: number;
  readonly nonce: string;
  readonly rev: number;
  readonly action: string;
  /** Field values as sent, without the ingress-owned keys (`nonce`, `rev`). */
  readonly context: Readonly<Record<string, unknown>>;
  /** A2UI only: node id of the button (`btn:<key>` for template instances). */
  readonly sourceComponentId?: string;
  /** A2UI only: client clock, informational. */
  readonly timestamp?: string;
  /**
   * A2UI v0.9 only: the version the action came in (absent: v0.8, or HTML). Rejections point
   * into the body as that wire wrote it (`/action/context/…`, not v0.8's `/userAction/context/…`).
   * Not part of the request's identity (fingerprint.ts).
   */
  readonly dialect?: 'v0.9' | 'v0.9.1';
  readonly idempotencyKey?: string;
}

/** A client said it could not process a surface (A2UI `error`, v0.9-like shape). */
export interface ClientErrorRequest {
  readonly kind: 'client_error';
  readonly transport: 'a2ui';
  readonly surfaceId: string;
  readonly epoch: number;
  /** The client's own code, e.g. `VALIDATION_FAILED`; `UNKNOWN` when it sent none. */
  readonly clientCode: string;
  readonly path?: string;
  readonly message?: string;
  readonly idempotencyKey?: string;
}

export type IngressRequest = ActionRequest | ClientErrorRequest;

/**
 * Decodes the A2UI wire surfaceId into the IR surface id and the epoch it was rendered with.
 * The compiler owns the encoding; inject its `decodeA2uiSurfaceId` (src/compiler/a2ui-v0_8/ids.ts):
 * `<surfaceId>--e<epoch>`, e.g. `main--e3`, so a stock renderer echoes the epoch back unmodified.
 * Returns undefined for anything the compiler could not have emitted. Ingress re-checks the
 * result (IR surface id pattern, non-negative safe integer epoch) and never trusts a throw.
 */
export type SurfaceIdDecoder = (a2uiSurfaceId: string) => { id: string; epoch: number } | undefined;

/** Charset of ids echoed by clients (surfaceId, sourceComponentId, nonce). */
export const SAFE_ID_PATTERN = /^[A-Za-z0-9_.:-]+$/;

/** Keys of the context that ingress owns; an app field may not use them. */
export const RESERVED_CONTEXT_KEYS = ['nonce', 'rev'] as const;

/** HTML hidden fields. Any other field is a context value. */
export const HTML_FIELDS = {
  surface: '_surface', epoch: '_epoch', nonce: '_nonce', rev: '_rev', idempotencyKey: '_idem', action: '_action',
} as const;
