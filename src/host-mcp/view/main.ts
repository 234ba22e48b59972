/// <reference lib="dom" />
/*
 * Surfacer's MCP App view: the document a host shows in a sandboxed iframe next to a Surfacer
 * tool call (view-html.ts bundles this file and inlines it). It talks to the host through the
 * ext-apps `App` (JSON-RPC over postMessage to window.parent) and renders A2UI v0.9 with the
 * official Lit renderer, as the v0.9 A2UI page does (src/host-a2ui/client/v0_9/page.ts): the
 * official MessageProcessor with the basic catalogue (its labelled inputs named by their labels:
 * labels.ts), one <a2ui-surface> per surface it holds, markdown through Lit context.
 *
 * Where results come from: the host's tool-result notification (the model called a Surfacer
 * tool), one catch-up `surfacer_read` after the first one (a view re-opened from the host's
 * history shows the conversation's current surfaces), and the answers to the person's clicks
 * (`surfacer_view_action`). Each is applied the same way (result.ts, planApply).
 *
 * Or, when the server offers it (SURFACER_MCP_VIEW_ORIGIN: a result's `stream.url`) and the host
 * lets the view connect there, the conversation's native A2UI v0.9 stream: from its opening on,
 * it is the source of the surfaces (an init, then every change, whichever door made it, as the
 * v0.9 A2UI page applies them), and results bring only their notice and what to tell the model.
 * A stream that fails before it opens (the host's CSP blocked it, the server is out of reach) is
 * left for good, silently: results are applied as above.
 *
 * Apart from that stream, nothing here makes a network request, and nothing evaluates code: the
 * view runs under the spec's default CSP (default-src 'none', inline script and style only,
 * connect-src 'none'). The App turns zod's JIT off for that (its `allowUnsafeEval` option, false
 * by default).
 */
// Before anything that parses with zod 4 (zod-jitless.ts says why).
import './zod-jitless.ts';
import { renderMarkdown } from '@a2ui/markdown-it';
import { Context, type A2uiSurface } from '@a2ui/lit/v0_9';
import { MessageProcessor, type A2uiClientAction, type A2uiMessage } from '@a2ui/web_core/v0_9';
import { ContextProvider } from '@lit/context';
import {
  App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, PostMessageTransport, type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';
import { labelledBasicCatalog } from './labels.ts';
import {
  createStreamBatcher, messagesBySurface, messageSurfaceId, newIdempotencyKey, planApply, readSurfacerResult, resultText, SURFACER_READ_TOOL,
  SURFACER_VIEW_ACTION_TOOL, VIEW_MESSAGE_VERSION, type SurfacerResult, type TellModel, type ToolResultLike, type WireMessage,
} from './result.ts';

const APP_INFO = { name: 'surfacer-view', version: '1.0.0' };
/** An action may run a planner turn on the server (a language model): give it time. */
const ACTION_TIMEOUT_MS = 180_000;
const READ_TIMEOUT_MS = 60_000;

const TEXT = {
  waiting: 'Waiting for the assistant…',
  working: 'Working…',
  cancelled: 'The assistant stopped before showing anything.',
  empty: 'Nothing is open right now.',
  unreadable: 'The server sent an answer this view cannot read.',
  failed: 'The action could not be sent.',
  refused: 'The server did not apply the action.',
  noHost: 'This view runs inside an assistant that supports MCP Apps.',
} as const;

type ViewState = 'waiting' | 'working' | 'shown' | 'empty' | 'closed';
type NoticeKind = 'info' | 'warning' | 'error';

/** The conversation's A2UI stream the view follows (or is opening). */
interface LiveStream {
  conversationId: string;
  url: string;
  source: EventSource;
  /** Opened at least once: from then on it is the source of the surfaces. */
  open: boolean;
  /** The catch-up read the first result asked for, left to the stream unless it fails to open. */
  catchUp: boolean;
}

interface PendingAction {
  conversationId: string;
  action: A2uiClientAction;
  /** Kept for a retry of the same click, so the server applies it at most once. */
  idempotencyKey: string;
}

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the view's markup has no #${id}`);
  return found;
}

