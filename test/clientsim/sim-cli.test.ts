import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/sim.ts';
import { EXAMPLES_SKIP, SHARED_EXAMPLES_DIR } from '../support/shared-examples.ts';
import type { CliIo } from '../../src/cli/main.ts';
import { replay } from '../../src/clientsim/index.ts';
import { readExampleStreams } from './wc-oracle.ts';

class MemoryWritable extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += chunk.toString();
    done();
  }
}

function fakeIo(stdin = ''): CliIo & { stdout: MemoryWritable; stderr: MemoryWritable } {
  return { stdin: Readable.from([stdin]), stdout: new MemoryWritable(), stderr: new MemoryWritable(), env: {} };
}

const examplePath = `${SHARED_EXAMPLES_DIR}/minimal/4_login_form.json`;
// Empty when the official streams are not here; the test that uses it is skipped then.
const example = (await readExampleStreams()).find((e) => e.name === 'minimal/4_login_form.json')?.stream ?? [];

describe('surfacer sim over an official v0.8 example file', EXAMPLES_SKIP, () => {
  it('prints per-surface hash, rendering, root, components and data model for an example file', async () => {
    const io = fakeIo();
    expect(await run([examplePath], io)).toBe(0);
    const out = JSON.parse(io.stdout.text) as { surfaces: Record<string, Record<string, unknown>>; warnings: unknown[] };
    const expected = replay(example).surfaces.get('4_login_form')!;
    expect(out).toEqual({
      surfaces: {
        '4_login_form': {
          hash: expected.hash, rendering: true, root: 'root',
          components: expected.components, dataModel: { username: '', password: '' },
        },
      },
      warnings: [],
    });
    expect(io.stderr.text).toBe('');
  });
});

describe('surfacer sim', () => {
  it('reads JSONL from stdin, keeps data key order and reports warnings (stuck buffering included)', async () => {
    const lines = [
      '{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"b","valueNumber":1},{"key":"10","valueNumber":2},{"key":"2","valueNumber":3}]}}',
      '{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"a","component":{"Text":{"text":{"path":"/b","literalString":"x"}}}}]}}',
    ].join('\n');
    const io = fakeIo(lines);
    expect(await run(['-'], io)).toBe(0);
    expect(io.stdout.text).toContain('"dataModel": {\n        "b": 1,\n        "10": 2,\n        "2": 3\n      }');
    const out = JSON.parse(io.stdout.text) as { warnings: Array<{ code: string; messageIndex: number }> };
    expect(out.warnings.map((w) => [w.code, w.messageIndex])).toEqual([['CLIENTSIM_BOUND_VALUE_PATH_AND_LITERAL', 1], ['CLIENTSIM_STUCK_BUFFERING', 0]]);
  });

  it('exits 1 when the input cannot be parsed, 2 when its file cannot be read', async () => {
    const io = fakeIo('{"oops"');
    expect(await run([], io)).toBe(1);
    expect(io.stderr.text).toMatch(/^surfacer sim: cannot read input: line 1/);
    expect(await run(['/nonexistent/stream.json'], fakeIo())).toBe(2);
  });

  it('exits 2 on usage errors and 0 for --help', async () => {
    expect(await run(['--bogus'], fakeIo())).toBe(2);
    expect(await run(['a', 'b'], fakeIo())).toBe(2);
    const io = fakeIo();
    expect(await run(['--help'], io)).toBe(0);
    expect(io.stdout.text).toContain('surfacer sim');
  });
});
