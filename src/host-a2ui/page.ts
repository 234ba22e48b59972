/**
 * The HTML page that mounts the official A2UI Lit renderer. Static markup only: the behaviour
 * is in the external client bundle, configured through `data-*` attributes, so the page works
 * under a CSP without 'unsafe-inline'.
 */

export interface A2uiPageParams {
  title: string;
  scriptPath: string;
  stylePath: string;
  streamUrl: string;
  eventsUrl: string;
  /** Echoed for external clients opened with a bearer token; sent back on every request. */
  token: string | undefined;
}

/**
 * Scripts: our bundle only. Styles: Lit's components use constructable stylesheets (not subject
 * to CSP), but `styleMap` writes its first value as a `style` attribute — that is how
 * <a2ui-surface> applies `beginRendering.styles` (primaryColor palette, font). So inline style
 * *attributes* are allowed (`style-src-attr`), while style *elements* stay 'self'. Images and
 * media come from URLs the compiler passed (http/https only).
 */
export const A2UI_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-elem 'self'",
  "style-src-attr 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data: https: http:",
  "media-src 'self' https: http:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function renderA2uiPage(p: A2uiPageParams): string {
  const token = p.token === undefined ? '' : ` data-token="${escapeHtml(p.token)}"`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(p.title)}</title>
<link rel="stylesheet" href="${escapeHtml(p.stylePath)}">
<script type="module" src="${escapeHtml(p.scriptPath)}"></script>
</head>
<body>
<main id="a2ui-app" data-stream-url="${escapeHtml(p.streamUrl)}" data-events-url="${escapeHtml(p.eventsUrl)}"${token}>
<header class="a2ui-header">
<h1>${escapeHtml(p.title)}</h1>
<p id="a2ui-status" class="a2ui-status" role="status" aria-live="polite" data-state="connecting">Connecting…</p>
</header>
<p id="a2ui-notice" class="a2ui-notice" role="alert" hidden></p>
<div id="a2ui-surfaces" class="a2ui-surfaces"></div>
<noscript><p class="a2ui-notice">This view needs JavaScript.</p></noscript>
</main>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
