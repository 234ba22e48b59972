/// <reference lib="dom" />
/*
 * Browser entry of the A2UI page (bundled by client-bundle.ts). Mounts the official Lit v0.8
 * renderer: one signal-backed processor, theme and markdown renderer provided through Lit
 * context on the surfaces container, one <a2ui-surface> per rendered surface. Messages arrive
 * over SSE (one A2UI message per event); user actions go back as spec `userAction` bodies.
 */
import { renderMarkdown } from '@a2ui/markdown-it';
import { Context, type Surface as SurfaceElement } from '@a2ui/lit/ui';
import { Data, type Types } from '@a2ui/lit/v0_8';
import { ContextProvider } from '@lit/context';
import { buildProcessingError, buildUserAction, messageSurfaceId, newIdempotencyKey, type ActionDetail } from './actions.ts';
import { surfacerTheme } from './theme.ts';

const STALE_MESSAGE = 'UI is out of date. Please regenerate.';
const MAX_BACKOFF_MS = 30_000;
const INIT_START = /-i0$/;

const app = document.getElementById('a2ui-app');
const statusLine = document.getElementById('a2ui-status');
const notice = document.getElementById('a2ui-notice');
const container = document.getElementById('a2ui-surfaces');
if (app === null || statusLine === null || notice === null || container === null) {
  throw new Error('A2UI page markup is missing');
}
const streamUrl = app.dataset.streamUrl ?? '';
const eventsUrl = app.dataset.eventsUrl ?? '';
const token = app.dataset.token || undefined;

// Providers must exist before any <a2ui-surface> connects and asks for its context.
new ContextProvider(container, { context: Context.themeContext, initialValue: surfacerTheme });
new ContextProvider(container, { context: Context.markdown, initialValue: renderMarkdown });

const processor = Data.createSignalA2uiMessageProcessor();
const elements = new Map<string, SurfaceElement>();
let source: EventSource | undefined;
let lastEventId = '';
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let backoffMs = 1_000;
let syncScheduled = false;

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
  const url = new URL(streamUrl, location.href);
  if (token !== undefined) url.searchParams.set('token', token);
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
    // First message of a (re)initialisation (src/host-a2ui/event-id.ts): the server could not
    // resume us, so anything this page holds may be gone there. Its deleteSurface list covers
    // what it knows of; this covers the rest (e.g. surfaces from before a server restart).
    if (INIT_START.test(event.lastEventId)) processor.clearSurfaces();
    handleMessage(event.data);
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

function handleMessage(data: string): void {
  let message: unknown;
  try {
    message = JSON.parse(data);
    processor.processMessages([message as Types.ServerToClientMessage]);
  } catch (error) {
    console.error('A2UI message rejected', error);
    void post(buildProcessingError(messageSurfaceId(message), error), 'error');
  }
  scheduleSync();
}

// Several messages usually arrive together (an init, a batch): reconcile the DOM once.
function scheduleSync(): void {
  if (syncScheduled) return;
  syncScheduled = true;
  setTimeout(() => {
    syncScheduled = false;
    syncSurfaces();
  }, 0);
}

function syncSurfaces(): void {
  const surfaces = processor.getSurfaces();
  for (const [surfaceId, surface] of surfaces) {
    let element = elements.get(surfaceId);
    if (element === undefined) {
      element = document.createElement('a2ui-surface');
      element.surfaceId = surfaceId;
      element.processor = processor;
      element.dataset.surfaceId = surfaceId;
      container!.append(element);
      elements.set(surfaceId, element);
    }
    // deleteSurface + re-init creates a new Surface object under the same id.
    if (element.surface !== surface) element.surface = surface;
  }
  for (const [surfaceId, element] of elements) {
    if (!surfaces.has(surfaceId)) {
      element.remove();
      elements.delete(surfaceId);
    }
  }
}

function reinitialise(): void {
  processor.clearSurfaces();
  syncSurfaces();
  connect(false);
}

async function post(body: unknown, kind: 'action' | 'error'): Promise<void> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Surfacer-Client': 'a2ui',
    'Idempotency-Key': newIdempotencyKey((bytes) => crypto.getRandomValues(bytes)),
  };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
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

/** The canonical error object's user-facing `message`, bare or under `error`. */
function errorMessage(payload: unknown): string | undefined {
  if (payload === null || typeof payload !== 'object') return undefined;
  const record = payload as { message?: unknown; error?: { message?: unknown } };
  if (typeof record.message === 'string') return record.message;
  if (typeof record.error?.message === 'string') return record.error.message;
  return undefined;
}

container.addEventListener('a2uiaction', (event) => {
  // composedPath() is only filled while the event is being dispatched.
  const surfaceElement = event.composedPath().find(
    (node): node is SurfaceElement => node instanceof HTMLElement && node.tagName === 'A2UI-SURFACE',
  );
  const surfaceId = surfaceElement?.surfaceId;
  if (typeof surfaceId !== 'string') return;
  const body = buildUserAction(processor, surfaceId, event.detail as ActionDetail, new Date());
  void post(body, 'action');
});

connect(false);
