import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { Assets } from './assets.ts';

/**
 * htmx 2 configuration, carried by a meta tag (no inline script under our CSP):
 * - no injected indicator <style> (CSP style-src 'self'); our CSS styles `.htmx-request`;
 * - 4xx/5xx fragments are swapped (htmx 2 does not by default) into #alerts unless the
 *   response retargets them (HX-Retarget/HX-Reswap), e.g. into a surface's alert slot;
 * - no eval, no script tags from responses.
 */
export const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
  responseHandling: [
    { code: '204', swap: false },
    { code: '[23]..', swap: true },
    { code: '[45]..', swap: true, error: true, target: '#alerts', swapOverride: 'innerHTML' },
  ],
});

export interface LayoutData {
  title: string;
  appName: string;
  planner: { label: string; offline: boolean };
  traceUrl?: string;
  hxHeaders?: string;
}

export interface Views {
  render(name: string, data: object): string;
  page(name: string, layout: LayoutData, data: object): string;
}

export function createViews(assets: Assets): Views {
  const eta = new Eta({
    views: fileURLToPath(new URL('./views', import.meta.url)),
    cache: true,
    autoEscape: true,
    autoTrim: [false, 'nl'],
  });
  const assetPaths = { css: assets.css.path, htmx: assets.htmx.path, sse: assets.sse.path };
  return {
    render: (name, data) => eta.render(name, data),
    page: (name, layout, data) => eta.render(name, { ...data, layout: { ...layout, assets: assetPaths, htmxConfig: HTMX_CONFIG } }),
  };
}
