/// <reference lib="dom" />
import { PostMessageTransport, type AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';

/*
 * What both test hosts (view-support/host-page.ts answering from fixtures, apps-e2e/host-page.ts
 * forwarding to a real server) do with their AppBridge the same way, as examples/basic-host does:
 * record what the view tells the host, size the iframe to the view, load the sandbox proxy, and
 * hand it the view's HTML.
 */

type Json = Record<string, unknown>;

/** What the view told the host. */
export interface ViewReports {
  modelContext: Json[];
  messages: Json[];
  logs: Json[];
  sizes: Array<{ width?: number; height?: number }>;
}

/** Records the view's notifications and requests into `reports` (`onModelContext` sees each context update too). */
export function recordViewReports(bridge: AppBridge, iframe: HTMLIFrameElement, reports: ViewReports, onModelContext?: (params: Json) => void): void {
  bridge.onupdatemodelcontext = async (params) => {
    reports.modelContext.push(params as Json);
    onModelContext?.(params as Json);
    return {};
  };
  bridge.onmessage = async (params) => {
    reports.messages.push(params as Json);
    return {};
  };
  bridge.onloggingmessage = (params) => {
    reports.logs.push(params as Json);
  };
  bridge.onsizechange = ({ width, height }) => {
    reports.sizes.push({ width, height });
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
}

/** Loads the sandbox proxy and resolves when it says it is ready (before the bridge connects, as basic-host does). */
function loadSandboxProxy(iframe: HTMLIFrameElement, url: string): Promise<void> {
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  const ready = new Promise<void>((resolve) => {
    const listener = ({ source, data }: MessageEvent) => {
      if (source === iframe.contentWindow && (data as { method?: unknown } | null)?.method === 'ui/notifications/sandbox-proxy-ready') {
        window.removeEventListener('message', listener);
        resolve();
      }
    };
    window.addEventListener('message', listener);
  });
  iframe.src = url;
  return ready;
}

/** The sandbox proxy in `iframe`, the bridge connected to it, the view's HTML loaded with scripts only (an opaque origin); resolves once the view initialised. */
export async function openView(bridge: AppBridge, iframe: HTMLIFrameElement, sandboxUrl: string, html: string): Promise<void> {
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await loadSandboxProxy(iframe, sandboxUrl);
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  await bridge.sendSandboxResourceReady({ html, sandbox: 'allow-scripts' });
  await initialized;
}
