import { a2uiWire, type A2uiVersion } from '../compiler/index.ts';
import type { PlannerBadge } from '../planner/index.ts';

/**
 * The HTML page that mounts the official A2UI Lit renderer of one wire version (v0.8, or v0.9
 * for `?v=0.9` / `?v=0.9.1`: another bundle, never both on one page). Static markup only: the
 * behaviour is in the external client bundle, configured through `data-*` attributes, so the
 * page works under a CSP without 'unsafe-inline'. The page's own stream and posts authenticate
 * with the session cookie: no token is ever put into the page or its URLs.
 */

export interface A2uiPageParams {
  title: string;
  version: A2uiVersion;
  scriptPath: string;
  stylePath: string;
  /** The app's theme stylesheet (AppDefinition.theme), linked after the page's own; absent: no theme. */
  themePath?: string;
  streamUrl: string;
  eventsUrl: string;
  /** Shown in a "Connect an A2UI client" box: the conversation's bearer token and curl lines. */
  connect?: { token: string; origin: string; base: string };
  /** What surrounds the panels (the htmx page's chat, texts and links); absent: the panels alone. */
  chrome?: A2uiPageChrome;
}

/**
 * The product around the renderer, as the htmx page shows it: the app's name and texts, the
 * planner's badge, the transcript so far, and, for the session that owns the conversation, the
 * message box (it posts to the htmx host's `POST /c/{cid}/messages` with the session's CSRF token).
 */
