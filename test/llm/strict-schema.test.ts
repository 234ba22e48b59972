import { fc, test as fcTest } from '@fast-check/vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { directiveJsonSchema, validateBatch } from '../../src/directives/index.ts';
import { fromStrictValue, toStrictJsonSchema, toStrictValue } from '../../src/llm/index.ts';
import { validDirectiveEnvelope } from '../support/arbitraries-directives.ts';
import { checkOpenAiStrictSchema } from '../support/openai-strict-subset.ts';
import { loadFixtures } from '../../eval/fixture.ts';

const registry = createDemoDirectiveRegistry();
const original = directiveJsonSchema(registry);
const strict = toStrictJsonSchema(original);
// A standard validator for the instances; the subset checker above judges the schema itself.
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateStrict = ajv.compile(strict.schema);
const validateOriginal = ajv.compile(original);

/**
 * Every canonical envelope we have as data: each directive's catalogue example (alone and all
 * together) and every labelled envelope of the eval corpus (what a recovered or repaired answer stands for).
 */
const EXAMPLES: Array<{ directives: unknown[]; assistant_text?: string }> = registry.definitions.map((d) => ({ directives: [{ type: d.type, payload: d.example }] }));
EXAMPLES.push({ directives: registry.definitions.map((d) => ({ type: d.type, payload: d.example })) });
for (const f of loadFixtures()) {
  if (f.expect.outcome === 'recovered') EXAMPLES.push({ directives: f.expect.directives, ...(f.expect.assistant_text ? { assistant_text: f.expect.assistant_text } : {}) });
  if (f.repair) EXAMPLES.push({ directives: f.repair.directives, ...(f.repair.assistant_text ? { assistant_text: f.repair.assistant_text } : {}) });
}

describe('strict-mode JSON Schema for OpenAI structured outputs', () => {
  it('passes the OpenAI strict subset rules', () => {
    expect(checkOpenAiStrictSchema(strict.schema)).toEqual([]);
  });

  it('is not the zod schema as is: the subset checker refuses that one', () => {
    const violations = checkOpenAiStrictSchema(original);
    expect(violations.some((v) => v.includes('"oneOf"'))).toBe(true);
    expect(violations.some((v) => v.includes('required must list every property'))).toBe(true);
    expect(violations.some((v) => v.includes('"maxLength"'))).toBe(true);
  });

  it('says which keywords it left out (the validator enforces them)', () => {
    expect(strict.dropped).toEqual(expect.arrayContaining(['maxLength', 'minLength']));
    expect(strict.dropped).not.toContain('pattern');
  });

  it(`accepts the strict form of every valid fixture (${EXAMPLES.length}) and maps each back`, () => {
    for (const envelope of EXAMPLES) {
      expect(validateOriginal(envelope), JSON.stringify(envelope)).toBe(true);
      const strictForm = toStrictValue(envelope, original);
      expect(validateStrict(strictForm), JSON.stringify(validateStrict.errors)).toBe(true);
      expect(fromStrictValue(strictForm, original)).toEqual(envelope);
    }
  });

  it('writes an absent optional field as null and a map as entries', () => {
    const envelope = { directives: [{ type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/ui/badge', value: { color: 'red', count: 2 } }] } }] };
    const strictForm = toStrictValue(envelope, original) as { assistant_text: unknown; directives: Array<{ payload: { surface: unknown; ops: Array<{ value: unknown }> } }> };
    expect(strictForm.assistant_text).toBeNull();
    expect(strictForm.directives[0]!.payload.surface).toBeNull();
    expect(strictForm.directives[0]!.payload.ops[0]!.value).toEqual({ entries: [{ key: 'color', value: 'red' }, { key: 'count', value: 2 }] });
    expect(validateStrict(strictForm)).toBe(true);
    expect(fromStrictValue(strictForm, original)).toEqual(envelope);
  });

  it('keeps a map key named __proto__ as data', () => {
    const back = fromStrictValue({ entries: [{ key: '__proto__', value: 1 }] }, { type: 'object', additionalProperties: { type: 'number' } }) as Record<string, unknown>;
    expect(Object.hasOwn(back, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
  });

  fcTest.prop([validDirectiveEnvelope()], { numRuns: 200 })(
    'every valid envelope has a strict form the strict schema accepts, which maps back to the same envelope and validates',
    (envelope) => {
      expect(validateOriginal(envelope)).toBe(true);
      const strictForm = toStrictValue(envelope, original);
      expect(validateStrict(strictForm), JSON.stringify(validateStrict.errors)).toBe(true);
      const back = fromStrictValue(strictForm, original);
      expect(back).toEqual(envelope);
      expect(validateBatch(registry, back, { mode: 'strict' }).errors).toEqual([]);
    },
  );

  fcTest.prop([fc.jsonValue({ maxDepth: 5 })], { numRuns: 300 })('fromStrictValue never throws', (value) => {
    expect(() => fromStrictValue(value, original)).not.toThrow();
  });
});
