import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from './launch.ts';
import { fontconfigXml, npmChromiumCache, unpackNpmChromium, type ChromiumExtractor } from './npm-chromium.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

const scratch = mkdtempSync(join(tmpdir(), 'surfacer-npm-chromium-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes a "binary" in many small steps so that concurrent unpacks interleave. */
function slowExtractor(calls: string[]): ChromiumExtractor {
  return async (staging) => {
    calls.push(staging);
    const chunks: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      chunks.push(`chunk ${i}\n`);
      writeFileSync(join(staging, 'chromium'), chunks.join(''));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
}

describe('unpacking the npm Chromium', () => {
  it('concurrent unpacks publish one complete copy and leave no staging directory behind', async () => {
    const cache = join(scratch, 'race');
    const calls: string[] = [];
    const results = await Promise.all(Array.from({ length: 4 }, () => unpackNpmChromium(cache, scratch, slowExtractor(calls), '1.2.3')));
    expect(new Set(results.map((r) => r.executablePath))).toEqual(new Set([join(cache, 'sparticuz-chromium-1.2.3', 'chromium')]));
    expect(calls.length).toBe(4);
    expect(readFileSync(results[0]!.executablePath, 'utf8').split('\n').length).toBe(21);
    expect(readdirSync(cache)).toEqual(['sparticuz-chromium-1.2.3']);

    const again = await unpackNpmChromium(cache, scratch, slowExtractor(calls), '1.2.3');
    expect(calls.length).toBe(4);
    expect(again.unpackedMs).toBeUndefined();
  });

  it('a failed unpack publishes nothing', async () => {
    const cache = join(scratch, 'failing');
    const failing: ChromiumExtractor = async (staging) => {
      writeFileSync(join(staging, 'chromium'), 'half');
      throw new Error('disk full');
    };
    await expect(unpackNpmChromium(cache, scratch, failing, '1.2.3')).rejects.toThrow('disk full');
    expect(readdirSync(cache)).toEqual([]);
  });

  it('writes a font configuration that escapes its paths', () => {
    const xml = fontconfigXml('/x/a&b<c>');
    expect(xml).toContain('<dir>/x/a&amp;b&lt;c&gt;/fonts</dir>');
    expect(xml).toContain('<include ignore_missing="yes">/etc/fonts/fonts.conf</include>');
  });
});

describe('the npm Chromium on a machine without fonts', () => {
  /** Dark pixels of a word drawn on a canvas: zero when no font has glyphs for it. */
  async function ink(executablePath: string, fontconfigFile: string): Promise<number> {
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, env: { ...process.env, FONTCONFIG_FILE: fontconfigFile } });
    try {
      const page = await browser.newPage();
      return await page.evaluate(`(() => {
        const canvas = document.createElement('canvas');
        canvas.width = 200; canvas.height = 60;
        const ctx = canvas.getContext('2d');
        ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, 200, 60);
        ctx.fillStyle = '#000'; ctx.font = '32px sans-serif'; ctx.fillText('Surfacer', 4, 44);
        const data = ctx.getImageData(0, 0, 200, 60).data;
        let dark = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i] < 128) dark += 1;
        return dark;
      })()`);
    } finally {
      await browser.close();
    }
  }

  it('draws text with the fonts it ships, and none without them', async () => {
    // Unpacked here even when the run uses a system Chromium, so the fallback stays proven.
    const { executablePath } = await unpackNpmChromium(npmChromiumCache(root), root);
    // Our configuration with the machine's own taken away: only the bundled fonts remain.
    const bundledOnly = join(scratch, 'bundled-only.conf');
    writeFileSync(bundledOnly, fontconfigXml(join(executablePath, '..'), join(scratch, 'no-such-fonts.conf')));
    const noFonts = join(scratch, 'no-fonts.conf');
    writeFileSync(noFonts, `<?xml version="1.0"?>\n<fontconfig><cachedir>${join(scratch, 'fc-cache')}</cachedir></fontconfig>\n`);
    expect(await ink(executablePath, bundledOnly)).toBeGreaterThan(200);
    expect(await ink(executablePath, noFonts)).toBe(0);
  });
});
