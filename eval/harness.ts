import { createDemoApp } from '../src/app/index.ts';
import { applyTurn, irHash, planTurn, runDirectivesAdapter, type TurnContext } from '../src/conversation/index.ts';
import { createEnvelopeStreamReader, runDirectives, runModelOutput, validateBatch, type DirectiveRegistry } from '../src/directives/index.ts';
import { buildChatMessages, readRepairPrompt } from '../src/llm/index.ts';
import type { Planner, PlannerInput } from '../src/planner/types.ts';
import { createSeededSource, emptyConversation, type ConversationIr } from '../src/ui-ir/index.ts';
import type { Directive, ModelOutputFixture } from './fixture.ts';

/**
 * The offline eval: every labelled model answer goes through the real pipeline (parse,
 * validate, run; then the repair loop with a scripted model) and is judged against its label.
 *
 * - recovered as labelled: no error, exactly the labelled directives applied (compared after
 *   canonical validation of both sides), the labelled assistant text, at least the labelled
 *   warnings (none at all for canonical answers), and no repair call;
 * - rejected with the right code: the labelled code (at the labelled pointer) among the errors;
 * - repaired by the loop: the scripted model answers the repair follow-up with the corrected
 *   answer only when the follow-up quotes the labelled code and pointer (otherwise it repeats
 *   its mistake), and the loop must end with the corrected directives applied;
 * - crash: anything thrown anywhere;
 * - half-applied: a turn whose IR is not exactly "the state before + the directives it reports
 *   applied" (checked by replaying those canonically in strict mode from the same state and
 *   draws), a strict-mode run that changed anything while reporting errors, or a loop that
 *   applied anything but the attempt that passed;
 * - streamed: the answer fed in random chunks (STREAM_RUNS seeded chunkings) through the
 *   incremental envelope reader, each directive applied as it is yielded and the rest at the
 *   end, as a streamed turn does (docs/streaming.md): the IR must be the whole answer's (a
 *   cut-off answer excepted: streaming keeps what closed before the cut, by design).
 */
export interface CaseResult {
  id: string;
  family: string;
  category: string;
  outcome: ModelOutputFixture['expect']['outcome'];
  asLabelled: boolean;
  repaired?: boolean;
  crash?: string;
  halfApplied?: string;
  why?: string;
  /** How reading the answer streamed differed from reading it whole (absent: the same). */
  streamed?: string;
  /** The answer was cut off: streaming kept this many directives the whole reading refuses. */
  streamedKept?: number;
  /** Directives applied before the answer ended when it streamed. */
  streamedEarly?: number;
}

export interface CategoryRow {
  category: string;
  total: number;
  recoverable: number;
  recovered: number;
  rejectable: number;
  rejectedRight: number;
  repairable: number;
  repaired: number;
  crashes: number;
  halfApplied: number;
  /** Answers whose streamed reading (random chunk boundaries) matched the whole reading. */
  streamedSame: number;
}

export interface EvalReport {
  rows: CategoryRow[];
  total: CategoryRow;
  families: string[];
  failures: CaseResult[];
  /** Cut-off answers: how many directives streaming kept that the whole reading refuses. */
  streamedKept: Array<{ id: string; kept: number }>;
  /** Answers of which at least one directive was applied before the answer ended. */
  streamedEarly: number;
}

const app = createDemoApp();
const registry: DirectiveRegistry = app.directives;
const turn: TurnContext = { runDirectives: runDirectivesAdapter, registry, mode: 'best-effort' };
const repairPrompt = readRepairPrompt();

