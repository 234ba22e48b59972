import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { renderDirectiveCatalogue } from '../../src/directives/index.ts';
import { ERROR_REGISTRY, type ErrorSpec } from '../../src/errors/index.ts';

/**
 * The README's directive reference stays honest: its generated sections must equal what the registries
 * produce now. Run with UPDATE_DOCS=1 to rewrite them after changing a registry.
 */
const DOC = new URL('../../README.md', import.meta.url);
const app = createDemoApp();

function errorTable(): string {
  const rows = Object.entries(ERROR_REGISTRY as Record<string, ErrorSpec>).map(([code, s]) =>
    `| \`${code}\` | ${s.category} | ${s.severity} | ${s.recovery} | ${s.httpStatus ?? '—'} | ${s.retryable ? 'yes' : 'no'} | ${s.message.replace(/\|/g, '\\|')} |`);
  return ['| code | category | severity | recovery | HTTP | retryable | user message |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

const SECTIONS: Record<string, () => string> = {
  'directive-catalogue': () => renderDirectiveCatalogue(app.directives),
  'error-table': errorTable,
};

function section(doc: string, name: string): string | undefined {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(doc);
  return match?.[1];
}

if (process.env.UPDATE_DOCS === '1') {
  let doc = readFileSync(DOC, 'utf8');
  for (const [name, render] of Object.entries(SECTIONS)) {
    doc = doc.replace(new RegExp(`(<!-- ${name}:start -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`), (_m, a: string, b: string) => `${a}${render()}\n${b}`);
  }
  writeFileSync(DOC, doc);
}

describe('README.md directive reference', () => {
  const doc = readFileSync(DOC, 'utf8');

  it.each(Object.keys(SECTIONS))('generated section "%s" is current (UPDATE_DOCS=1 rewrites it)', (name) => {
    expect(section(doc, name)).toBe(`${SECTIONS[name]!()}\n`);
  });

  it('lists every error code of the registry', () => {
    const missing = Object.keys(ERROR_REGISTRY).filter((code) => !doc.includes(`| \`${code}\` |`));
    expect(missing).toEqual([]);
  });

  it('documents every directive with its aliases and a JSON example, and every action', () => {
    for (const d of app.directives.definitions) {
      expect(doc).toContain(`### \`${d.type}\``);
      for (const alias of d.aliases) expect(doc).toContain(`\`${alias}\``);
      expect(doc).toContain(JSON.stringify({ type: d.type, payload: d.example }));
    }
    for (const a of app.actions.definitions) expect(doc).toContain(`| \`${a.name}\` |`);
  });
});