function startView(): void {
  const root = element('sv-app');
  const status = element('sv-status');
  const noticeRegion = element('sv-notice');
  const container = element('sv-surfaces');

  let closed = false;
  let conversationId: string | undefined;
  /** Conversations this view has caught up with (surfacer_read once each). */
  const caughtUp = new Set<string>();
  /** Host tool results applied so far: a catch-up answered after a newer one is not applied. */
  let hostResults = 0;
  /** Surfaces with an action in flight: a second click there is ignored. */
  const busy = new Set<string>();
  /** Server calls run one at a time, in the order they were made. */
  let queue: Promise<unknown> = Promise.resolve();
  let stopResize: (() => void) | undefined;
  let stream: LiveStream | undefined;
  /** Stream URLs that failed before they opened: not tried again (each try would be refused again). */
  const unreachable = new Set<string>();

  // Before any <a2ui-surface> connects: Text asks for the markdown renderer through Lit context.
  new ContextProvider(container, { context: Context.markdown, initialValue: renderMarkdown });

  const processor = new MessageProcessor([labelledBasicCatalog()], (action) => onAction(action), { version: VIEW_MESSAGE_VERSION });
  const elements = new Map<string, A2uiSurface>();
  /** Each held surface's messages as last applied (JSON): a catch-up that repeats them is skipped. */
  const lastApplied = new Map<string, string>();
  processor.onSurfaceCreated((surface) => {
    // The DOM's tag map knows v0.8's <a2ui-surface>; this bundle defines v0.9's.
    const el = document.createElement('a2ui-surface') as unknown as A2uiSurface;
    el.surface = surface;
    el.dataset.surfaceId = surface.id;
    container.append(el);
    elements.set(surface.id, el);
    // A surface created again while its action runs is still busy until the answer.
    if (busy.has(surface.id)) el.setAttribute('aria-busy', 'true');
    surface.onError.subscribe((error: unknown) => log('warning', { surfaceId: surface.id, error }));
  });
  processor.onSurfaceDeleted((surfaceId) => {
    elements.get(surfaceId)?.remove();
    elements.delete(surfaceId);
    lastApplied.delete(surfaceId);
  });

  const app = new App(APP_INFO, { availableDisplayModes: ['inline'] }, { autoResize: false });

  // ---- what the person sees around the surfaces ----

  function setState(state: ViewState): void {
    root.dataset.state = state;
    const text = state === 'waiting' ? TEXT.waiting : state === 'working' ? TEXT.working : state === 'empty' ? TEXT.empty : '';
    if (status.textContent !== text) status.textContent = text;
  }

  /** After a result: the surfaces, or a line saying there are none. */
  function settle(): void {
    setState(elements.size > 0 ? 'shown' : 'empty');
  }

  function showNotice(text: string, kind: NoticeKind, retry?: () => void): void {
    const notice = document.createElement('div');
    notice.className = 'sv-notice';
    notice.dataset.kind = kind;
    const message = document.createElement('p');
    message.className = 'sv-notice__text';
    message.textContent = text;
    notice.append(message);
    if (retry !== undefined) {
      const again = document.createElement('button');
      again.type = 'button';
      again.className = 'sv-notice__button';
      again.textContent = 'Try again';
      again.addEventListener('click', () => {
        clearNotice();
        retry();
      });
      notice.append(again);
    }
    const dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.className = 'sv-notice__dismiss';
    dismiss.setAttribute('aria-label', 'Dismiss');
    dismiss.title = 'Dismiss';
    dismiss.textContent = '×';
    dismiss.addEventListener('click', clearNotice);
    notice.append(dismiss);
    noticeRegion.replaceChildren(notice);
  }

  function clearNotice(): void {
    noticeRegion.replaceChildren();
  }

  function setBusy(surfaceId: string, on: boolean): void {
    if (on) busy.add(surfaceId);
    else busy.delete(surfaceId);
    const el = elements.get(surfaceId);
    if (el === undefined) return;
    if (on) el.setAttribute('aria-busy', 'true');
    else el.removeAttribute('aria-busy');
  }

  /** To the host's log (never the console: a host shows its own). */
  function log(level: 'info' | 'warning' | 'error', data: unknown): void {
    if (closed || app.getHostCapabilities()?.logging === undefined) return;
    void app.sendLog({ level, logger: APP_INFO.name, data: plain(data) }).catch(() => undefined);
  }

  // ---- applying results ----

  function processMessage(message: WireMessage): void {
    try {
      processor.processMessages([message as unknown as A2uiMessage]);
    } catch (error) {
      // One message the processor refuses does not stop the others; the host hears of it.
      log('error', { message: 'A2UI message rejected', surfaceId: messageSurfaceId(message), error });
    }
  }

  /** `current`: a catch-up, whose surfaces that repeat what was last applied are left as they are. */
  function apply(result: SurfacerResult, current = false): void {
    conversationId = result.conversationId;
    const bySurface = messagesBySurface(result.messages);
    const same = new Set<string>();
    if (current) {
      for (const [surfaceId, messages] of bySurface) if (lastApplied.get(surfaceId) === JSON.stringify(messages)) same.add(surfaceId);
    }
    const plan = planApply(processor.model.surfacesMap.keys(), result, VIEW_MESSAGE_VERSION, same);
    for (const message of [...plan.before, ...plan.messages, ...plan.after]) processMessage(message);
    for (const [surfaceId, messages] of bySurface) {
      if (elements.has(surfaceId) && !same.has(surfaceId)) lastApplied.set(surfaceId, JSON.stringify(messages));
    }
    if (result.liveSurfaceIds !== undefined) order(result.liveSurfaceIds);
    settle();
  }

  /** A result's surfaces, unless the conversation's stream is the source of them. */
  function show(result: SurfacerResult): void {
    if (live(result.conversationId)) conversationId = result.conversationId;
    else apply(result);
  }

  // ---- the conversation's stream (when the server offers one) ----

  function live(cid: string): boolean {
    return stream !== undefined && stream.open && stream.conversationId === cid;
  }

  /** Opens the stream a result names, replaces one of another conversation; true when a catch-up is left to it. */
  function follow(result: SurfacerResult, wantsCatchUp: boolean): boolean {
    if (stream !== undefined && stream.conversationId !== result.conversationId) stopStream();
    const url = result.streamUrl;
    if (url === undefined || stream !== undefined || unreachable.has(url)) return false;
    let source: EventSource;
    try {
      source = new EventSource(url);
    } catch (error) {
      unreachable.add(url);
      log('info', { message: 'the conversation\'s stream could not be opened: tool results only', error });
      return false;
    }
    const following: LiveStream = { conversationId: result.conversationId, url, source, open: false, catchUp: wantsCatchUp };
    stream = following;
    const batches = createStreamBatcher();
    /** The first batch of this connection is a full init: what the view held before goes. */
    let first = true;
    source.onopen = () => {
      if (stream !== following) return;
      // (Again after a reconnect: the server resumes, catches up or re-initialises from Last-Event-ID.)
      batches.reset();
      if (following.open) return;
      following.open = true;
      following.catchUp = false;
      // What results applied no longer describes the held surfaces: a later catch-up skips none.
      lastApplied.clear();
      root.dataset.stream = 'live';
    };
    source.onmessage = (event: MessageEvent<string>) => {
      if (closed || stream !== following) return;
      const batch = batches.push(event.data, event.lastEventId);
      if (batch === undefined) return;
      if (batch.unreadable > 0) log('error', { message: 'unreadable A2UI stream message', count: batch.unreadable });
      const clear = first && batch.init;
      first = false;
      if (clear) for (const surfaceId of [...processor.model.surfacesMap.keys()]) processMessage({ version: VIEW_MESSAGE_VERSION, deleteSurface: { surfaceId } });
      for (const message of batch.messages) processMessage(message);
      settle();
    };
    source.onerror = () => {
      if (stream !== following) return;
      if (!following.open) {
        // Blocked or refused before it opened: results stay the source, as without a stream.
        unreachable.add(url);
        stopStream();
        if (following.catchUp) void catchUp(following.conversationId);
      } else if (source.readyState === EventSource.CLOSED) {
        // The server refused a reconnect: back to results, from the conversation as it is now.
        stopStream();
        void catchUp(following.conversationId);
      }
      // Otherwise the browser reconnects by itself.
    };
    return wantsCatchUp;
  }

  function stopStream(): void {
    stream?.source.close();
    stream = undefined;
    delete root.dataset.stream;
  }

  /** The surfaces in the server's order (a surface created again would otherwise move to the end). */
  function order(ids: readonly string[]): void {
    let index = 0;
    for (const id of ids) {
      const el = elements.get(id);
      if (el === undefined) continue;
      const at = container.children[index];
      if (at !== el) container.insertBefore(el, at ?? null);
      index += 1;
    }
  }

  function enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  }

  async function tell(message: TellModel): Promise<void> {
    const content = [{ type: 'text' as const, text: message.text }];
    try {
      if (message.kind === 'context') await app.updateModelContext({ content });
      else await app.sendMessage({ role: 'user', content });
    } catch (error) {
      log('warning', { message: `the host refused ${message.kind === 'context' ? 'ui/update-model-context' : 'ui/message'}`, error });
    }
  }

  async function catchUp(cid: string): Promise<void> {
    const seen = hostResults;
    let answer: ToolResultLike;
    try {
      answer = await enqueue(() => app.callServerTool(
        { name: SURFACER_READ_TOOL, arguments: { conversationId: cid } }, { timeout: READ_TIMEOUT_MS },
      ));
    } catch (error) {
      // The view keeps what the tool result showed.
      log('warning', { message: `${SURFACER_READ_TOOL} failed`, error });
      return;
    }
    // A newer tool result, or another conversation, came in meanwhile: this answer is older. Or
    // the stream opened: it brought the surfaces as they are.
    if (closed || hostResults !== seen || conversationId !== cid || live(cid)) return;
    const result = readSurfacerResult(answer);
    if (result === undefined || result.conversationId !== cid) {
      log('warning', { message: `${SURFACER_READ_TOOL} answered without surfaces`, text: resultText(answer) });
      return;
    }
    // The surfaces the tool result already showed as they are now stay as the person left them.
    apply(result, true);
  }

  function onHostResult(params: ToolResultLike): void {
    if (closed) return;
    const result = readSurfacerResult(params);
    if (result === undefined) {
      // An error, or another tool's result: nothing to show, nothing broken.
      if (elements.size === 0 && root.dataset.state === 'working') setState('waiting');
      return;
    }
    hostResults += 1;
    const first = !caughtUp.has(result.conversationId);
    caughtUp.add(result.conversationId);
    const leftToStream = follow(result, first);
    show(result);
    if (result.notice !== undefined) showNotice(result.notice, noticeKind(result));
    if (first && !leftToStream) void catchUp(result.conversationId);
  }

  // ---- a person's click ----

  function onAction(action: A2uiClientAction): void {
    if (closed || conversationId === undefined || busy.has(action.surfaceId)) return;
    void send({ conversationId, action, idempotencyKey: newIdempotencyKey(crypto) });
  }

  async function send(pending: PendingAction): Promise<void> {
    const { surfaceId } = pending.action;
    if (closed || busy.has(surfaceId)) return;
    setBusy(surfaceId, true);
    clearNotice();
    try {
      let answer: ToolResultLike;
      try {
        answer = await enqueue(() => app.callServerTool({
          name: SURFACER_VIEW_ACTION_TOOL,
          arguments: {
            conversationId: pending.conversationId,
            message: { version: VIEW_MESSAGE_VERSION, action: pending.action },
            idempotencyKey: pending.idempotencyKey,
          },
        }, { timeout: ACTION_TIMEOUT_MS }));
      } catch (error) {
        if (!closed) showNotice(errorText(error) ?? TEXT.failed, 'error', () => void send(pending));
        return;
      }
      if (closed) return;
      if (answer.isError === true) {
        showNotice(resultText(answer) ?? TEXT.refused, 'error');
        return;
      }
      const result = readSurfacerResult(answer);
      if (result === undefined) {
        showNotice(resultText(answer) ?? TEXT.unreadable, 'error');
        return;
      }
      show(result);
      if (result.notice !== undefined) showNotice(result.notice, noticeKind(result));
      if (result.tellModel !== undefined) await tell(result.tellModel);
    } finally {
      setBusy(surfaceId, false);
    }
  }

  // ---- the host ----

  function applyHostContext(context: Partial<McpUiHostContext> | undefined): void {
    if (context === undefined) return;
    if (context.theme === 'light' || context.theme === 'dark') applyDocumentTheme(context.theme);
    const styles = context.styles;
    if (styles?.variables !== undefined) applyHostStyleVariables(styles.variables);
    if (typeof styles?.css?.fonts === 'string' && styles.css.fonts !== '') applyHostFonts(styles.css.fonts);
    const insets = context.safeAreaInsets;
    if (insets !== undefined) {
      for (const side of ['top', 'right', 'bottom', 'left'] as const) root.style.setProperty(`--sv-inset-${side}`, `${insets[side]}px`);
    }
    const dimensions = context.containerDimensions as { height?: number } | undefined;
    if (dimensions !== undefined) root.classList.toggle('sv--fixed-height', typeof dimensions.height === 'number');
  }

  function release(): void {
    closed = true;
    stopStream();
    stopResize?.();
    stopResize = undefined;
    busy.clear();
    for (const surfaceId of [...processor.model.surfacesMap.keys()]) processMessage({ version: VIEW_MESSAGE_VERSION, deleteSurface: { surfaceId } });
    processor.model.dispose();
    container.replaceChildren();
    clearNotice();
    setState('closed');
  }

  // Every handler before connect(): the host may send the tool input and result right after the handshake.
  app.addEventListener('toolinput', () => {
    if (!closed && elements.size === 0) setState('working');
  });
  app.addEventListener('toolresult', (params) => onHostResult(params));
  app.addEventListener('toolcancelled', () => {
    if (closed || elements.size > 0) return;
    setState('waiting');
    showNotice(TEXT.cancelled, 'info');
  });
  app.addEventListener('hostcontextchanged', (params) => applyHostContext(params));
  app.onteardown = () => {
    release();
    return {};
  };

  setState('waiting');
  app.connect(new PostMessageTransport(window.parent, window.parent)).then(() => {
    if (closed) return;
    applyHostContext(app.getHostContext());
    // Not the App's autoResize: its observer could not be stopped at teardown.
    stopResize = app.setupSizeChangedNotifications();
  }, () => {
    // No host answered (the document opened on its own): say where it belongs.
    status.textContent = TEXT.noHost;
  });
}

function noticeKind(result: SurfacerResult): NoticeKind {
  return result.outcome === 'stale' || result.outcome === 'refused' ? 'warning' : 'info';
}

function errorText(error: unknown): string | undefined {
  if (error instanceof Error && error.message !== '') return error.message;
  return typeof error === 'string' && error !== '' ? error : undefined;
}

/** A value the host's log can carry (JSON): errors as their name and message. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (v instanceof Error ? `${v.name}: ${v.message}` : v)) ?? 'null');
}

startView();
