import { encode } from 'gpt-tokenizer';
import { createDemoApp } from '../src/app/index.ts';
import { DEMO_TEMPLATES } from '../src/app/templates.ts';
import {
  a2uiBatchesToJsonl, compileConversationToA2ui, compileConversationToA2uiV09, type A2uiCompileOptions, type CompileResult,
} from '../src/compiler/index.ts';
import type { AppDefinition } from '../src/conversation/index.ts';
import { directiveJsonSchema, renderSystemPrompt, runDirectives } from '../src/directives/index.ts';
import { toStrictJsonSchema } from '../src/llm/index.ts';
import { createSeededSource, emptyConversation } from '../src/ui-ir/index.ts';
import { createGalleryApp, SHOW_GALLERY } from '../test/support/component-app.ts';

/**
 * What the model writes against what the clients receive: for each app template (ui.show_form)
 * and for ui.ask with 3 / 6 / 12 fields, the directive envelope as the model emits it (compact
 * JSON) against the A2UI v0.8 and v0.9 JSONL streams it compiles to (full init). Bytes are
 * UTF-8; tokens are counted with gpt-tokenizer's o200k_base (the encoding of current OpenAI
 * models; other models' tokenizers differ in detail, not in the ratios that matter here).
 * Goal: the directives ≤ 1/10 of either stream.
 *
 * App components (issue 22): `ui.show_component` placing an app component (the demo app plus a
 * CharacterGallery of three characters, test/support/component-app.ts) against the stream a
 * client with the app catalogue gets and the fallback stream of one without it. And what the
 * model reads: the system prompt (with its directive catalogue) and the envelope's JSON Schema
 * (Ollama `format`; OpenAI's strict variant), for the app without and with its component.
 */
const FIELD_TYPES = ['text', 'select', 'checkbox', 'number', 'textarea', 'tags'] as const;

function askEnvelope(n: number): unknown {
  const fields = Array.from({ length: n }, (_, i) => {
    const type = FIELD_TYPES[i % FIELD_TYPES.length]!;
    return { name: `q${i + 1}`, label: `Question ${i + 1}`, type, ...(type === 'select' ? { options: ['yes', 'no', 'maybe'] } : {}) };
  });
  return { directives: [{ type: 'ui.ask', payload: { title: 'A few questions', prompt: 'Please answer these.', fields, submit: 'Send' } }] };
}

export interface TokenRow {
  name: string;
  directives: { bytes: number; tokens: number };
  v08: { bytes: number; tokens: number };
  v09: { bytes: number; tokens: number };
}

function measure(text: string): { bytes: number; tokens: number } {
  return { bytes: Buffer.byteLength(text, 'utf8'), tokens: encode(text).length };
}

function jsonl(result: CompileResult<unknown>): string {
  if (!result.ok || result.batches.some((b) => b.recovery !== 'none')) throw new Error('bench case did not compile cleanly');
  return a2uiBatchesToJsonl(result.batches);
}

export function tokenRows(): TokenRow[] {
  const app = createDemoApp();
  const cases: Array<[string, unknown]> = [
    ...DEMO_TEMPLATES.map((t): [string, unknown] => [`ui.show_form ${t.name}`, { directives: [{ type: 'ui.show_form', payload: { template: t.name } }] }]),
    ...[3, 6, 12].map((n): [string, unknown] => [`ui.ask, ${n} fields`, askEnvelope(n)]),
  ];
  const rows = cases.map(([name, envelope]) => row(app, name, envelope, {}));
  const gallery = createGalleryApp();
  const envelope = { directives: [SHOW_GALLERY] };
  for (const catalog of ['app', 'basic'] as const) {
    const name = `ui.show_component CharacterGallery, 3 items (${catalog === 'app' ? 'app catalogue' : 'fallback'})`;
    const registry = gallery.components!;
    rows.push(row(gallery, name, envelope, { components: catalog === 'app' ? { registry, catalog, catalogId: gallery.catalog!.id } : { registry, catalog } }));
  }
  return rows;
}

function row(app: AppDefinition, name: string, envelope: unknown, options: Omit<A2uiCompileOptions, 'reinit' | 'priorTypes'>): TokenRow {
  const run = runDirectives(app.directives, emptyConversation('bench'), envelope, { mode: 'strict', source: createSeededSource('tokens') });
  if (run.errors.length > 0) throw new Error(`${name}: ${JSON.stringify(run.errors)}`);
  return {
    name,
    directives: measure(JSON.stringify(envelope)),
    v08: measure(jsonl(compileConversationToA2ui(run.ir, options))),
    v09: measure(jsonl(compileConversationToA2uiV09(run.ir, options))),
  };
}

export interface PromptRow {
  name: string;
  prompt: { bytes: number; tokens: number };
  schema: { bytes: number; tokens: number };
  strict: { bytes: number; tokens: number };
}

/** What the model reads every turn: the system prompt and the envelope's JSON Schema, without and with the app's component. */
export function promptRows(): PromptRow[] {
  return ([['demo app', createDemoApp()], ['demo app + CharacterGallery', createGalleryApp()]] as const).map(([name, app]) => {
    const schema = directiveJsonSchema(app.directives);
    return {
      name,
      prompt: measure(renderSystemPrompt(app.directives)),
      schema: measure(JSON.stringify(schema)),
      strict: measure(JSON.stringify(toStrictJsonSchema(schema).schema)),
    };
  });
}

export function run(): void {
  const rows = tokenRows();
  const ratio = (a: number, b: number): string => `1/${(b / a).toFixed(1)}`;
  const out = [
    '| case | directives B | tok | v0.8 B | tok | v0.9 B | tok | directives/v0.8 (tok) | directives/v0.9 (tok) | v0.9/v0.8 (tok) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.directives.bytes} | ${r.directives.tokens} | ${r.v08.bytes} | ${r.v08.tokens} | ${r.v09.bytes} | ${r.v09.tokens} | `
      + `${ratio(r.directives.tokens, r.v08.tokens)} | ${ratio(r.directives.tokens, r.v09.tokens)} | ${(r.v09.tokens / r.v08.tokens).toFixed(2)} |`),
    '',
    'tokens: gpt-tokenizer 4.0.0, o200k_base; B: UTF-8 bytes; streams: full init, JSONL',
    '',
    '| app | system prompt B | tok | envelope JSON Schema B | tok | OpenAI strict schema B | tok |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...promptRows().map((r) => `| ${r.name} | ${r.prompt.bytes} | ${r.prompt.tokens} | ${r.schema.bytes} | ${r.schema.tokens} | ${r.strict.bytes} | ${r.strict.tokens} |`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