export interface A2uiPageChrome {
  appName: string;
  description: string | undefined;
  planner: PlannerBadge;
  /** The htmx page of the same conversation. */
  htmlUrl: string;
  emptyState: string;
  hints: readonly string[];
  /** The recent messages (hosting/recent-transcript.ts); `earlier`: how many come before them, and the htmx page that shows them. */
  transcript: ReadonlyArray<{ role: 'user' | 'assistant' | 'system'; text: string }>;
  earlier?: { count: number; url: string };
  composer?: { action: string; csrf: string; placeholder: string; maxLength: number };
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

/** The badge's words; a closing remark in its own span, which a phone's top bar leaves out. */
function badgeText(badge: PlannerBadge): string {
  return badge.detail === '' ? escapeHtml(badge.label) : `${escapeHtml(badge.short)}<span class="a2ui-badge__detail">${escapeHtml(badge.detail)}</span>`;
}

const ROLE_LABELS = { user: 'You', assistant: 'Assistant', system: 'Note' } as const;

export function renderA2uiPage(p: A2uiPageParams): string {
  const messageVersion = a2uiWire(p.version).messageVersion;
  const version = messageVersion === undefined ? '' : ` data-a2ui-version="${messageVersion}"`;
  const chrome = p.chrome;
  const title = chrome?.appName ?? p.title;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${escapeHtml(p.stylePath)}">
${p.themePath === undefined ? '' : `<link rel="stylesheet" href="${escapeHtml(p.themePath)}">
`}<script type="module" src="${escapeHtml(p.scriptPath)}"></script>
</head>
<body>
<header class="a2ui-topbar">
<span class="a2ui-topbar__brand">${escapeHtml(title)}</span>
${chrome === undefined ? '' : `<span class="a2ui-badge${chrome.planner.offline ? ' a2ui-badge--offline' : ''}" title="${escapeHtml(chrome.planner.title)}">${badgeText(chrome.planner)}</span>
`}<p id="a2ui-status" class="a2ui-status" role="status" aria-live="polite" data-state="connecting">Connecting…</p>
${chrome === undefined ? '' : `<nav class="a2ui-topbar__nav" aria-label="Conversation"><a href="${escapeHtml(chrome.htmlUrl)}">HTML view</a> ${versionSwitch(p.version)} <a href="/">New conversation</a></nav>
`}</header>
<main id="a2ui-app" class="a2ui-page${chrome === undefined ? '' : ' a2ui-page--chat'}" data-stream-url="${escapeHtml(p.streamUrl)}" data-events-url="${escapeHtml(p.eventsUrl)}"${version}>
${chrome === undefined ? '' : chatColumn(chrome)}<section class="a2ui-panels" aria-label="Panels">
<p id="a2ui-notice" class="a2ui-notice" role="alert" hidden></p>
${chrome === undefined ? '' : emptyState(chrome)}<div id="a2ui-surfaces" class="a2ui-surfaces"></div>
<noscript><p class="a2ui-notice">This view needs JavaScript.</p></noscript>
${p.connect === undefined ? '' : connectBox({ ...p.connect, version: p.version })}</section>
</main>
</body>
</html>
`;
}

function chatColumn(chrome: A2uiPageChrome): string {
  const entries = chrome.transcript.map((e) => `<li class="a2ui-entry a2ui-entry--${e.role}"><span class="a2ui-entry__role">${ROLE_LABELS[e.role]}</span><p class="a2ui-entry__text">${escapeHtml(e.text)}</p></li>`).join('\n');
  const description = chrome.description === undefined ? '' : `<p class="a2ui-chat__description">${escapeHtml(chrome.description)}</p>\n`;
  return `<section class="a2ui-chat" aria-label="Conversation">
${description}${chrome.earlier === undefined ? '' : `<p class="a2ui-transcript__earlier"><a href="${escapeHtml(chrome.earlier.url)}">Show earlier messages</a> (${chrome.earlier.count} not shown here)</p>\n`}<ol id="a2ui-transcript" class="a2ui-transcript" aria-label="Transcript" aria-live="polite">${entries}</ol>
<div class="a2ui-dock">
<div id="a2ui-alerts" class="a2ui-alerts" role="alert"></div>
<p id="a2ui-turn-status" class="a2ui-turn-status" role="status" aria-live="polite"></p>
${chrome.composer === undefined ? '<p class="a2ui-chat__readonly">Open this conversation in the browser that started it to send messages.</p>' : composer(chrome.composer)}
</div>
</section>
`;
}

/**
 * The other A2UI page of the same conversation, one link per wire version, the shown one marked.
 * Query-only links keep the page's path (`/a2ui/c/{cid}`); v0.9.1 is shown as v0.9.
 */
function versionSwitch(version: A2uiVersion): string {
  const shown = version === '0.8' ? '0.8' : '0.9';
  const link = (v: '0.8' | '0.9'): string => (v === shown
    ? `<a class="a2ui-switch__option" href="?v=${v}" aria-current="page">v${v}</a>`
    : `<a class="a2ui-switch__option" href="?v=${v}">v${v}</a>`);
  return `<span class="a2ui-switch" role="group" aria-label="A2UI version">${link('0.8')}${link('0.9')}</span>`;
}

/** Posts like the htmx page's form (same route, same CSRF token); the bundle sends it with fetch. */
function composer(c: NonNullable<A2uiPageChrome['composer']>): string {
  return `<form id="a2ui-message-form" class="a2ui-composer" method="post" action="${escapeHtml(c.action)}" data-csrf="${escapeHtml(c.csrf)}">
<label class="a2ui-visually-hidden" for="a2ui-message-text">Message</label>
<div class="a2ui-composer__row">
<textarea id="a2ui-message-text" class="a2ui-composer__input" name="text" rows="2" required maxlength="${c.maxLength}" placeholder="${escapeHtml(c.placeholder)}" aria-describedby="a2ui-composer-hint"></textarea>
<button type="submit" class="a2ui-button a2ui-button--primary">Send</button>
</div>
<p id="a2ui-composer-hint" class="a2ui-composer__hint">Enter sends, Shift+Enter starts a new line.</p>
<div id="a2ui-busy" class="a2ui-busy" hidden><span class="a2ui-busy__spinner" aria-hidden="true"></span> The assistant is working…</div>
</form>`;
}

function emptyState(chrome: A2uiPageChrome): string {
  // Pressing a suggestion sends it (composer.ts); read-only pages (no composer) list them as text.
  const hint = (h: string): string => (chrome.composer === undefined
    ? `<li>${escapeHtml(h)}</li>`
    : `<li><button type="button" class="a2ui-empty__hint" data-hint="${escapeHtml(h)}">${escapeHtml(h)}</button></li>`);
  const hints = chrome.hints.length === 0 ? '' : `<ul class="a2ui-empty__hints" aria-label="Things to try">${chrome.hints.map(hint).join('')}</ul>`;
  return `<div id="a2ui-empty" class="a2ui-empty"><p class="a2ui-empty__text">${escapeHtml(chrome.emptyState)}</p>${hints}</div>
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
(<code>Authorization: Bearer</code>; an EventSource, which cannot send headers, may put it in the stream's URL as <code>?token=</code>,
where proxies and server logs may record it). Keep it secret: it grants full access to this conversation.
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
