import { z } from 'zod';
import { ActionEventSchema } from '../planner/action-event.ts';
import { isValidTranscript, type ConversationIr } from '../ui-ir/index.ts';
import type { FoldResult, LoggedOutcome } from './fold.ts';
import type { KeptEntry, StoredOutcome } from './ingress-port.ts';
import { CreatedEntry, irHash, legacyIrHash, transcriptHashBuilder } from './log.ts';
import { TraceSchema } from './trace.ts';

/*
 * A checkpoint of a conversation's folded state (issue 36): what the fold of its first `version`
 * entries gave, so a load reads the checkpoint and folds only the entries after it. It lives
 * beside the log (the store's `checkpoints`), never in it: the log stays the record, replayed
 * byte for byte, and a checkpoint that is missing, torn, corrupt or not the log's is ignored (the
 * log is folded whole, and a new checkpoint written).
 *
 * A checkpoint proves itself against the entries it replaces: the IR it holds must hash to the
 * IR hash that entry `version` of the log recorded (the loader checks both). It is stored as a
 * head (JSON lines: a header, the IR without its transcript, the transcript's last, unfilled
 * chunk) and the transcript's full chunks of TRANSCRIPT_CHUNK entries, each stored once: a full
 * chunk never changes, so writing a checkpoint costs the same at turn 10,000 as at turn 100, and
 * a load parses it a piece at a time, yielding in between.
 */
export const CHECKPOINT_FORMAT = 1 as const;
/** Transcript entries per line: one line parses and hashes in well under a millisecond. */
const TRANSCRIPT_CHUNK = 250;
/** Traces a folded state keeps (the trace page's recent turns); every turn's trace stays in the log. */
export const MAX_KEPT_TRACES = 100;

const yieldNow = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const Hash = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

const CheckpointHeader = z.object({
  checkpoint: z.literal(CHECKPOINT_FORMAT),
  cid: z.string(),
  version: z.number().int().min(2),
  irHash: Hash,
  transcript: z.number().int().nonnegative(),
  /** Full transcript chunks stored beside the head (the rest of the transcript is in the head). */
  chunks: z.number().int().nonnegative(),
  meta: CreatedEntry,
  turnCount: z.number().int().nonnegative(),
  traces: z.array(TraceSchema).max(MAX_KEPT_TRACES),
  /** Accepted actions' first outcomes still within their TTL, oldest first, with when they were stored (ms). */
  outcomes: z.array(z.object({ key: z.string(), outcome: z.unknown(), storedAt: z.number() })),
  pending: z.array(z.object({ actionVersion: z.number().int().positive(), event: ActionEventSchema, key: z.string().optional() })),
  divergences: z.array(z.object({ entry: z.number().int().positive(), type: z.string(), message: z.string() })),
});
type CheckpointHeader = z.infer<typeof CheckpointHeader>;

/** What a checkpoint restores: the fold's result (outcomes come separately, with their times) and the idempotency keys. */
export interface CheckpointState {
  folded: FoldResult;
  outcomes: Array<{ key: string; outcome: StoredOutcome; storedAt: number }>;
}

/** A checkpoint as it is stored: its head, and the full transcript chunks the store lacks. */
export interface EncodedCheckpoint {
  head: string;
  chunks: Array<{ index: number; text: string }>;
  /** Full chunks the checkpoint names (the store holds them all once it is written). */
  fullChunks: number;
}

/**
 * The checkpoint of `folded` (its version ≥ 2: entry `version` recorded the IR hash it is checked
 * by). A transcript chunk never changes once full (transcripts are only appended to), so only the
 * full chunks from `storedChunks` on travel; the head holds the rest. Encoded a chunk at a time
 * with a yield in between: `folded`'s small parts are read at once, its IR is immutable.
 */