function canonical(directives: readonly Directive[]): unknown[] | undefined {
  const checked = validateBatch(registry, { directives }, { mode: 'strict' });
  return checked.ok ? checked.directives.map(({ type, payload }) => ({ type, payload })) : undefined;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function stateBefore(fixture: ModelOutputFixture): ConversationIr {
  const run = runDirectives(registry, emptyConversation('eval'), { directives: fixture.setup }, { mode: 'strict', source: createSeededSource('eval-setup') });
  if (run.errors.length > 0) throw new Error(`setup of ${fixture.id} does not apply: ${run.errors[0]!.code}`);
  return run.ir;
}

/** A model that says `answer`, and on a repair call says `repair` only if the follow-up tells it what was wrong. */
function scriptedModel(fixture: ModelOutputFixture): Planner & { calls: number } {
  const model = {
    name: 'replay' as const, label: `scripted ${fixture.family}`, calls: 0,
    async plan(input: PlannerInput) {
      model.calls++;
      let rawText = fixture.answer;
      if (input.repair !== undefined && fixture.repair !== undefined && fixture.expect.outcome === 'rejected') {
        const followUp = buildChatMessages(input, { systemPrompt: '', repairPrompt }).at(-1)!.content;
        const { code, pointer } = fixture.expect;
        if (followUp.includes(code) && (pointer === undefined || followUp.includes(`\`${pointer}\``))) rawText = fixture.repair.answer;
      }
      return { rawText, provider: 'replay' as const, llmMs: 0 };
    },
  };
  return model;
}

/** Judges the first answer alone (no loop) and checks it for half-application. */
function judgeFirst(fixture: ModelOutputFixture, before: ConversationIr): Pick<CaseResult, 'asLabelled' | 'why' | 'halfApplied'> {
  const seed = `eval:${fixture.id}`;
  const best = runModelOutput(registry, before, fixture.answer, { mode: 'best_effort', source: createSeededSource(seed) });
  const codes = best.warnings.map((w) => w.code);
  const applied = best.applied.map(({ type, payload }) => ({ type, payload }));
  let asLabelled = false;
  let why: string | undefined;
  const expect = fixture.expect;
  if (expect.outcome === 'recovered') {
    const wanted = canonical(expect.directives);
    if (wanted === undefined) why = 'the label itself does not validate';
    else if (best.errors.length > 0) why = `errors: ${best.errors.map((e) => `${e.code}@${e.pointer}`).join(', ')}`;
    else if (!same(applied, wanted)) why = `applied ${JSON.stringify(applied).slice(0, 200)}`;
    else if (best.assistantText !== expect.assistant_text) why = `assistant text ${JSON.stringify(best.assistantText)}`;
    else if (!expect.warnings.every((w) => codes.includes(w))) why = `warnings ${codes.join(', ')}`;
    else if (expect.exact && codes.length > 0) why = `a canonical answer raised ${codes.join(', ')}`;
    else asLabelled = true;
  } else if (expect.outcome === 'prose') {
    asLabelled = best.errors.length === 0 && applied.length === 0 && best.assistantText === expect.assistant_text && codes.includes('DIRECTIVE_WARN_PROSE_ONLY');
    if (!asLabelled) why = `errors ${best.errors.map((e) => e.code).join(',')}; text ${JSON.stringify(best.assistantText)}`;
  } else {
    asLabelled = best.errors.some((e) => e.code === expect.code && (expect.pointer === undefined || e.pointer === expect.pointer));
    if (!asLabelled) why = `errors ${best.errors.map((e) => `${e.code}@${e.pointer}`).join(', ') || 'none'}`;
  }
  // What was reported applied, replayed canonically, must be the whole change.
  const replay = runDirectives(registry, before, { directives: applied, ...(best.assistantText === undefined ? {} : { assistant_text: best.assistantText }) },
    { mode: 'strict', source: createSeededSource(seed) });
  let halfApplied: string | undefined;
  if (replay.errors.length > 0 || irHash(replay.ir) !== irHash(best.ir)) halfApplied = 'the IR holds more or less than the directives reported applied';
  const strict = runModelOutput(registry, before, fixture.answer, { mode: 'strict', source: createSeededSource(seed) });
  if (strict.errors.length > 0 && strict.ir !== before) halfApplied = 'strict mode changed the IR of a batch with errors';
  return { asLabelled, ...(why === undefined ? {} : { why }), ...(halfApplied === undefined ? {} : { halfApplied }) };
}

async function judgeLoop(fixture: ModelOutputFixture, before: ConversationIr): Promise<Pick<CaseResult, 'repaired' | 'halfApplied' | 'why'>> {
  const model = scriptedModel(fixture);
  const planned = await planTurn({ text: fixture.user, ir: before }, { planner: model, turn, maxRepairs: 1 }, new AbortController().signal);
  const final = applyTurn(before, { text: fixture.user, rawText: planned.rawText }, turn, createSeededSource(`eval-loop:${fixture.id}`));
  const passed = planned.attempts.find((a) => a.status === 'passed');
  const out: Pick<CaseResult, 'repaired' | 'halfApplied' | 'why'> = {};
  if (passed !== undefined && passed.rawText !== planned.rawText) out.halfApplied = 'the loop applied an attempt other than the one that passed';
  if (fixture.expect.outcome !== 'rejected') {
    if (model.calls !== 1) out.why = `the loop asked for a repair of a good answer (${model.calls} calls)`;
    return out;
  }
  if (fixture.repair !== undefined) {
    const wanted = canonical(fixture.repair.directives);
    const check = runModelOutput(registry, before, planned.rawText, { mode: 'best_effort', source: createSeededSource('eval-check') });
    const applied = check.applied.map(({ type, payload }) => ({ type, payload }));
    out.repaired = !planned.repair.exhausted && final.run.errors.length === 0 && check.errors.length === 0 && wanted !== undefined && same(applied, wanted);
  }
  return out;
}

const STREAM_RUNS = 5;

/** A small seeded PRNG (mulberry32): the same chunk boundaries on every run of the eval. */
function prng(seed: string): () => number {
  let a = [...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 2654435761) >>> 0, 1779033703);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The answer read as a streamed turn reads it, at random chunk boundaries. */
function judgeStreamed(fixture: ModelOutputFixture, before: ConversationIr): Pick<CaseResult, 'streamed' | 'streamedKept' | 'streamedEarly'> {
  const seed = `eval:${fixture.id}`;
  const whole = runModelOutput(registry, before, fixture.answer, { mode: 'best_effort', source: createSeededSource(seed) });
  const random = prng(fixture.id);
  let early = 0;
  for (let run = 0; run < STREAM_RUNS; run++) {
    const reader = createEnvelopeStreamReader(registry, { mode: 'best_effort' });
    const source = createSeededSource(seed);
    let ir = before;
    let textApplied = false;
    const apply = (envelope: Record<string, unknown>): void => { ir = runDirectives(registry, ir, envelope, { mode: 'best_effort', source }).ir; };
    for (let at = 0; at < fixture.answer.length;) {
      const size = 1 + Math.floor(random() * 24);
      for (const event of reader.push(fixture.answer.slice(at, at + size))) {
        if (event.kind !== 'directive') continue;
        const text: string | undefined = textApplied ? undefined : reader.appliedText;
        apply({ ...(text === undefined ? {} : { assistant_text: text }), directives: [{ type: event.directive.type, payload: event.directive.payload }] });
        textApplied ||= text !== undefined;
      }
      at += size;
    }
    const end = reader.finish();
    if (end.truncated) return { streamedKept: reader.yielded.length };
    if (!end.agrees) return { streamed: 'the streamed reading disagrees with the whole answer' };
    const rest = end.rest.map(({ type, payload }) => ({ type, payload }));
    const restText: string | undefined = textApplied ? undefined : whole.assistantText;
    if (rest.length > 0 || restText !== undefined) apply({ ...(restText === undefined ? {} : { assistant_text: restText }), directives: rest });
    if (irHash(ir) !== irHash(whole.ir)) return { streamed: `streamed at random chunk boundaries (run ${run}), the IR differs from the whole answer's` };
    early = reader.yielded.length;
  }
  return { streamedEarly: early };
}

export async function judge(fixture: ModelOutputFixture): Promise<CaseResult> {
  const result: CaseResult = { id: fixture.id, family: fixture.family, category: fixture.category, outcome: fixture.expect.outcome, asLabelled: false };
  try {
    const before = stateBefore(fixture);
    Object.assign(result, judgeFirst(fixture, before));
    const loop = await judgeLoop(fixture, before);
    if (loop.why !== undefined) { result.asLabelled = false; result.why = result.why === undefined ? loop.why : `${result.why}; ${loop.why}`; }
    if (loop.repaired !== undefined) result.repaired = loop.repaired;
    if (loop.halfApplied !== undefined) result.halfApplied = loop.halfApplied;
    Object.assign(result, judgeStreamed(fixture, before));
  } catch (error) {
    result.crash = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    result.asLabelled = false;
  }
  return result;
}

function emptyRow(category: string): CategoryRow {
  return { category, total: 0, recoverable: 0, recovered: 0, rejectable: 0, rejectedRight: 0, repairable: 0, repaired: 0, crashes: 0, halfApplied: 0, streamedSame: 0 };
}

function add(row: CategoryRow, r: CaseResult): void {
  row.total++;
  if (r.outcome === 'rejected') { row.rejectable++; if (r.asLabelled) row.rejectedRight++; } else { row.recoverable++; if (r.asLabelled) row.recovered++; }
  if (r.repaired !== undefined) { row.repairable++; if (r.repaired) row.repaired++; }
  if (r.crash !== undefined) row.crashes++;
  if (r.halfApplied !== undefined) row.halfApplied++;
  if (r.streamed === undefined && r.crash === undefined) row.streamedSame++;
}

export async function runEval(fixtures: readonly ModelOutputFixture[]): Promise<EvalReport> {
  const results: CaseResult[] = [];
  for (const fixture of fixtures) results.push(await judge(fixture));
  const byCategory = new Map<string, CategoryRow>();
  const total = emptyRow('all');
  for (const r of results) {
    const row = byCategory.get(r.category) ?? emptyRow(r.category);
    byCategory.set(r.category, row);
    add(row, r);
    add(total, r);
  }
  return {
    rows: [...byCategory.values()],
    total,
    families: [...new Set(results.map((r) => r.family))].sort(),
    failures: results.filter((r) => !r.asLabelled || r.crash !== undefined || r.halfApplied !== undefined || r.repaired === false || r.streamed !== undefined),
    streamedEarly: results.filter((r) => (r.streamedEarly ?? 0) > 0).length,
    streamedKept: results.filter((r) => r.streamedKept !== undefined).map((r) => ({ id: r.id, kept: r.streamedKept! })),
  };
}
