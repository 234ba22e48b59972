/*
 * Client→server messages both pages send, whatever the wire version: error reports, and the
 * helpers around them. Pure (tested in Node): randomness comes in as an argument.
 */

export const CLIENT_PROCESSING_FAILED = 'CLIENT_PROCESSING_FAILED';
const MAX_ERROR_MESSAGE = 500;

/**
 * A report that the renderer could not process a message: v0.8's free-form `error`, or v0.9's
 * generic error (`messageVersion` set: `{version, error: {code, surfaceId, message}}`).
 */
export function buildProcessingError(surfaceId: string | undefined, error: unknown, messageVersion?: string): { version?: string; error: Record<string, string> } {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const body: Record<string, string> = { code: CLIENT_PROCESSING_FAILED };
  if (surfaceId !== undefined) body.surfaceId = surfaceId;
  body.message = text.length > MAX_ERROR_MESSAGE ? `${text.slice(0, MAX_ERROR_MESSAGE)}…` : text;
  return messageVersion === undefined ? { error: body } : { version: messageVersion, error: body };
}

/** 128 random bits, hex. `crypto.randomUUID` exists only in secure contexts; this does not. */
export function newIdempotencyKey(fill: (bytes: Uint8Array) => Uint8Array): string {
  return [...fill(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The surface a server message addresses (for error reports). */
export function messageSurfaceId(message: unknown): string | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  for (const body of Object.values(message)) {
    if (body !== null && typeof body === 'object' && typeof (body as { surfaceId?: unknown }).surfaceId === 'string') {
      return (body as { surfaceId: string }).surfaceId;
    }
  }
  return undefined;
}
