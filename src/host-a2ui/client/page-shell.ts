/// <reference lib="dom" />
/*
 * What the v0.8 and the v0.9 pages share around their renderer (each page is its own bundle:
 * the two official renderers define the same element names): the markup the server rendered
 * (page.ts), the SSE connection with its resume and backoff, the status line and notice, and
 * the POST of client messages with the answer's handling (409 → "out of date" and a fresh init).
 */
import { newIdempotencyKey } from './client-messages.ts';
import { startComposer } from './composer.ts';

const STALE_MESSAGE = 'UI is out of date. Please regenerate.';
const MAX_BACKOFF_MS = 30_000;
/** First message of an init or catch-up (src/host-a2ui/event-id.ts): the server could not resume us. */
const INIT_START = /-i0$/;

export interface Renderer {
  /** One message's JSON text from the stream. */
  handleMessage(data: string): void;
  /** Forget every surface (before a fresh init). */
  clearSurfaces(): void;
}

export interface PageShell {
  /** The surfaces container (renderers add their surface elements here). */
  readonly container: HTMLElement;
  /** `data-a2ui-version` of the page (v0.9 pages), if any. */
  readonly messageVersion: string | undefined;
  /** Opens the stream; with `resume`, from the last event id seen. */
  connect(resume: boolean): void;
  /** Sends one client message; an `error` report is fire-and-forget. */
  post(body: unknown, kind: 'action' | 'error'): Promise<void>;
}

export function startPageShell(renderer: (shell: Pick<PageShell, 'container' | 'messageVersion' | 'post'>) => Renderer): PageShell {
  const app = document.getElementById('a2ui-app');
  const statusLine = document.getElementById('a2ui-status');
  const notice = document.getElementById('a2ui-notice');
  const container = document.getElementById('a2ui-surfaces');
  if (app === null || statusLine === null || notice === null || container === null) {
    throw new Error('A2UI page markup is missing');
  }
  const streamUrl = app.dataset.streamUrl ?? '';
  const eventsUrl = app.dataset.eventsUrl ?? '';
  const messageVersion = app.dataset.a2uiVersion || undefined;

  let source: EventSource | undefined;
  let lastEventId = '';
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let backoffMs = 1_000;

  function setStatus(state: 'connecting' | 'connected' | 'reconnecting' | 'offline', text: string): void {
    statusLine!.dataset.state = state;
    statusLine!.textContent = text;
  }

  function showNotice(text: string | undefined): void {
    notice!.textContent = text ?? '';
    notice!.hidden = text === undefined;
  }

  function connect(resume: boolean): void {
    clearTimeout(retryTimer);
    source?.close();
    // Same origin: the session cookie authenticates the stream (never a token in the URL).
    const url = new URL(streamUrl, location.href);
    if (resume && lastEventId !== '') url.searchParams.set('lastEventId', lastEventId);
    if (!resume) lastEventId = '';
    const es = new EventSource(url);
    source = es;
    setStatus(resume ? 'reconnecting' : 'connecting', resume ? 'Reconnecting…' : 'Connecting…');
    es.onopen = () => {
      backoffMs = 1_000;
      setStatus('connected', 'Connected');
    };
    es.onmessage = (event: MessageEvent<string>) => {
      if (event.lastEventId !== '') lastEventId = event.lastEventId;
      // A (re)initialisation: anything this page holds may be gone on the server. Its
      // deleteSurface list covers what the server knows of; this covers the rest (e.g.
      // surfaces from before a server restart).
      if (INIT_START.test(event.lastEventId)) shown.clearSurfaces();
      shown.handleMessage(event.data);
    };
    es.onerror = () => {
      if (es !== source) return;
      if (es.readyState === EventSource.CLOSED) {
        // The browser gave up (HTTP error or wrong type): retry ourselves, resuming if we can.
        setStatus('offline', `Disconnected. Retrying in ${Math.round(backoffMs / 1000)} s…`);
        retryTimer = setTimeout(() => connect(true), backoffMs);
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      } else {
        setStatus('reconnecting', 'Reconnecting…');
      }
    };
  }

  function reinitialise(): void {
    shown.clearSurfaces();
    connect(false);
  }

  async function post(body: unknown, kind: 'action' | 'error'): Promise<void> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'X-Surfacer-Client': 'a2ui',
      'Idempotency-Key': newIdempotencyKey((bytes) => crypto.getRandomValues(bytes)),
    };
    let response: Response;
    try {
      response = await fetch(eventsUrl, { method: 'POST', headers, body: JSON.stringify(body), credentials: 'same-origin' });
    } catch {
      if (kind === 'action') showNotice('Could not reach the server. Please try again.');
      return;
    }
    // Error reports are fire-and-forget: the server recovers by re-initialising the stream.
    if (kind === 'error') return;
    if (response.status === 409) {
      showNotice(STALE_MESSAGE);
      reinitialise();
      return;
    }
    if (!response.ok) {
      const payload: unknown = await response.json().catch(() => undefined);
      showNotice(errorMessage(payload) ?? `The server refused the action (HTTP ${response.status}).`);
      return;
    }
    showNotice(undefined);
  }

  const shown = renderer({ container, messageVersion, post });
  startComposer();
  return { container, messageVersion, connect, post };
}

/** The canonical error object's user-facing `message`, bare or under `error`. */
function errorMessage(payload: unknown): string | undefined {
  if (payload === null || typeof payload !== 'object') return undefined;
  const record = payload as { message?: unknown; error?: { message?: unknown } };
  if (typeof record.message === 'string') return record.message;
  if (typeof record.error?.message === 'string') return record.error.message;
  return undefined;
}
