import { describe, expect, it } from 'vitest';
import { safeParseModelOutput, parseModelOutput } from '../../src/directives/index.ts';

const envelope = { assistant_text: 'Hi', directives: [{ type: 'ui.toast', payload: { level: 'info', text: 'He said “hi”, {x}' } }] };
const json = JSON.stringify(envelope);

function read(text: string) {
  const result = safeParseModelOutput(text);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result;
}

const codes = (list: ReadonlyArray<{ code: string }>) => list.map((w) => w.code);

describe('safeParseModelOutput', () => {
  it('reads canonical JSON without warnings (blank space around it is fine)', () => {
    const r = read(`\n  ${JSON.stringify(envelope, null, 2)}\n`);
    expect(r.envelope).toEqual(envelope);
    expect(r.warnings).toEqual([]);
  });

  it.each([
    ['a UTF-8 BOM', `\uFEFF${json}`, 'byte order mark'],
    ['a code fence', `\`\`\`json\n${json}\n\`\`\``, 'code fences'],
    ['a tilde fence', `~~~\n${json}\n~~~`, 'code fences'],
    ['prose before and after', `Sure! Here you go:\n${json}\nLet me know [if] {anything} else.`, 'prose'],
    ['trailing commas', `{"directives": [{"type": "ui.toast", "payload": {"level": "info", "text": "He said “hi”, {x}",},},], "assistant_text": "Hi",}`, 'trailing commas'],
    ['smart quotes', json.replace(/(?<!\\)"([a-z_]+)":/g, '\u201C$1\u201D:'), 'smart quotes'],
    ['raw newlines in strings', json.replace('"Hi"', '"H\ni"').replace('H\\ni', 'H\ni'), 'control characters'],
  ])('reads past %s with a TEXT_REPAIRED warning', (_name, text, note) => {
    const r = read(text);
    expect(r.envelope.directives).toEqual(envelope.directives);
    expect(codes(r.warnings)).toEqual(['DIRECTIVE_WARN_TEXT_REPAIRED']);
    expect(r.warnings[0]!.technical_detail).toContain(note);
    expect(r.warnings[0]!.pointer).toBe('');
  });

  it('keeps smart quotes and braces that are inside real strings', () => {
    expect(read(`Here:\n${json}`).envelope.directives[0]).toEqual(envelope.directives[0]);
  });

  it('wraps a bare array and a lone directive', () => {
    const bare = read(JSON.stringify(envelope.directives));
    expect(bare.envelope).toEqual({ directives: envelope.directives });
    expect(codes(bare.warnings)).toEqual(['DIRECTIVE_WARN_SHAPE_REPAIRED']);
    const lone = read(JSON.stringify(envelope.directives[0]));
    expect(lone.envelope.directives).toEqual(envelope.directives);
  });

  it('concatenates lone directives written as several JSON blocks, in order', () => {
    const a = { type: 'ui.close', payload: { surface: 'main' } };
    const b = { type: 'ui.toast', payload: { level: 'info', text: 'two' } };
    const r = read(`First:\n\`\`\`json\n${JSON.stringify(a)}\n\`\`\`\nThen:\n\`\`\`json\n${JSON.stringify(b)}\n\`\`\``);
    expect(r.envelope).toEqual({ directives: [a, b] });
    expect(codes(r.warnings)).toContain('DIRECTIVE_WARN_SHAPE_REPAIRED');
  });

  it('reads only the first of several envelopes: the later one is quoted prose (answer-position.test.ts)', () => {
    const a = { assistant_text: 'one', directives: [{ type: 'ui.close', payload: { surface: 'main' } }] };
    const b = [{ type: 'ui.toast', payload: { level: 'info', text: 'two' } }];
    const r = read(`First:\n\`\`\`json\n${JSON.stringify(a)}\n\`\`\`\nThen:\n\`\`\`json\n${JSON.stringify(b)}\n\`\`\``);
    expect(r.envelope).toEqual(a);
    expect(codes(r.warnings).sort()).toEqual(['DIRECTIVE_WARN_EXTRA_JSON_IGNORED', 'DIRECTIVE_WARN_TEXT_REPAIRED']);
  });

  it('reads camelCase envelope keys with a KEY_CASE warning and ignores unknown ones', () => {
    const r = read(JSON.stringify({ assistantText: 'x', directives: [], thoughts: 'hidden' }));
    expect(r.envelope).toEqual({ directives: [], assistant_text: 'x' });
    expect(r.warnings.map((w) => [w.code, w.pointer])).toEqual([
      ['DIRECTIVE_WARN_KEY_CASE', '/assistant_text'], ['DIRECTIVE_WARN_UNKNOWN_KEY', '/thoughts'],
    ]);
  });

  it.each([
    ['', 'DIRECTIVE_PARSE_FAILED'],
    ['{"directives": [', 'DIRECTIVE_REPLY_TRUNCATED'],
    ['```json\n{"directives": oops}\n```', 'DIRECTIVE_PARSE_FAILED'],
    ['see [1] and {}', 'DIRECTIVE_PARSE_FAILED'],
    ['42', 'DIRECTIVE_ENVELOPE_INVALID'],
    ['{"directives": "none"}', 'DIRECTIVE_ENVELOPE_INVALID'],
  ])('fails %j with %s', (text, code) => {
    const r = safeParseModelOutput(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(codes(r.errors)).toContain(code);
  });

  it('reads a prose-only reply as the assistant\'s plain answer, with a PROSE_ONLY warning', () => {
    const r = read('  I could not decide what to show.\n');
    expect(r.envelope).toEqual({ directives: [], assistant_text: 'I could not decide what to show.' });
    expect(codes(r.warnings)).toEqual(['DIRECTIVE_WARN_PROSE_ONLY']);
  });

  it('refuses replies over the text budget before scanning', () => {
    const r = safeParseModelOutput('x'.repeat(300 * 1024));
    expect(!r.ok && r.errors[0]!.code).toBe('DIRECTIVE_BUDGET_EXCEEDED');
  });

  it('stays fast on hostile unbalanced input', () => {
    const started = performance.now();
    expect(safeParseModelOutput('['.repeat(100_000) + '{"a":'.repeat(10_000)).ok).toBe(false);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('parseModelOutput throws with the errors attached', () => {
    expect(() => parseModelOutput('```\nnothing here\n```')).toThrow(/no directive JSON/);
  });
});

describe('safeParseModelOutput edge cases', () => {
  it('finds the JSON after many bracketed citations in prose', () => {
    const r = safeParseModelOutput(`${'As noted [1], {see} '.repeat(2000)}\n${json}`);
    expect(r.ok && r.envelope.directives).toEqual(envelope.directives);
  });

  it('flags blank characters JSON does not allow (no-break space)', () => {
    const r = safeParseModelOutput(`\u00A0${json}\u00A0`);
    expect(r.ok && r.warnings.map((w) => w.technical_detail)).toEqual(['read past non-JSON blank characters']);
  });
});
