/**
 * The A2UI surface id carries the IR epoch so that a stock renderer echoes it back in every
 * action, in v0.8 and v0.9 alike: `<surfaceId>--e<epoch>`, e.g. `main--e0`. IR surface ids match
 * `^[a-z][a-z0-9_-]{0,39}$` and may themselves contain `--e`, so decoding splits at the *last*
 * `--e` followed only by digits (the epoch is canonical decimal: no sign, no leading zeros).
 * Only `[a-z0-9_-]` is used, so the id is also safe in URLs, HTML ids and CSS selectors.
 *
 * A new epoch is a new A2UI surface: the client deletes the old id and creates the new one, which
 * v0.9 requires anyway (a second createSurface for a live id is an error).
 */
const A2UI_SURFACE_ID = /^([a-z][a-z0-9_-]{0,39})--e(0|[1-9][0-9]{0,15})$/;

export function encodeA2uiSurfaceId(id: string, epoch: number): string {
  if (!/^[a-z][a-z0-9_-]{0,39}$/.test(id)) throw new RangeError(`not an IR surface id: ${JSON.stringify(id)}`);
  if (!Number.isSafeInteger(epoch) || epoch < 0) throw new RangeError(`not an epoch: ${epoch}`);
  return `${id}--e${epoch}`;
}

export function decodeA2uiSurfaceId(a2uiSurfaceId: string): { id: string; epoch: number } | undefined {
  const match = A2UI_SURFACE_ID.exec(a2uiSurfaceId);
  if (!match) return undefined;
  const epoch = Number(match[2]);
  if (!Number.isSafeInteger(epoch)) return undefined;
  return { id: match[1]!, epoch };
}
