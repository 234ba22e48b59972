import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.ts';
import { SavedCard } from '../../../src/app/index.ts';
import { parseLog } from '../../../src/conversation/index.ts';
import { memoryIo } from '../../support/cli-io.ts';

/** What one conversation's log on disk says about the crash test's submissions. */
export interface LogAudit {
  /** How many times each submitted name was applied (form.submit action entries). */
  readonly applied: ReadonlyMap<string, number>;
  /** The name of the last applied submission: what the conversation must show after a restart. */
  readonly last: string | undefined;
  /** Bytes after the last newline (a torn append; the server cuts it when it next reads the log). */
  readonly tornBytes: number;
  /** Per applied name: the idempotency key it carried and the card library id its effect recorded. */
  readonly effects: ReadonlyMap<string, { key: string | undefined; id: string | undefined }>;
}

export const logFile = (dataDir: string, cid: string): string => join(dataDir, `${cid}.jsonl`);

/** Reads the log the way the server does (a torn tail is not an entry). */
export function auditLog(dataDir: string, cid: string): LogAudit {
  const text = readFileSync(logFile(dataDir, cid), 'utf8');
  const { entries, validBytes } = parseLog(text, cid);
  const applied = new Map<string, number>();
  const effects = new Map<string, { key: string | undefined; id: string | undefined }>();
  let last: string | undefined;
  for (const entry of entries) {
    if (entry.type !== 'action' || entry.request.action !== 'form.submit') continue;
    const name = entry.request.context['name'];
    if (typeof name !== 'string') continue;
    applied.set(name, (applied.get(name) ?? 0) + 1);
    const id = (entry.effect?.result as { id?: unknown } | undefined)?.id;
    effects.set(name, { key: clientKey(entry.request.idempotencyKey), id: typeof id === 'string' ? id : undefined });
    last = name;
  }
  return { applied, last, tornBytes: Buffer.byteLength(text, 'utf8') - validBytes, effects };
}

/**
 * The key the client sent, from the one the server used: the HTML ingress makes a render's `_idem`
 * each button's own key (`<_idem> <action>`); a client's key has no spaces.
 */
function clientKey(used: string | undefined): string | undefined {
  return used?.split(' ')[0];
}

/** The card library (form.submit's side effect) on disk, read as the library reads it (a torn tail is not a card). */
export interface LibraryAudit {
  readonly byKey: ReadonlyMap<string, SavedCard[]>;
  readonly cards: number;
  readonly tornBytes: number;
}

export const libraryFile = (dataDir: string): string => join(dataDir, 'card-library', 'cards.jsonl');

export function auditLibrary(dataDir: string): LibraryAudit {
  const text = existsSync(libraryFile(dataDir)) ? readFileSync(libraryFile(dataDir), 'utf8') : '';
  const end = text.lastIndexOf('\n') + 1;
  const byKey = new Map<string, SavedCard[]>();
  const cards = text.slice(0, end).split('\n').slice(0, -1).map((line) => SavedCard.parse(JSON.parse(line)));
  for (const card of cards) {
    const key = clientKey(card.key) ?? '';
    byKey.set(key, [...byKey.get(key) ?? [], card]);
  }
  return { byKey, cards: cards.length, tornBytes: Buffer.byteLength(text, 'utf8') - Buffer.byteLength(text.slice(0, end), 'utf8') };
}

/** `surfacer replay LOG` through the CLI's entry point in this process; undefined when it verified the log. */
export async function replayInProcess(file: string): Promise<string | undefined> {
  const io = memoryIo();
  const code = await main(['replay', file], io);
  return code === 0 ? undefined : `replay ${file} exited ${code}: ${io.err()}`;
}
