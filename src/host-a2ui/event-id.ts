/*
 * SSE event ids of the A2UI stream.
 *
 *   <stream>-<seq>          a published message, or the id-only checkpoint ending an init
 *   <stream>-<seq>-i<k>     message k of an init taken at <seq> (provisional)
 *
 * <stream> names one life of a conversation channel in one hub (hub epoch + channel counter),
 * so an id from a previous process, or from a channel that was evicted and re-created, never
 * resumes into a sequence it does not belong to. A provisional id means the client dropped in
 * the middle of an init; it is answered with a fresh init, never a resume.
 */

const PUBLISHED = /^([a-z0-9]{1,40})-(\d{1,15})$/;

export function formatEventId(stream: string, seq: number): string {
  return `${stream}-${seq}`;
}

export function formatInitEventId(stream: string, seq: number, index: number): string {
  return `${stream}-${seq}-i${index}`;
}

export function parseEventId(raw: string): { stream: string; seq: number } | undefined {
  const match = PUBLISHED.exec(raw);
  if (match === null) return undefined;
  return { stream: match[1]!, seq: Number(match[2]) };
}
