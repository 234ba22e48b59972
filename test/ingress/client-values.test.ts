import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  clientBoolean, clientChoice, clientChoices, clientNumber, clientText, fieldContextSchema,
} from '../../src/ingress/index.ts';
import { buildIr, surfaceOf } from './fixtures.ts';

const ok = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input);
  expect(r.success, JSON.stringify(input)).toBe(true);
  return r.data;
};
const bad = (schema: z.ZodType, input: unknown) => expect(schema.safeParse(input).success, JSON.stringify(input)).toBe(false);

describe('coercion of what real clients send', () => {
  it('numbers: numbers, numeric strings (HTML, A2UI Slider), empty → absent', () => {
    const n = clientNumber({ min: 0, max: 150 });
    expect([ok(n, 42), ok(n, '42'), ok(n, ' 7 '), ok(n, '1.5'), ok(n, '1e2'), ok(n, ''), ok(n, undefined)])
      .toEqual([42, 42, 7, 1.5, 100, undefined, undefined]);
    for (const v of ['abc', '0x10', 'NaN', 'Infinity', '1,5', true, [], {}, '-1', '151']) bad(n, v);
    bad(clientNumber({ required: true }), '');
    bad(clientNumber({ required: true }), undefined);
  });

  it('checkboxes: booleans, "on"/"true"/"1"/"yes", "off"/"false"/"0"/"", absent → false', () => {
    const b = clientBoolean();
    expect(['on', 'true', 'TRUE', '1', 'yes', true].map((v) => ok(b, v))).toEqual(Array(6).fill(true));
    expect(['off', 'false', '0', 'no', '', false, undefined].map((v) => ok(b, v))).toEqual(Array(7).fill(false));
    for (const v of ['maybe', 2, [], {}]) bad(b, v);
    bad(clientBoolean({ required: true }), undefined);
    expect(ok(clientBoolean({ required: true }), 'on')).toBe(true);
  });

  it('text: strings kept (including ""), numbers and booleans to text, absent → ""', () => {
    const t = clientText({ maxLength: 5 });
    expect([ok(t, 'abc'), ok(t, ''), ok(t, 12), ok(t, false), ok(t, undefined)]).toEqual(['abc', '', '12', 'false', '']);
    bad(t, 'abcdef');
    bad(t, {});
    bad(clientText({ required: true }), '   ');
    bad(clientText({ required: true }), undefined);
  });

  it('single choice: one of the options, "" → absent', () => {
    const c = clientChoice(['red', 'green']);
    expect([ok(c, 'red'), ok(c, ''), ok(c, undefined)]).toEqual(['red', undefined, undefined]);
    bad(c, 'blue');
    bad(clientChoice(['red'], { required: true }), '');
  });

  it('single choice as an A2UI MultipleChoice sends it: ["x"] → "x"; [] and {} → absent', () => {
    const c = clientChoice(['red', 'green']);
    expect([ok(c, ['green']), ok(c, []), ok(c, {})]).toEqual(['green', undefined, undefined]);
    bad(c, ['red', 'green']);
    bad(c, ['blue']);
    bad(clientChoice(['red'], { required: true }), {});
  });

  it('multiple choice: string[], one string (HTML), {} (empty A2UI selection), absent → []', () => {
    const m = clientChoices(['a', 'b']);
    expect([ok(m, ['a', 'b']), ok(m, 'a'), ok(m, {}), ok(m, undefined), ok(m, '')]).toEqual([['a', 'b'], ['a'], [], [], []]);
    bad(m, ['a', 'z']);
    bad(m, { 0: 'a' });
    bad(clientChoices(['a'], { required: true }), {});
  });

  it('fieldContextSchema derives one schema from the surface fields (nested groups too)', () => {
    const schema = fieldContextSchema(surfaceOf(buildIr()));
    expect(ok(schema, { name: 'Ada', age: '36', agree: 'on', color: '', tags: 'a', level: '3', extra: 'dropped' }))
      .toEqual({ name: 'Ada', age: 36, agree: true, color: undefined, tags: ['a'], level: 3 });
    expect(ok(schema, { name: 'Ada' })).toEqual({ name: 'Ada', agree: false, tags: [] });
    bad(schema, {});
    bad(schema, { name: 'x'.repeat(41) });
    bad(schema, { name: 'Ada', level: '11' });
  });
});
