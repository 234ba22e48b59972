import { encode } from 'gpt-tokenizer';
import { createDemoApp } from '../src/app/index.ts';
import { DEMO_TEMPLATES } from '../src/app/templates.ts';
import { a2uiBatchesToJsonl, compileConversationToA2ui, compileConversationToA2uiV09, type CompileResult } from '../src/compiler/index.ts';
import { runDirectives } from '../src/directives/index.ts';
import { createSeededSource, emptyConversation } from '../src/ui-ir/index.ts';

/**
 * What the model writes against what the clients receive: for each app template (ui.show_form)
 * and for ui.ask with 3 / 6 / 12 fields, the directive envelope as the model emits it (compact
 * JSON) against the A2UI v0.8 and v0.9 JSONL streams it compiles to (full init). Bytes are
 * UTF-8; tokens are counted with gpt-tokenizer's o200k_base (the encoding of current OpenAI
 * models; other models' tokenizers differ in detail, not in the ratios that matter here).
 * Goal: the directives ≤ 1/10 of either stream.
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
  return cases.map(([name, envelope]) => {
    const run = runDirectives(app.directives, emptyConversation('bench'), envelope, { mode: 'strict', source: createSeededSource('tokens') });
    if (run.errors.length > 0) throw new Error(`${name}: ${JSON.stringify(run.errors)}`);
    return {
      name,
      directives: measure(JSON.stringify(envelope)),
      v08: measure(jsonl(compileConversationToA2ui(run.ir))),
      v09: measure(jsonl(compileConversationToA2uiV09(run.ir))),
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
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
