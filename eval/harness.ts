import { createDemoApp } from '../src/app/index.ts';
import { applyTurn, irHash, planTurn, runDirectivesAdapter, type TurnContext } from '../src/conversation/index.ts';
import { runDirectives, runModelOutput, validateBatch, type DirectiveRegistry } from '../src/directives/index.ts';
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
 *   applied anything but the attempt that passed.
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
}

export interface EvalReport {
  rows: CategoryRow[];
  total: CategoryRow;
  families: string[];
  failures: CaseResult[];
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

export async function judge(fixture: ModelOutputFixture): Promise<CaseResult> {
  const result: CaseResult = { id: fixture.id, family: fixture.family, category: fixture.category, outcome: fixture.expect.outcome, asLabelled: false };
  try {
    const before = stateBefore(fixture);
    Object.assign(result, judgeFirst(fixture, before));
    const loop = await judgeLoop(fixture, before);
    if (loop.why !== undefined) { result.asLabelled = false; result.why = result.why === undefined ? loop.why : `${result.why}; ${loop.why}`; }
    if (loop.repaired !== undefined) result.repaired = loop.repaired;
    if (loop.halfApplied !== undefined) result.halfApplied = loop.halfApplied;
  } catch (error) {
    result.crash = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    result.asLabelled = false;
  }
  return result;
}

function emptyRow(category: string): CategoryRow {
  return { category, total: 0, recoverable: 0, recovered: 0, rejectable: 0, rejectedRight: 0, repairable: 0, repaired: 0, crashes: 0, halfApplied: 0 };
}

function add(row: CategoryRow, r: CaseResult): void {
  row.total++;
  if (r.outcome === 'rejected') { row.rejectable++; if (r.asLabelled) row.rejectedRight++; } else { row.recoverable++; if (r.asLabelled) row.recovered++; }
  if (r.repaired !== undefined) { row.repairable++; if (r.repaired) row.repaired++; }
  if (r.crash !== undefined) row.crashes++;
  if (r.halfApplied !== undefined) row.halfApplied++;
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
    failures: results.filter((r) => !r.asLabelled || r.crash !== undefined || r.halfApplied !== undefined || r.repaired === false),
  };
}