export async function encodeCheckpoint(folded: FoldResult, outcomes: readonly KeptEntry<StoredOutcome>[], storedChunks = 0): Promise<EncodedCheckpoint> {
  const { ir } = folded;
  const fullChunks = Math.floor(ir.transcript.length / TRANSCRIPT_CHUNK);
  const header: Omit<CheckpointHeader, 'outcomes'> = {
    checkpoint: CHECKPOINT_FORMAT, cid: folded.meta.cid, version: folded.version, irHash: irHash(ir), transcript: ir.transcript.length,
    chunks: fullChunks, meta: folded.meta, turnCount: folded.turnCount, traces: folded.traces.slice(-MAX_KEPT_TRACES),
    pending: [...folded.pending.values()], divergences: folded.divergences as CheckpointHeader['divergences'],
  };
  const chunks: EncodedCheckpoint['chunks'] = [];
  for (let index = Math.min(storedChunks, fullChunks); index < fullChunks; index += 1) {
    await yieldNow();
    chunks.push({ index, text: JSON.stringify(ir.transcript.slice(index * TRANSCRIPT_CHUNK, (index + 1) * TRANSCRIPT_CHUNK)) });
  }
  // Concatenated, not joined: the head stays a rope over its parts (see headerJson).
  const head = `${headerJson(header, outcomes)}\n${JSON.stringify({ ...ir, transcript: [] })}\n${JSON.stringify(ir.transcript.slice(fullChunks * TRANSCRIPT_CHUNK))}\n`;
  return { head, chunks, fullChunks };
}

/**
 * JSON.stringify(header), byte for byte, without encoding the kept outcomes again at every
 * checkpoint. An action-heavy conversation keeps up to idempotencyKeys outcomes (1,024 by
 * default: ~300 KB of JSON, twice that as two-byte text), and encoding them all, then copying
 * them into fresh flat strings (large-object allocations, their pages faulted in) every
 * checkpointEvery entries cost ~45 µs per action. Now each outcome is encoded once (outcomesJson)
 * and the parts are concatenated, not joined: the head is a rope over the cached texts, copied
 * only if a store flattens it to write it (a file, Redis); the in-memory store keeps it as it is.
 */
function headerJson(header: Omit<CheckpointHeader, 'outcomes'>, outcomes: readonly KeptEntry<StoredOutcome>[]): string {
  const { pending, divergences, ...front } = header;
  return `${JSON.stringify(front).slice(0, -1)},"outcomes":[${outcomesJson(outcomes, header.meta)}],${JSON.stringify({ pending, divergences }).slice(1)}`;
}

/**
 * The entries of a conversation's last checkpoint, their texts and runs of BLOCK texts joined, by
 * its created entry (one object for as long as this process keeps the conversation). Between two
 * checkpoints the list moves by whole entries: expired or surplus ones leave the front, new ones
 * join the back, and each kept one is the same frozen object (MemoryIdempotencyStore.entries).
 * So what was encoded is found by position and pointer comparison: a kept entry's text, and a
 * block whose entries are all still there, in order, is reused whole. A checkpoint then costs a
 * pointer comparison per entry and a few dozen concatenations, not a lookup and a concatenation
 * per entry (a thousand cache misses and two thousand rope nodes: ~10 µs per action).
 */
/** `texts`: only of entries outside a block (a block's text holds theirs; kept twice, a long list would cost its size again per conversation). */
interface EncodedOutcomes { kept: readonly object[]; texts: readonly (string | undefined)[]; blocks: ReadonlyMap<number, string> }
const lastOutcomes = new WeakMap<object, EncodedOutcomes>();
const BLOCK = 32;

function outcomesJson(outcomes: readonly KeptEntry<StoredOutcome>[], owner: object): string {
  const last = lastOutcomes.get(owner);
  const n = outcomes.length;
  const shift = last === undefined || n === 0 ? -1 : last.kept.indexOf(outcomes[0]!);
  const same = (i: number): boolean => shift >= 0 && last!.kept[i + shift] === outcomes[i];
  const texts: Array<string | undefined> = new Array<string | undefined>(n);
  const blocks = new Map<number, string>();
  let list = '';
  const add = (text: string): void => { list = list === '' ? text : `${list},${text}`; };
  let loose = 0; // where the texts not yet added begin
  const flush = (end: number): void => {
    if (end > loose) add(texts.slice(loose, end).join(','));
    loose = end;
  };
  let i = 0;
  while (i < n) {
    const old = shift >= 0 && i + BLOCK <= n ? last!.blocks.get(i + shift) : undefined;
    if (old !== undefined && allSame(i, i + BLOCK, same)) {
      flush(i);
      blocks.set(i, old);
      add(old);
      i += BLOCK;
      loose = i;
      continue;
    }
    const kept = outcomes[i]!;
    texts[i] = (same(i) ? last!.texts[i + shift] : undefined) ?? JSON.stringify({ key: kept.key, outcome: kept.value, storedAt: kept.storedAt });
    i += 1;
    // A run of BLOCK new texts becomes a block the next checkpoint can take whole.
    if (i - loose === BLOCK) {
      const block = texts.slice(loose, i).join(',');
      blocks.set(loose, block);
      texts.fill(undefined, loose, i);
      add(block);
      loose = i;
    }
  }
  flush(n);
  lastOutcomes.set(owner, { kept: outcomes, texts, blocks });
  return list;
}

