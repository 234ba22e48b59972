import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { answersVersion, findChromium, type ChromiumProbes } from './find-chromium.ts';

const NPM = { executablePath: '/cache/chromium', fontconfigFile: '/cache/fonts.conf' };

function probes(env: NodeJS.ProcessEnv, executables: string[], broken: string[] = []): ChromiumProbes & { unpacks: number } {
  const result = {
    env,
    unpacks: 0,
    isExecutableFile: (path: string) => executables.includes(path),
    answersVersion: (path: string) => !broken.includes(path),
    unpackNpmChromium: async () => {
      result.unpacks += 1;
      return NPM;
    },
  };
  return result;
}

describe('findChromium', () => {
  const dirs = fc.constantFrom('/usr/local/bin', '/usr/bin', '/opt/chromium', '/home/me/bin', '');
  const files = fc.constantFrom('/usr/local/bin/chromium', '/usr/bin/chromium', '/opt/chromium/chromium', '/home/me/bin/chromium', '/mine/chrome');

  fcTest.prop([
    fc.array(dirs, { maxLength: 5 }), fc.uniqueArray(files), fc.option(fc.constantFrom('', '/mine/chrome', '/none/chrome')), fc.uniqueArray(files),
  ])(
    'SURFACER_CHROMIUM, else the first chromium on PATH that runs, else /usr/bin/chromium, else the npm one (unpacked only then)',
    async (path, executableFiles, override, brokenFiles) => {
      const broken: string[] = brokenFiles;
      const executables: string[] = executableFiles;
      const env = { PATH: path.join(':'), ...(override === null ? {} : { SURFACER_CHROMIUM: override }) };
      const p = probes(env, executables, broken);
      if (override !== null && override !== '') {
        if (executables.includes(override)) {
          expect(await findChromium(p)).toEqual({ source: 'SURFACER_CHROMIUM', executablePath: override, env: {} });
        } else {
          await expect(findChromium(p)).rejects.toThrow(/SURFACER_CHROMIUM/);
        }
        expect(p.unpacks).toBe(0);
        return;
      }
      const system = [...path.filter((d) => d !== '').map((d) => `${d}/chromium`), '/usr/bin/chromium']
        .find((f) => executables.includes(f) && !broken.includes(f));
      const found = await findChromium(p);
      if (system !== undefined) {
        expect(found).toEqual({ source: 'system', executablePath: system, env: {} });
        expect(p.unpacks).toBe(0);
      } else {
        expect(found).toEqual({ source: '@sparticuz/chromium', executablePath: NPM.executablePath, env: { FONTCONFIG_FILE: NPM.fontconfigFile } });
        expect(p.unpacks).toBe(1);
      }
    },
  );

  it('passes over a system chromium that does not run (a snap stub) for the next one', async () => {
    const p = probes({ PATH: '/usr/local/bin:/usr/bin' }, ['/usr/local/bin/chromium', '/usr/bin/chromium'], ['/usr/local/bin/chromium', '/usr/bin/chromium']);
    expect((await findChromium(p)).source).toBe('@sparticuz/chromium');
  });

  it('answersVersion: a program that exits 0 runs, one that exits non-zero or does not exist does not', () => {
    expect(answersVersion('/bin/true')).toBe(true);
    expect(answersVersion('/bin/false')).toBe(false);
    expect(answersVersion('/nonexistent/chromium')).toBe(false);
  });

  it('SURFACER_SYSTEM_CHROMIUM=0 passes over every system chromium, on PATH and at the Debian location', async () => {
    const p = probes({ PATH: '/opt/chromium:/usr/bin', SURFACER_SYSTEM_CHROMIUM: '0' }, ['/usr/bin/chromium', '/opt/chromium/chromium']);
    expect((await findChromium(p)).source).toBe('@sparticuz/chromium');
    expect(p.unpacks).toBe(1);
  });

  it('prefers PATH order over the Debian location', async () => {
    const p = probes({ PATH: '/opt/chromium:/usr/bin' }, ['/usr/bin/chromium', '/opt/chromium/chromium']);
    expect((await findChromium(p)).executablePath).toBe('/opt/chromium/chromium');
  });
});
