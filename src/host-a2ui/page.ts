import { a2uiWire, type A2uiVersion } from '../compiler/index.ts';

/**
 * The HTML page that mounts the official A2UI Lit renderer of one wire version (v0.8, or v0.9
 * for `?v=0.9` / `?v=0.9.1`: another bundle, never both on one page). Static markup only: the
 * behaviour is in the external client bundle, configured through `data-*` attributes, so the
 * page works under a CSP without 'unsafe-inline'.
 */

export interface A2uiPageParams {
  title: string;
  version: A2uiVersion;
  scriptPath: string;
  stylePath: string;
  streamUrl: string;
  eventsUrl: string;
  /** Echoed for external clients opened with a bearer token; sent back on every request. */
  token: string | undefined;
  /** Shown in a "Connect an A2UI client" box: the conversation's bearer token and curl lines. */
  connect?: { token: string; origin: string; base: string };
}

interface ConnectParams { token: string; origin: string; base: string; version: A2uiVersion }

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
  const messageVersion = a2uiWire(p.version).messageVersion;
  const version = messageVersion === undefined ? '' : ` data-a2ui-version="${messageVersion}"`;
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
<main id="a2ui-app" data-stream-url="${escapeHtml(p.streamUrl)}" data-events-url="${escapeHtml(p.eventsUrl)}"${version}${token}>
<header class="a2ui-header">
<h1>${escapeHtml(p.title)}</h1>
<p id="a2ui-status" class="a2ui-status" role="status" aria-live="polite" data-state="connecting">Connecting…</p>
</header>
<p id="a2ui-notice" class="a2ui-notice" role="alert" hidden></p>
<div id="a2ui-surfaces" class="a2ui-surfaces"></div>
<noscript><p class="a2ui-notice">This view needs JavaScript.</p></noscript>
${p.connect === undefined ? '' : connectBox({ ...p.connect, version: p.version })}</main>
</body>
</html>
`;
}

/** The commands external clients of wire version `version` use, with the token inlined (for the page and the README). */
export function connectCommands(c: ConnectParams): { label: string; command: string }[] {
  const url = `${c.origin}${c.base}`;
  const query = c.version === '0.8' ? '' : `?v=${c.version}`;
  const auth = `-H 'Authorization: Bearer ${c.token}'`;
  // Placeholders: the action name, surfaceId, button id, nonce and rev come from the stream.
  const inner = '"name":"<action>","surfaceId":"<surface>--e<epoch>","sourceComponentId":"<button id>",'
    + '"timestamp":"2026-01-01T00:00:00Z","context":{"nonce":"<nonce>","rev":';
  const messageVersion = a2uiWire(c.version).messageVersion;
  // v0.8 sends rev as a string literal (renderers drop falsy literals), v0.9 as the number it is.
  const action = messageVersion === undefined
    ? `{"userAction":{${inner}"<rev>"}}}`
    : `{"version":"${messageVersion}","action":{${inner}<rev>}}}`;
  const errorBody = '{"code":"<code>","surfaceId":"<surface>--e<epoch>","message":"<what failed>"}';
  const error = messageVersion === undefined ? `{"error":${errorBody}}` : `{"version":"${messageVersion}","error":${errorBody}}`;
  const post = (body: string): string => `curl ${auth} -H 'Content-Type: application/json' -H "Idempotency-Key: $RANDOM$RANDOM" --data '${body}' '${url}/events'`;
  return [
    { label: 'Follow the stream (one A2UI message per SSE event)', command: `curl -N ${auth} '${url}/stream${query}'` },
    { label: 'Resume after a disconnect', command: `curl -N ${auth} -H 'Last-Event-ID: <last id seen>' '${url}/stream${query}'` },
    { label: 'Current state as JSONL', command: `curl ${auth} '${url}/snapshot.jsonl${query}'` },
    {
      label: `Send ${messageVersion === undefined ? 'a userAction' : 'an action'} (values from the Button's action in the stream; a fresh Idempotency-Key per action)`,
      command: post(action),
    },
    {
      label: 'Report a message the client could not process (202: the surface gets a new epoch and every client is re-initialised)',
      command: post(error),
    },
  ];
}

function connectBox(c: ConnectParams): string {
  const commands = connectCommands(c).map((entry) => `<p>${escapeHtml(entry.label)}</p>
<pre><code>${escapeHtml(entry.command)}</code></pre>`).join('\n');
  return `<details class="a2ui-connect" id="a2ui-connect">
<summary>Connect an A2UI client</summary>
<p>Any A2UI v${c.version} client can follow and drive this conversation with its bearer token
(<code>Authorization: Bearer</code>, or <code>?token=</code> for EventSource). Keep it secret: it grants full access to this conversation.
Other wire versions: <code>?v=0.8</code> (the default), <code>?v=0.9</code> or <code>?v=0.9.1</code> on the stream and the snapshot.</p>
<p><label for="a2ui-token">Token</label> <input id="a2ui-token" class="a2ui-connect__token" readonly value="${escapeHtml(c.token)}"></p>
${commands}
</details>
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