function allSame(from: number, to: number, same: (i: number) => boolean): boolean {
  for (let i = from; i < to; i += 1) if (!same(i)) return false;
  return true;
}

export type DecodedCheckpoint =
  | { ok: true; state: CheckpointState; /** The IR hash entry `version` of the log must have recorded. */ irHash: string; /** Full chunks it names. */ chunks: number }
  | { ok: false; reason: string };

/**
 * A checkpoint's head → the state it holds, its full chunks fetched with `readChunks`, checked in
 * itself (format, every transcript entry, and its IR against the hash it names); yields between
 * the transcript's chunks. Never throws: a bad checkpoint is a reason.
 */
export async function decodeCheckpoint(
  head: string, cid: string, readChunks: (count: number) => Promise<ReadonlyArray<string | undefined>>,
): Promise<DecodedCheckpoint> {
  try {
    if (!head.endsWith('\n')) return { ok: false, reason: 'torn (no final newline)' };
    const lines = head.slice(0, -1).split('\n');
    if (lines.length !== 3) return { ok: false, reason: 'lines missing or extra' };
    const header = CheckpointHeader.safeParse(JSON.parse(lines[0]!));
    if (!header.success) return { ok: false, reason: 'its header is not a checkpoint\'s' };
    const h = header.data;
    if (h.cid !== cid || h.meta.cid !== cid) return { ok: false, reason: 'another conversation\'s' };
    const ir = JSON.parse(lines[1]!) as ConversationIr;
    if (ir === null || typeof ir !== 'object' || !Array.isArray(ir.transcript) || !Array.isArray(ir.surfaces)) return { ok: false, reason: 'its IR is not one' };
    const stored = await readChunks(h.chunks);
    if (stored.length !== h.chunks || stored.some((text) => text === undefined)) return { ok: false, reason: 'a transcript chunk is missing' };
    let transcript: ConversationIr['transcript'] = [];
    const hashed = transcriptHashBuilder();
    for (const line of [...(stored as string[]), lines[2]!]) {
      await yieldNow();
      const chunk = JSON.parse(line) as ConversationIr['transcript'];
      if (!Array.isArray(chunk)) return { ok: false, reason: 'a transcript chunk is not a list' };
      // Grown chunk by chunk, each growth checked by its new entries: the IR's check after the
      // load finds the whole transcript checked (a long one is never checked in one go).
      const before = transcript;
      transcript = [...before, ...chunk];
      if (!isValidTranscript(transcript, before)) return { ok: false, reason: 'a transcript entry is not one' };
      hashed.add(line, chunk.length);
    }
    if (transcript.length !== h.transcript) return { ok: false, reason: 'the transcript is not as long as it says' };
    ir.transcript = transcript;
    hashed.done(transcript);
    await yieldNow();
    // Its content: the IR it holds is the one whose hash it names (and the log's entry recorded).
    if (irHash(ir) !== h.irHash && legacyIrHash(ir) !== h.irHash) return { ok: false, reason: 'its IR does not match its hash' };
    const folded: FoldResult = {
      meta: h.meta, ir, turnCount: h.turnCount, traces: h.traces, outcomes: [] as LoggedOutcome[],
      divergences: h.divergences as FoldResult['divergences'], version: h.version,
      pending: new Map(h.pending.map((p) => [p.actionVersion, p])),
    };
    return { ok: true, irHash: h.irHash, chunks: h.chunks, state: { folded, outcomes: h.outcomes as CheckpointState['outcomes'] } };
  } catch (error) {
    return { ok: false, reason: `not JSON lines (${(error as Error).name})` };
  }
}
