import { fileURLToPath } from 'node:url';
import { Eta, type TemplateFunction } from 'eta';
import type { Assets } from './assets.ts';
import type { PlannerBadge } from '../planner/index.ts';

/**
 * htmx 2 configuration, carried by a meta tag (no inline script under our CSP):
 * - no injected indicator <style> (CSP style-src 'self'); our CSS styles `.htmx-request`;
 * - settling does not copy `style` attributes: htmx would copy an old element's style attribute
 *   (left by the browser when the user drags a textarea's resize handle, or by a test tool) onto
 *   its swapped-in twin with setAttribute, which CSP style-src 'self' refuses and reports. Our
 *   markup never carries style attributes, so there is nothing to settle;
 * - 4xx/5xx fragments are swapped (htmx 2 does not by default) into #alerts unless the
 *   response retargets them (HX-Retarget/HX-Reswap), e.g. into a surface's alert slot;
 * - a 409 (stale UI) is not an htmx error: it is an expected answer whose fragment asks the
 *   user to regenerate, so htmx neither fires htmx:responseError nor logs it to the console;
 * - no eval, no script tags from responses.
 */
export const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  attributesToSettle: ['class', 'width', 'height'],
  // New content is live in the swap itself: the page animates no settle, and with htmx's 20 ms a
  // loaded or throttled tab left a just-drawn form unbound (a click posted it without htmx).
  defaultSettleDelay: 0,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
  responseHandling: [
    { code: '204', swap: false },
    { code: '[23]..', swap: true },
    { code: '409', swap: true, error: false, target: '#alerts', swapOverride: 'innerHTML' },
    { code: '[45]..', swap: true, error: true, target: '#alerts', swapOverride: 'innerHTML' },
  ],
});

export interface LayoutData {
  title: string;
  appName: string;
  planner: PlannerBadge;
  traceUrl?: string;
  a2uiUrl?: string;
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
  const assetPaths = {
    css: assets.css.path, htmx: assets.htmx.path, sse: assets.sse.path, js: assets.js.path,
    ...(assets.components ? { components: assets.components.path } : {}),
    ...(assets.theme ? { theme: assets.theme.path } : {}),
  };
  // eta.render(name) resolves the file path again on every call (a JSON key, path.join and
  // path.relative); the path and the compiled function of each view are looked up once here.
  // Includes inside a view still resolve against its `filepath`, as before.
  const compiled = new Map<string, { fn: TemplateFunction; filepath: string }>();
  const render = (name: string, data: object): string => {
    const view = compiled.get(name);
    if (view !== undefined) return eta.render(view.fn, data, { filepath: view.filepath });
    const html = eta.render(name, data); // compiles the view and caches it under its path (or throws)
    const filepath = eta.resolvePath(name);
    const fn = eta.templatesSync.get(filepath);
    if (fn !== undefined) compiled.set(name, { fn, filepath });
    return html;
  };
  return {
    render,
    page: (name, layout, data) => render(name, { ...data, layout: { ...layout, assets: assetPaths, htmxConfig: HTMX_CONFIG } }),
  };
}
