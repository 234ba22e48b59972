import { createHash, hash, type Hash as Sha256 } from 'node:crypto';
import { z } from 'zod';
import { ActionEventSchema } from '../planner/action-event.ts';
import { createGrowthMemo, type ConversationIr } from '../ui-ir/index.ts';
import { PlannerProvider, TraceSchema } from './trace.ts';

/**
 * The durable conversation log: one JSON object per line, append-only. IR = fold(entries).
 * Every entry records the draws (times/nonces) its transition used, so a fold reproduces the
 * same IR byte for byte, and the hash of the IR after it, so a fold can prove it did.
 */
export const LOG_VERSION = 1 as const;

/** A conversation id: what the stores, the log and both hosts accept. */
export const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Who caused a change (a page id, or 'a2ui'): lets every instance tell a page which changes were its own. */
const Origin = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional();
const Draws = z.array(z.object({ kind: z.enum(['now', 'nonce']), value: z.string() }));
const Hash = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export const CreatedEntry = z.object({
  type: z.literal('created'),
  v: z.literal(LOG_VERSION),
  cid: z.string().regex(CONVERSATION_ID),
  ownerSessionId: z.string().min(1).max(200),
  a2uiToken: z.string().min(16).max(200),
  at: z.string(),
});

export const TurnEntry = z.object({
  type: z.literal('turn'),
  v: z.literal(LOG_VERSION),
  turnIndex: z.number().int().nonnegative(),
  at: z.string(),
  text: z.string(),
  outcome: z.enum(['applied', 'planner_failed', 'cancelled']),
  mode: z.enum(['strict', 'best-effort']),
  planner: z.object({
    name: z.string(),
    provider: PlannerProvider,
    label: z.string(),
    model: z.string().optional(),
    rawText: z.string().optional(),
    llmMs: z.number().nonnegative(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  draws: Draws,
  irHash: Hash,
  trace: TraceSchema,
  origin: Origin,
  /**
   * Set when the turn continued an action: the action entry's version (its 1-based position in
   * the log) and the structured event the planner was given. The fold adds no user entry for it
   * (the action wrote its own); `text` holds the event's one-line description.
   */
  continuation: z.object({ actionVersion: z.number().int().positive(), event: ActionEventSchema }).optional(),
  /**
   * Set when a model Surfacer does not run wrote the answer (an MCP host's, calling a directive
   * tool; `planner.provider` is 'host'): the tool it called. No one typed anything, so the fold
   * adds no user entry and `text` is empty.
   */
  hostCall: z.object({ tool: z.string().max(100) }).optional(),
  /**
   * Set when parts of this turn's answer were applied while it streamed (`turn_part` entries
   * before this one): the fold applies `applies` — what remained of the answer, as a canonical
   * envelope — instead of `planner.rawText` (kept whole for the record), with no user entry.
   */
  streamed: z.object({
    parts: z.number().int().nonnegative(),
    applies: z.string(),
    /** Which directives of the answer were applied while it streamed, and where in the answer (UTF-16 offset) each one closed. */
    applied: z.array(z.object({ index: z.number().int().nonnegative(), type: z.string(), offset: z.number().int().nonnegative() })),
  }).optional(),
});

/**
 * Directives of a streamed answer applied as soon as they were complete (docs/streaming.md),
 * before the turn's own entry. Per-directive atomic: one entry holds whole, validated,
 * canonical directives only (`applies`, an envelope applied best-effort like the turn). The
 * first part of a turn adds the user's entry (unless the turn continues an action) and the
 * assistant text when the answer had given it by then.
 */
export const TurnPartEntry = z.object({
  type: z.literal('turn_part'),
  v: z.literal(LOG_VERSION),
  turnIndex: z.number().int().nonnegative(),
  at: z.string(),
  /** The user's text; the fold adds it to the transcript when `first` (and not a continuation). */
  text: z.string(),
  first: z.boolean(),
  continuation: z.boolean(),
  applies: z.string(),
  applied: z.array(z.object({ index: z.number().int().nonnegative(), type: z.string(), offset: z.number().int().nonnegative() })),
  draws: Draws,
  irHash: Hash,
  origin: Origin,
});

/** The normalised src/ingress ActionRequest, as accepted (context values stay as the client sent them). */
const ActionRequestSchema = z.looseObject({
  kind: z.literal('action'),
  transport: z.enum(['a2ui', 'html']),
  surfaceId: z.string(),
  epoch: z.number().int().nonnegative(),
  nonce: z.string(),
  rev: z.number().int().nonnegative(),
  action: z.string(),
  context: z.record(z.string(), z.unknown()),
  idempotencyKey: z.string().optional(),
});

export const ActionEntry = z.object({
  type: z.literal('action'),
  v: z.literal(LOG_VERSION),
  at: z.string(),
  request: ActionRequestSchema,
  /** The one draw (time + nonce) the ingress used for this action. */
  draw: z.object({ now: z.string(), nonce: z.string() }),
  /** The action's side-effect result (ActionEffect): the fold hands it to the action and never runs the effect. */
  effect: z.object({ result: z.unknown() }).optional(),
  irHash: Hash,
  origin: Origin,
});

export const ResetEntry = z.object({
  type: z.literal('reset'),
  v: z.literal(LOG_VERSION),
  at: z.string(),
  surfaceId: z.string(),
  reason: z.string().max(200),
  draws: Draws,
  irHash: Hash,
  origin: Origin,
});

export const LogEntrySchema = z.discriminatedUnion('type', [CreatedEntry, TurnEntry, TurnPartEntry, ActionEntry, ResetEntry]);
export type LogEntry = z.infer<typeof LogEntrySchema>;
export type CreatedEntry = z.infer<typeof CreatedEntry>;
export type TurnEntry = z.infer<typeof TurnEntry>;
export type TurnPartEntry = z.infer<typeof TurnPartEntry>;
export type ActionEntry = z.infer<typeof ActionEntry>;
export type ResetEntry = z.infer<typeof ResetEntry>;

const partHashes = new WeakMap<object, string>();

/** SHA-256 of one part's JSON, remembered per object (IR is immutable; unchanged parts are shared). */
function partHash(part: unknown): string {
  if (part === null || typeof part !== 'object') return hash('sha256', JSON.stringify(part) ?? 'undefined', 'base64url');
  let known = partHashes.get(part);
  if (known === undefined) {
    known = hash('sha256', JSON.stringify(part), 'base64url');
    partHashes.set(part, known);
  }
  return known;
}

/** A surface: its view (large, and shared across revs) by its own hash, the rest as JSON. */
function surfaceHash(surface: unknown): string {
  if (surface === null || typeof surface !== 'object') return partHash(surface);
  let known = partHashes.get(surface);
  if (known === undefined) {
    const { view, ...rest } = surface as { view?: unknown };
    known = hash('sha256', `${partHash(view)}\n${JSON.stringify(rest)}`, 'base64url');
    partHashes.set(surface, known);
  }
  return known;
}

/**
 * The transcript's hash: SHA-256 of its JSON, as partHash gives it, without serialising the whole
 * transcript each time it grows. Transitions append to it (a new array holding the same entry
 * objects and the new ones), so the running hash of `[` + the entries' JSON joined by `,` is kept
 * per array and extended from the array the new one grew from: the cost of a turn's hash is its
 * own entries', whatever the conversation's length (issue 36).
 */
const runningTranscripts = createGrowthMemo<Sha256>();

function transcriptHash(transcript: unknown): string {
  if (!Array.isArray(transcript)) return partHash(transcript);
  const known = partHashes.get(transcript);
  if (known !== undefined) return known;
  const from = runningTranscripts.grownFrom(transcript);
  const running = from === undefined ? createHash('sha256').update('[') : from.value.copy();
  for (let i = from?.array.length ?? 0; i < transcript.length; i += 1) {
    // An array's JSON writes an element that has none as null.
    running.update(`${i > 0 ? ',' : ''}${JSON.stringify(transcript[i]) ?? 'null'}`);
  }
  runningTranscripts.set(transcript, running);
  const digest = running.copy().update(']').digest('base64url');
  partHashes.set(transcript, digest);
  return digest;
}

/**
 * A transcript's hash built a chunk at a time (a checkpoint's load yields between chunks), then
 * remembered for `transcript`, the array the chunks make up, as transcriptHash would have made it.
 */
export function transcriptHashBuilder(): {
  /** `json`: the chunk's own JSON text (`[e1,…,ek]`, as JSON.stringify wrote it) and its `length` entries. */
  add(json: string, length: number): void;
  done(transcript: readonly unknown[]): void;
} {
  const running = createHash('sha256').update('[');
  let count = 0;
  return {
    add(json, length) {
      // The chunk's entries as its text has them: a text that is not their canonical JSON
      // hashes to another digest, and the checkpoint holding it is refused.
      if (length === 0) return;
      running.update(`${count > 0 ? ',' : ''}${json.slice(1, -1)}`);
      count += length;
    },
    done(transcript) {
      if (transcript.length !== count) throw new Error('the transcript is not the entries hashed');
      runningTranscripts.set(transcript, running);
      partHashes.set(transcript, running.copy().update(']').digest('base64url'));
    },
  };
}

const list = (items: unknown, each: (item: unknown) => string): string =>
  (Array.isArray(items) ? items.map(each).join(' ') : partHash(items));

/**
 * `list(toasts, partHash)`, from the list `before` (the previous IR's) when it is known: every
 * action adds a toast and drops the oldest, so the rest are `before`'s own objects one place
 * earlier, and their hashes are taken from there by pointer comparison instead of a WeakMap
 * lookup per toast (twenty of them, ~0.4 µs each in a busy server: cache misses).
 */
const toastLists = new WeakMap<readonly unknown[], { hashes: readonly string[]; text: string }>();

function toastsText(toasts: unknown, before: unknown): string {
  if (!Array.isArray(toasts)) return partHash(toasts);
  const known = toastLists.get(toasts);
  if (known !== undefined) return known.text;
  const earlier = Array.isArray(before) ? toastLists.get(before) : undefined;
  const shift = earlier === undefined || toasts.length === 0 ? -1 : (before as readonly unknown[]).indexOf(toasts[0]);
  const hashes = toasts.map((toast: unknown, i) =>
    (shift >= 0 && (before as readonly unknown[])[i + shift] === toast ? earlier!.hashes[i + shift]! : partHash(toast)));
  const text = hashes.join(' ');
  toastLists.set(toasts, { hashes, text });
  return text;
}

/**
 * The IR's content hash, recorded with every entry so a fold proves it reproduced the IR.
 * A small hash tree: SHA-256 over the top-level fields' JSON, the transcript's hash, each
 * surface's hash (itself over its view's hash and the rest of its JSON) and each toast's hash.
 * It covers the whole IR like a hash of its JSON (transitions build objects in a fixed key
 * order, so the JSON is stable), but a part's hash is computed once per object: an action
 * re-hashes the data of the surface it changed and its new toast, not every view, surface
 * and the whole transcript again. `previous`: the IR this one was made from, if any (a hint: the
 * hash is the same without it).
 */
export function irHash(ir: ConversationIr, previous?: ConversationIr): string {
  const { transcript, surfaces, toasts, ...rest } = ir;
  // Newline-separated: JSON never contains a raw newline and part hashes are base64url.
  const text = `surfacer-ir-hash:2\n${JSON.stringify(rest)}\n${transcriptHash(transcript)}\n${list(surfaces, surfaceHash)}\n${toastsText(toasts, previous?.toasts)}`;
  return hash('sha256', text, 'base64url');
}

/** The first hash logs used (SHA-256 of the whole IR's JSON); fold still accepts it for older logs. */
export function legacyIrHash(ir: ConversationIr): string {
  return createHash('sha256').update(JSON.stringify(ir)).digest('base64url');
}
