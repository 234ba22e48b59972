import { readdirSync, readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * One labelled model answer of the offline eval (test/fixtures/model-outputs/*.jsonl): the raw
 * text a model of some family sent, the state it answered in, and what a person would expect
 * Surfacer to make of it.
 */
export const Directive = z.object({ type: z.string(), payload: z.record(z.string(), z.unknown()) }).strict();
export type Directive = z.infer<typeof Directive>;

export const Expectation = z.discriminatedUnion('outcome', [
  /** Read as these directives (canonical), with this assistant text, raising at least these warnings. */
  z.object({
    outcome: z.literal('recovered'),
    directives: z.array(Directive),
    assistant_text: z.string().optional(),
    warnings: z.array(z.string()),
    /** The answer is canonical: no warning at all. */
    exact: z.boolean().optional(),
  }).strict(),
  /** A plain prose answer: shown as the assistant's text, nothing else changes. */
  z.object({ outcome: z.literal('prose'), assistant_text: z.string() }).strict(),
  /** Refused with this stable code (at this pointer, when given); nothing of it is applied. */
  z.object({ outcome: z.literal('rejected'), code: z.string(), pointer: z.string().optional() }).strict(),
]);
export type Expectation = z.infer<typeof Expectation>;

export const ModelOutputFixture = z.object({
  id: z.string().regex(/^[a-z0-9._-]+$/),
  /** The model family whose habits the answer shows. */
  family: z.string(),
  category: z.string(),
  user: z.string(),
  /** Canonical directives applied before the answer (the state the model saw). */
  setup: z.array(Directive),
  answer: z.string(),
  expect: Expectation,
  /** What a model answers to the repair follow-up, and the directives that answer stands for. */
  repair: z.object({ answer: z.string(), directives: z.array(Directive), assistant_text: z.string().optional() }).strict().optional(),
}).strict();
export type ModelOutputFixture = z.infer<typeof ModelOutputFixture>;

export const FIXTURE_DIR = new URL('../test/fixtures/model-outputs/', import.meta.url);

/** Every fixture of every JSONL file in the directory, checked; a bad line throws with its place. */
export function loadFixtures(dir: URL = FIXTURE_DIR): ModelOutputFixture[] {
  const out: ModelOutputFixture[] = [];
  const seen = new Set<string>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort()) {
    readFileSync(new URL(name, dir), 'utf8').split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      const parsed = ModelOutputFixture.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${name}:${i + 1}: ${parsed.error.issues[0]?.message} at ${parsed.error.issues[0]?.path.join('.')}`);
      if (seen.has(parsed.data.id)) throw new Error(`${name}:${i + 1}: duplicate id ${parsed.data.id}`);
      seen.add(parsed.data.id);
      out.push(parsed.data);
    });
  }
  return out;
}
