import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import {
  CATALOGUE_MARKER, directiveEnvelopeSchema, directiveJsonSchema, renderDirectiveCatalogue, renderPromptTemplate,
  renderSystemPrompt, validateBatch,
} from '../../src/directives/index.ts';

const registry = createDemoDirectiveRegistry();

describe('model-facing JSON Schema', () => {
  const schema = directiveJsonSchema(registry) as { properties: { directives: { maxItems: number; items: { anyOf: Array<{ properties: { type: { const: string } } }> } } }; required: string[]; additionalProperties: boolean };

  it('is generated from the registry: one branch per directive type, canonical names only', () => {
    const types = schema.properties.directives.items.anyOf.map((b) => b.properties.type.const);
    expect(types).toEqual(registry.definitions.map((d) => d.type));
    expect(schema.properties.directives.maxItems).toBe(64);
    expect(schema.required).toEqual(['directives']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('carries payload constraints from the zod schemas (enums, patterns, bounds)', () => {
    const text = JSON.stringify(schema);
    expect(text).toContain('"enum":["info","success","warning","error"]');
    expect(text).toContain('"enum":["text","textarea","select","checkbox","number","tags","email","url"]');
    expect(text).toContain('"maximum":10');
    expect(text).toContain('^\\\\/(draft|ui)');
  });

  it('every example is a canonical payload (strict mode accepts it)', () => {
    for (const d of registry.definitions) {
      expect(d.example, d.type).toBeDefined();
      const r = validateBatch(registry, { directives: [{ type: d.type, payload: d.example }] }, { mode: 'strict' });
      expect(r.errors, d.type).toEqual([]);
      expect(directiveEnvelopeSchema(registry).safeParse({ directives: [{ type: d.type, payload: d.example }] }).success, d.type).toBe(true);
    }
  });
});

describe('system prompt', () => {
  const template = readFileSync(new URL('../../prompts/system.v1.md', import.meta.url), 'utf8');

  it('has the catalogue marker exactly once and no hand-copied directive types', () => {
    expect(template.split(CATALOGUE_MARKER)).toHaveLength(2);
    for (const d of registry.definitions) expect(template).not.toContain(d.type);
  });

  it('renders every type, its aliases, payload fields and example from the registry', () => {
    const prompt = renderSystemPrompt(registry);
    expect(prompt).not.toContain(CATALOGUE_MARKER);
    expect(prompt).toContain(renderDirectiveCatalogue(registry));
    for (const d of registry.definitions) {
      expect(prompt).toContain(`### \`${d.type}\``);
      for (const a of d.aliases) expect(prompt).toContain(`\`${a}\``);
      expect(prompt).toContain(JSON.stringify({ type: d.type, payload: d.example }));
    }
    expect(prompt).toContain('- when `template` is "persona":');
    expect(prompt).toContain('tone?: number 0..10');
  });

  it('refuses templates without exactly one marker', () => {
    expect(() => renderPromptTemplate('no marker', registry)).toThrow();
    expect(() => renderPromptTemplate(`${CATALOGUE_MARKER}${CATALOGUE_MARKER}`, registry)).toThrow();
  });
});
