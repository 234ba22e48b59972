import { createHash } from 'node:crypto';
import type { A2uiVersion } from '../compiler/index.ts';
import type { CatalogChoice } from '../hosting/index.ts';

/*
 * SSE event ids of the A2UI stream are positions in the conversation's log, so a client may
 * resume on any instance (and after a restart):
 *
 *   <stream>-<v>          the last message sent for log version v, or the id-only checkpoint of an init
 *   <stream>-<v>.<k>      message k (from 0) of the messages sent for version v, not the last
 *   <stream>-<v>-i<k>     message k of an init or catch-up that brings a client to version v (provisional)
 *
 * <stream> names the conversation's log (a digest of its id and creation time) and the wire
 * version: `l<digest>` for v0.8, `l<digest>w09` for v0.9, `l<digest>w091` for v0.9.1, and an
 * `a` after that for a client compiled with the app catalogue (hosting/catalog-choice.ts). Every
 * instance derives the same one; an id from another conversation, or from the same conversation
 * in another wire version or catalogue (whose messages differ), never resumes here. A provisional id means the
 * client dropped in the middle of an init: it is answered with a fresh init.
 */

const ID = /^([a-z0-9]{1,40})-(\d{1,15})(?:\.(\d{1,6}))?$/;

export interface EventPosition {
  stream: string;
  version: number;
  /** Set for a message that was not the last of its version. */
  index?: number;
}

export function streamNameOf(cid: string, createdAt: string, version: A2uiVersion = '0.8', catalog: CatalogChoice = 'basic'): string {
  const log = `l${createHash('sha256').update(`${cid}\n${createdAt}`).digest('hex').slice(0, 15)}`;
  // v0.8's names are what they were before there was a second version: its clients' ids still resume.
  const wire = version === '0.8' ? log : `${log}w${version.replaceAll('.', '')}`;
  return catalog === 'app' ? `${wire}a` : wire;
}

export function formatEventId(stream: string, version: number, index?: number): string {
  return index === undefined ? `${stream}-${version}` : `${stream}-${version}.${index}`;
}

export function formatInitEventId(stream: string, version: number, index: number): string {
  return `${stream}-${version}-i${index}`;
}

export function parseEventId(raw: string): EventPosition | undefined {
  const match = ID.exec(raw);
  if (match === null) return undefined;
  const position: EventPosition = { stream: match[1]!, version: Number(match[2]) };
  if (match[3] !== undefined) position.index = Number(match[3]);
  return position;
}
