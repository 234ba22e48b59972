import { describe, expect, it } from 'vitest';
import type { A2uiMessageProcessor } from '@a2ui/web_core/v0_8';
import { feed } from './wc-oracle.ts';

/*
 * The v0.8 oracle counts what the official processor reports on console.error (issue 34): it
 * reports some refusals only there (model-processor.js: 'Cannot set root of DataModel to a
 * non-Map value.'), where the v0.9 oracle already failed on them.
 */
describe('the v0.8 processor oracle', () => {
  const message = { beginRendering: { surfaceId: 's', root: 'r' } };

  it('fails a message the processor reports on console.error, naming the report', () => {
    const reporting = { processMessages: () => { console.error('Cannot set root of DataModel to a non-Map value.'); } } as unknown as A2uiMessageProcessor;
    expect(() => feed(reporting, [message as never], 'probe')).toThrow(/probe message 0: the processor reported Cannot set root of DataModel/);
  });

  it('passes a message the processor takes silently, and leaves console.error as it was', () => {
    const original = console.error;
    const silent = { processMessages: () => {} } as unknown as A2uiMessageProcessor;
    expect(() => feed(silent, [message as never])).not.toThrow();
    expect(console.error).toBe(original);
  });
});
