import * as cheerio from 'cheerio';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { singleQuotedAttribute } from '../../../src/compiler/html/view-model.ts';

describe('singleQuotedAttribute', () => {
  it('gives back any text, quotes, ampersands, entities and markup included, when an HTML parser reads the attribute', () => {
    const tricky = fc.constantFrom("'", '"', '&', '&amp;', '&quot;', '<', '>', '</div>', "' onmouseover='x", '&#39;', '\u00a0', '—');
    fc.assert(fc.property(fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), tricky), { maxLength: 8 }).map((parts) => parts.join('')), (text) => {
      const $ = cheerio.load(`<input data-x='${singleQuotedAttribute(text)}' data-after="ok">`);
      expect($('input').attr('data-x')).toBe(text);
      // Nothing escaped the attribute: the next one is still there, and no other attribute appeared.
      expect($('input').attr('data-after')).toBe('ok');
      expect(Object.keys($('input').attr() ?? {})).toEqual(['data-x', 'data-after']);
    }), { numRuns: 1000 });
  });

  it('leaves double quotes as they are (what makes the rules\' JSON short)', () => {
    expect(singleQuotedAttribute('[{"rule":"required","message":"Name isn\'t <set> & done"}]'))
      .toBe('[{"rule":"required","message":"Name isn&#39;t &lt;set&gt; &amp; done"}]');
  });
});
