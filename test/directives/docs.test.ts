import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { a2uiBatchesToJsonl, compileConversationToA2uiV09 } from '../../src/compiler/index.ts';
import { renderDirectiveCatalogue, runDirectives } from '../../src/directives/index.ts';
import { createSeededSource, emptyConversation } from '../../src/ui-ir/index.ts';
import { ERROR_REGISTRY, type ErrorSpec } from '../../src/errors/index.ts';
import { connectCommands } from '../../src/host-a2ui/index.ts';
import { renderIrReference } from '../../scripts/ir-reference.ts';

/**
 * The reference pages in docs/ stay honest: their generated sections must equal what the registries
 * produce now. Run with UPDATE_DOCS=1 to rewrite them after changing a registry.
 */
const page = (name: string): URL => new URL(`../../docs/${name}`, import.meta.url);
const DIRECTIVES = page('directives.md');
const ERROR_CODES = page('error-codes.md');
const A2UI = page('a2ui.md');
const IR_REFERENCE = page('ir-reference.md');
const app = createDemoApp();

function errorTable(): string {
  const rows = Object.entries(ERROR_REGISTRY as Record<string, ErrorSpec>).map(([code, s]) =>
    `| \`${code}\` | ${s.category} | ${s.severity} | ${s.recovery} | ${s.httpStatus ?? '—'} | ${s.retryable ? 'yes' : 'no'} | ${s.message.replace(/\|/g, '\\|')} |`);
  return ['| code | category | severity | recovery | HTTP | retryable | user message |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** The v0.9 JSONL of one ui.ask, as `surfacer compile --target a2ui --a2ui-version 0.9 --seed readme` prints it. */
function v09Example(): string {
  const envelope = { directives: [{ type: 'ui.ask', payload: {
    title: 'Quick question', prompt: 'Which genre?', submit: 'Send',
    fields: [{ name: 'genre', label: 'Genre', type: 'select', options: ['fantasy', 'sci-fi'] }, { name: 'notes', label: 'Notes', type: 'text' }],
  } }] };
  const ir = runDirectives(app.directives, emptyConversation('cli'), envelope, { mode: 'strict', source: createSeededSource('readme') }).ir;
  const result = compileConversationToA2uiV09(ir);
  if (!result.ok) throw new Error('the README example does not compile');
  return ['```jsonl', a2uiBatchesToJsonl(result.batches).trimEnd(), '```'].join('\n');
}

/** The curl session of the A2UI page's connect box for a v0.9 client, with placeholders for token and conversation. */
function v09Clients(): string {
  const commands = connectCommands({ token: '<token>', origin: 'http://127.0.0.1:8787', base: '/a2ui/c/<cid>', version: '0.9' });
  return ['```sh', ...commands.flatMap((c) => [`# ${c.label}`, c.command]), '```'].join('\n');
}

/** Each generated section, the page that holds it, and how it is made. */
const SECTIONS: Record<string, { doc: URL; render: () => string }> = {
  'directive-catalogue': { doc: DIRECTIVES, render: () => renderDirectiveCatalogue(app.directives) },
  'error-table': { doc: ERROR_CODES, render: errorTable },
  'a2ui-v09-example': { doc: A2UI, render: v09Example },
  'a2ui-v09-clients': { doc: A2UI, render: v09Clients },
  'ir-reference': { doc: IR_REFERENCE, render: renderIrReference },
};

function section(doc: string, name: string): string | undefined {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(doc);
  return match?.[1];
}

if (process.env.UPDATE_DOCS === '1') {
  for (const [name, { doc: file, render }] of Object.entries(SECTIONS)) {
    const doc = readFileSync(file, 'utf8');
    writeFileSync(file, doc.replace(new RegExp(`(<!-- ${name}:start -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`), (_m, a: string, b: string) => `${a}${render()}\n${b}`));
  }
}

describe('docs/ reference pages', () => {
  it.each(Object.keys(SECTIONS))('generated section "%s" is current (UPDATE_DOCS=1 rewrites it)', (name) => {
    const { doc, render } = SECTIONS[name]!;
    expect(section(readFileSync(doc, 'utf8'), name)).toBe(`${render()}\n`);
  });

  it('docs/error-codes.md lists every error code of the registry', () => {
    const doc = readFileSync(ERROR_CODES, 'utf8');
    const missing = Object.keys(ERROR_REGISTRY).filter((code) => !doc.includes(`| \`${code}\` |`));
    expect(missing).toEqual([]);
  });

  it('docs/directives.md documents every directive with its aliases and a JSON example, and every action', () => {
    const doc = readFileSync(DIRECTIVES, 'utf8');
    for (const d of app.directives.definitions) {
      expect(doc).toContain(`### \`${d.type}\``);
      for (const alias of d.aliases) expect(doc).toContain(`\`${alias}\``);
      expect(doc).toContain(JSON.stringify({ type: d.type, payload: d.example }));
    }
    for (const a of app.actions.definitions) expect(doc).toContain(`| \`${a.name}\` |`);
  });
});
