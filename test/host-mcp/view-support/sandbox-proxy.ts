/// <reference lib="dom" />
/*
 * The sandbox proxy of the test's host (bundled and served at /sandbox.js on the sandbox origin,
 * which is not the host page's): the spec's "Sandbox proxy" for web hosts, as
 * examples/basic-host/src/sandbox.ts of modelcontextprotocol/ext-apps does it. It tells the
 * host it is ready, loads the HTML of `ui/notifications/sandbox-resource-ready` into an inner
 * iframe, and relays every other message both ways. The view's CSP is the one this proxy's
 * document was served with (an HTTP header, server.ts): the inner document is a srcdoc, which
 * inherits its parent's policy. Unlike basic-host (allow-scripts allow-same-origin, then
 * document.write), the inner iframe gets the resource's `sandbox` (the test sends
 * `allow-scripts`): an opaque origin, so srcdoc rather than document.write.
 */
const READY = 'ui/notifications/sandbox-proxy-ready';
const RESOURCE = 'ui/notifications/sandbox-resource-ready';

if (window.self === window.top) throw new Error('the sandbox proxy only runs in an iframe');
const hostOrigin = new URL(document.referrer).origin;

const inner = document.createElement('iframe');
inner.title = 'Surfacer';
inner.setAttribute('sandbox', 'allow-scripts');
document.body.append(inner);

window.addEventListener('message', (event: MessageEvent) => {
  const data = event.data as { method?: unknown; params?: { html?: unknown; sandbox?: unknown } } | null;
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (data?.method === RESOURCE) {
      if (typeof data.params?.sandbox === 'string') inner.setAttribute('sandbox', data.params.sandbox);
      if (typeof data.params?.html === 'string') inner.srcdoc = data.params.html;
      return;
    }
    if (typeof data?.method === 'string' && data.method.startsWith('ui/notifications/sandbox-')) return;
    inner.contentWindow?.postMessage(data, '*');
  } else if (event.source === inner.contentWindow) {
    // An opaque origin ("null"): the source is what identifies the view.
    window.parent.postMessage(data, hostOrigin);
  }
});

window.parent.postMessage({ jsonrpc: '2.0', method: READY, params: {} }, hostOrigin);
