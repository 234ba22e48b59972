import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { addedTranscriptEntries } from '../../src/ui-ir/index.ts';

/** The entries a change added: its tail when the transcript was appended to, else by id; the same answer either way. */
const byId = <T extends { id: string }>(prev: readonly T[], next: readonly T[]): T[] => {
  const known = new Set(prev.map((e) => e.id));
  return next.filter((e) => !known.has(e.id));
};

test.prop([fc.nat(30), fc.nat(5), fc.constantFrom('append', 'same', 'copy', 'drop-first', 'shuffle')], { numRuns: 300 })(
  'addedTranscriptEntries agrees with "entries whose id the previous transcript lacks"',
  (length, grow, how) => {
    const prev = Array.from({ length }, (_, i) => ({ id: `t${i}` }));
    const added = Array.from({ length: grow }, (_, i) => ({ id: `t${length + i}` }));
    const next = how === 'append' ? [...prev, ...added]
      : how === 'same' ? prev
        : how === 'copy' ? [...prev.map((e) => ({ ...e })), ...added]
          : how === 'drop-first' ? [...prev.slice(1), ...added]
            : [...prev].reverse().concat(added);
    expect(addedTranscriptEntries(prev, next)).toEqual(byId(prev, next));
  },
);
