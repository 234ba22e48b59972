import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.ts';
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
}

export const logFile = (dataDir: string, cid: string): string => join(dataDir, `${cid}.jsonl`);

/** Reads the log the way the server does (a torn tail is not an entry). */
export function auditLog(dataDir: string, cid: string): LogAudit {
  const text = readFileSync(logFile(dataDir, cid), 'utf8');
  const { entries, validBytes } = parseLog(text, cid);
  const applied = new Map<string, number>();
  let last: string | undefined;
  for (const entry of entries) {
    if (entry.type !== 'action' || entry.request.action !== 'form.submit') continue;
    const name = entry.request.context['name'];
    if (typeof name !== 'string') continue;
    applied.set(name, (applied.get(name) ?? 0) + 1);
    last = name;
  }
  return { applied, last, tornBytes: Buffer.byteLength(text, 'utf8') - validBytes };
}

/** `surfacer replay LOG` through the CLI's entry point in this process; undefined when it verified the log. */
export async function replayInProcess(file: string): Promise<string | undefined> {
  const io = memoryIo();
  const code = await main(['replay', file], io);
  return code === 0 ? undefined : `replay ${file} exited ${code}: ${io.err()}`;
}
