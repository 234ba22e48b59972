import { fileURLToPath } from 'node:url';
import { startHosts, type ViewHosts } from '../view-support/server.ts';

/*
 * The two origins of the end-to-end MCP Apps host (mcp-apps-browser.test.ts), as
 * examples/basic-host of modelcontextprotocol/ext-apps serves them: the host page (host-page.ts,
 * which talks to the Surfacer server itself through the official MCP client) on one origin, the
 * sandbox proxy of view-support (its document served with the spec's default view CSP as a real
 * Content-Security-Policy header) on another. The Surfacer server is a third origin, which
 * allows the host page's origin for /mcp (agentOrigins).
 */

const HOST_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP Apps host (end to end)</title>
<style>
  :root { color-scheme: light; --bg: #f3f4f6; --bubble: #ffffff; --text: #1f2328; --muted: #6b7280; --line: #e5e7eb; --you: #e3e9f8; --note: #eef6ee; }
  * { box-sizing: border-box; }
  body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.5 system-ui, "DejaVu Sans", sans-serif; }
  .chat { max-width: 760px; margin: 0 auto; padding: 16px; display: flex; flex-direction: column; gap: 12px; }
  .you { align-self: flex-end; max-width: 80%; padding: 8px 12px; border-radius: 14px; background: var(--you); }
  .assistant { display: flex; flex-direction: column; gap: 6px; min-width: 0; }
  .assistant p { margin: 0; }
  .tool { font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
  #view { display: block; width: 100%; height: 60px; border: 0; }
  .context { margin: 0; padding: 8px 12px; border: 1px solid var(--line); border-radius: 10px; background: var(--note); font-size: 13px; overflow-wrap: anywhere; }
  .context:empty { display: none; }
  .context strong { display: block; font-size: 12px; color: var(--muted); font-weight: 600; }
  .composer { margin-top: 4px; padding: 10px 12px; border: 1px solid var(--line); border-radius: 12px; background: var(--bubble); color: var(--muted); }
</style>
</head>
<body>
<main class="chat">
  <div class="you">create a character card</div>
  <div class="assistant">
    <p>Here is a character card to fill in.</p>
    <div class="tool" id="tool">Surfacer</div>
    <iframe id="view" title="Surfacer"></iframe>
  </div>
  <div class="context" id="model-context" aria-live="polite"></div>
  <div class="composer">Reply…</div>
</main>
<script type="module" src="/host.js"></script>
</body>
</html>
`;


/** The host page (its origin is the one the Surfacer server must allow) and the sandbox proxy. */
export type AppsHosts = ViewHosts;

export function startAppsHosts(): Promise<AppsHosts> {
  return startHosts({ page: HOST_PAGE, script: fileURLToPath(new URL('./host-page.ts', import.meta.url)) });
}
