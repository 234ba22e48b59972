import { z } from 'zod';

/** The protocol's dynamic type a bindable property takes (what a literal of its zod type is). */
export function bindableKind(schema: z.ZodType): 'DynamicString' | 'DynamicNumber' | 'DynamicBoolean' | 'DynamicStringList' | 'DynamicValue' {
  const probe = (v: unknown): boolean => schema.safeParse(v).success;
  const inner = unwrap(schema);
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return 'DynamicString';
  if (inner instanceof z.ZodNumber) return 'DynamicNumber';
  if (inner instanceof z.ZodBoolean) return 'DynamicBoolean';
  if (inner instanceof z.ZodArray && probe(['a']) && !probe([1])) return 'DynamicStringList';
  return 'DynamicValue';
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (let i = 0; i < 8; i += 1) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
    else break;
  }
  return s;
}
