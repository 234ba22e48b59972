import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The README is short and points into docs/: every page there is linked from it, and every
 * relative link of the README and the pages reaches a file that exists and, when it names an
 * anchor, a heading of that file (GitHub's slugs). Moving a section then breaks a test, not a reader.
 * A page quotes another only with a link to it, and the quoted words must be there; the README's
 * quotes of the demo are held by readme-tour.test.ts.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = path.join(ROOT, 'docs');
const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort();
const files = ['README.md', ...pages.map((p) => `docs/${p}`)];

/** Markdown without its fenced code blocks, where `#` lines and `](…)` are not markdown. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/i.test(href));
}

/** Prose that sends a reader to a README section by name (`README, "X"`, `the README's "X"`): sections move, names rot. */
const README_POINTER = /\bREADME(?:'s)?,? ["“][^"”]+["”]/g;

/** A quotation followed by the link to where it is from: `"words" ([label](page.md#section))`. */
const ATTRIBUTED_QUOTE = /["“]([^"”]{8,})["”],? \(?\[[^\]]*\]\(([^)\s#]+\.md)(?:#([^)\s]+))?\)/g;

const words = (text: string): string => text.replace(/\s+/g, ' ').toLowerCase();

/** The text under the heading whose anchor is `anchor`, up to the next heading of its level or above. */
function sectionText(text: string, anchor: string | undefined): string | undefined {
  if (anchor === undefined) return text;
  const headings = [...prose(text).matchAll(/^(#{1,6}) +(.+?) *#*$/gm)];
  const index = headings.findIndex((h) => anchors(h[0]).has(anchor));
  if (index < 0) return undefined;
  const level = headings[index]![1]!.length;
  const end = headings.slice(index + 1).find((h) => h[1]!.length <= level);
  return text.slice(text.indexOf(headings[index]![0]), end === undefined ? undefined : text.indexOf(end[0]));
}

describe('README.md and docs/', () => {
  it.each(files)('every quotation %s attributes to a page with a link is in that page (and section)', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const wrong: string[] = [];
    for (const [, quote, target, anchor] of prose(text).matchAll(ATTRIBUTED_QUOTE)) {
      const resolved = path.resolve(path.dirname(path.join(ROOT, file)), target!);
      const source = existsSync(resolved) ? sectionText(readFileSync(resolved, 'utf8'), anchor) : undefined;
      if (source === undefined || !words(source).includes(words(quote!))) wrong.push(`"${quote}" is not in ${target}${anchor ? `#${anchor}` : ''}`);
    }
    expect(wrong).toEqual([]);
  });

  it('no page sends the reader to a README section by name (a link to the page that has it instead)', () => {
    const pointers = pages.flatMap((p) => [...prose(readFileSync(path.join(DOCS, p), 'utf8')).matchAll(README_POINTER)].map((m) => `docs/${p}: ${m[0]}`));
    expect(pointers).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(pages.filter((p) => !readme.includes(`](docs/${p})`))).toEqual([]);
  });

  it.each(files)('every relative link of %s reaches a file and, if it names one, a heading', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const broken: string[] = [];
    for (const href of relativeLinks(text)) {
      const [target, anchor] = href.split('#') as [string, string | undefined];
      const resolved = target === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), target);
      if (!existsSync(resolved)) broken.push(`${href}: no such file`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${href}: no such heading`);
    }
    expect(broken).toEqual([]);
  });
});
