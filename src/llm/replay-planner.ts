import { z } from 'zod';
import { makeError, type SurfacerError } from '../errors/index.ts';
import type { Planner, PlannerInput, PlannerOutput } from '../planner/types.ts';
import { PlannerError } from './planner-error.ts';

/**
 * Answers from recorded model outputs, for demos and tests. A JSONL file, one record a line:
 * `{"text"?: "user text", "output": "raw model text"}` or `{"text"?, "outputs": [first answer,
 * answer to repair 1, …]}`, optionally `"model"`. Lines of a conversation log are read too: each
 * `turn` entry with a recorded raw text becomes a record; other entries are skipped.
 *
 * Matching: `text` — the record whose text equals the user's (trimmed, blanks collapsed, case
 * ignored); the n-th time a conversation sends the same text it gets the n-th such record (the
 * last one again when there are fewer). `order` — the n-th user message of a conversation gets
 * the n-th record. The default is `text` when every record has a text, else `order`. Both are
 * pure functions of the conversation, so a replay is deterministic.
 */
export const ReplayRecord = z.object({
  text: z.string().optional(),
  output: z.string().optional(),
  outputs: z.array(z.string()).min(1).optional(),
  model: z.string().optional(),
}).strict().refine((r) => (r.output === undefined) !== (r.outputs === undefined), 'a record has "output" or "outputs"');
export type ReplayRecord = z.infer<typeof ReplayRecord>;

const LoggedTurn = z.looseObject({ type: z.literal('turn'), text: z.string(), planner: z.looseObject({ rawText: z.string().optional(), model: z.string().optional() }) });

export interface ReplayEntry {
  line: number;
  text?: string;
  outputs: string[];
  model?: string;
}

export type ReplayMatch = 'order' | 'text';

/** Reads a replay file's text; an unreadable line is an LLM_CONFIG_INVALID error naming it. */
export function parseReplayFile(text: string, source: string): { ok: true; entries: ReplayEntry[] } | { ok: false; error: SurfacerError } {
  const entries: ReplayEntry[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return { ok: false, error: makeError('LLM_CONFIG_INVALID', `${source}:${i + 1}: not JSON`) };
    }
    if (json !== null && typeof json === 'object' && 'type' in json) {
      const turn = LoggedTurn.safeParse(json);
      if (turn.success && turn.data.planner.rawText !== undefined) {
        entries.push({ line: i + 1, text: turn.data.text, outputs: [turn.data.planner.rawText], ...(turn.data.planner.model ? { model: turn.data.planner.model } : {}) });
      }
      continue;
    }
    const record = ReplayRecord.safeParse(json);
    if (!record.success) {
      return { ok: false, error: makeError('LLM_CONFIG_INVALID', `${source}:${i + 1}: ${record.error.issues[0]?.message ?? 'invalid record'}`) };
    }
    const { text: userText, output, outputs, model } = record.data;
    entries.push({ line: i + 1, outputs: outputs ?? [output!], ...(userText === undefined ? {} : { text: userText }), ...(model ? { model } : {}) });
  }
  return { ok: true, entries };
}

const normalise = (text: string): string => text.trim().replace(/\s+/g, ' ').toLowerCase();

function userTexts(input: PlannerInput): string[] {
  return input.ir.transcript.filter((t) => t.role === 'user').map((t) => t.text);
}

export function createReplayPlanner(entries: readonly ReplayEntry[], options: { match?: ReplayMatch; label?: string } = {}): Planner {
  const match = options.match ?? (entries.length > 0 && entries.every((e) => e.text !== undefined) ? 'text' : 'order');
  const pick = (input: PlannerInput): ReplayEntry | undefined => {
    const earlier = userTexts(input);
    if (match === 'order') return entries[earlier.length];
    const wanted = normalise(input.text);
    const same = entries.filter((e) => e.text !== undefined && normalise(e.text) === wanted);
    return same[Math.min(earlier.filter((t) => normalise(t) === wanted).length, same.length - 1)];
  };
  return {
    name: 'replay',
    label: options.label ?? `replay · ${entries.length} recorded answers`,
    async plan(input: PlannerInput, signal: AbortSignal): Promise<PlannerOutput> {
      if (signal.aborted) throw new PlannerError(makeError('LLM_CANCELLED', 'cancelled before the replay answered'));
      const entry = pick(input);
      const attempt = input.repair?.attempts.length ?? 0;
      const output = entry?.outputs[attempt];
      if (entry === undefined || output === undefined) {
        const what = entry === undefined ? `no record for "${input.text.slice(0, 80)}" (match: ${match})` : `record on line ${entry.line} has no answer for repair ${attempt}`;
        throw new PlannerError(makeError('LLM_REPLAY_NO_ANSWER', what));
      }
      return { rawText: output, provider: 'replay', model: entry.model ?? 'replay', llmMs: 0, meta: { replay_line: entry.line, replay_match: match, format_mode: 'none' } };
    },
  };
}
