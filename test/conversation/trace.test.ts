import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { TraceSchema } from '../../src/conversation/index.ts';

describe('Trace v1 schema', () => {
  it('is a plain wire shape with a JSON Schema', () => {
    const schema = z.toJSONSchema(TraceSchema) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining([
      'trace_version', 'request_id', 'conversation_id', 'turn_index', 'run_mode', 'strict_mode', 'llm', 'surfaces', 'validation', 'recovery', 'timings',
    ]));
    expect(schema.required).toContain('timings');
  });
});
