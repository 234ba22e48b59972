import { A2UI_VERSIONS, DEFAULT_A2UI_VERSION, isA2uiVersion, type A2uiVersion } from '../compiler/index.ts';

/** `--a2ui-version 0.8|0.9|0.9.1` (default 0.8): the flag compile, validate and sim share. */
export const A2UI_VERSION_OPTION = { 'a2ui-version': { type: 'string' } } as const;

export const A2UI_VERSION_USAGE = `[--a2ui-version ${A2UI_VERSIONS.join('|')}]`;

export function a2uiVersionOf(value: string | undefined): { ok: true; version: A2uiVersion } | { ok: false; message: string } {
  if (value === undefined) return { ok: true, version: DEFAULT_A2UI_VERSION };
  if (isA2uiVersion(value)) return { ok: true, version: value };
  return { ok: false, message: `unknown --a2ui-version '${value}' (versions: ${A2UI_VERSIONS.join(', ')})` };
}
