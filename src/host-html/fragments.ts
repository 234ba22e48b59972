import type { ComponentRegistry } from '../app-kit/component.ts';
import { compileConversationToHtml, compileRegenerateForm, compileSurfaceToHtml, type HtmlCompileOptions } from '../compiler/html/index.ts';
import type { ResolvedAppTexts } from '../conversation/index.ts';
import { addedTranscriptEntries, findLiveSurface, findSurface, surfaceToast, type ConversationIr, type Toast, type TranscriptEntry } from '../ui-ir/index.ts';
import type { Views } from './views.ts';

/** What every fragment of one conversation page needs. */
export interface PageContext {
  views: Views;
  cid: string;
  base: string;
  csrf: string;
  plannerLabel: string;
  maxMessageLength: number;
  /** What the app's pages say (placeholder, empty state, hints), defaults filled in. */
  texts: ResolvedAppTexts;
  /**
   * Names the rendering the fragments belong to: the page (tab) that asked, or a fresh token.
   * Goes into the forms' idempotency keys, so two tabs never share one (HtmlCompileOptions).
   */
  renderId: string;
  /** The app's components: the htmx page is the app's own, so it always shows their HTML renderings. */
  components?: ComponentRegistry | undefined;
  /** The names of the app's actions (its ingress allowlist): the page offers no control the ingress would refuse. */
  actions: readonly string[];
}

/** How this page's surfaces are compiled: its CSRF token, its routes, its rendering, the app's actions and components. */
export function compileOptions(pc: PageContext): HtmlCompileOptions {
  return {
    csrfToken: pc.csrf, basePath: pc.base, renderId: pc.renderId, allowedActions: pc.actions,
    ...(pc.components === undefined ? {} : { components: pc.components }),
  };
}

/** The paragraph shown while no panel is open (CSS hides it beside any surface). */
export function emptyStateHtml(pc: PageContext): string {
  return pc.views.render('partials/empty-state', { text: pc.texts.emptyState, hints: pc.texts.hints });
}

const ROLE_LABELS: Record<TranscriptEntry['role'], string> = { user: 'You', assistant: 'Assistant', system: 'Note' };

export function transcriptHtml(pc: PageContext, entries: readonly TranscriptEntry[]): string {
  return entries.map((entry) => pc.views.render('partials/transcript-entry', { entry: { ...entry, roleLabel: ROLE_LABELS[entry.role] } })).join('');
}

export function transcriptViewModel(entries: readonly TranscriptEntry[]): Array<TranscriptEntry & { roleLabel: string }> {
  return entries.map((entry) => ({ ...entry, roleLabel: ROLE_LABELS[entry.role] }));
}

import { recentTranscript } from '../hosting/index.ts';

export { PAGE_MESSAGES, recentTranscript } from '../hosting/index.ts';

export function composerData(pc: PageContext, options: { text?: string; autofocus?: boolean } = {}): object {
  return {
    action: `${pc.base}/messages`, cancelAction: `${pc.base}/messages/cancel`, csrf: pc.csrf,
    maxLength: pc.maxMessageLength, text: options.text ?? '', autofocus: options.autofocus ?? false,
    placeholder: pc.texts.placeholder,
  };
}

export function messageFormHtml(pc: PageContext, options: { text?: string; autofocus?: boolean } = {}): string {
  return pc.views.render('partials/message-form', composerData(pc, options));
}

/** Empties the page's alerts: a success answers whatever they said (e.g. "Please type a message."). */
export const CLEAR_ALERTS_HTML = '<div id="alerts" class="alerts" role="alert" hx-swap-oob="true"></div>';

/**
 * The page's status line. `quiet`: the text is already on screen where the person looks (the
 * panel's own message), so the line keeps it for screen readers only (a live region, visually
 * hidden): it is never shown twice.
 */
export function statusHtml(pc: PageContext, text: string, quiet = false): string {
  return pc.views.render('partials/status', { text, oob: true, quiet });
}

/** True when panel `surfaceId` of `ir` shows `text` as its own message (its toast, /ui/toast). */
export function panelShows(ir: ConversationIr, surfaceId: string, text: string): boolean {
  const surface = findSurface(ir, surfaceId);
  // A closed panel is rendered empty and hidden: its toast is not on screen.
  return surface !== undefined && surface.lifecycle !== 'deleted' && surfaceToast(surface)?.text === text;
}

export function surfacesHtml(pc: PageContext, ir: ConversationIr): string {
  return compileConversationToHtml(ir, compileOptions(pc)).html;
}

export function surfaceHtml(pc: PageContext, ir: ConversationIr, surfaceId: string): string {
  return compileSurfaceToHtml(ir, surfaceId, compileOptions(pc)) ?? '';
}

export function regenerateHtml(pc: PageContext, ir: ConversationIr, surfaceId: string): string | undefined {
  return findLiveSurface(ir, surfaceId) ? compileRegenerateForm(ir, surfaceId, compileOptions(pc)) : undefined;
}

export function alertHtml(pc: PageContext, alert: AlertData): string {
  return pc.views.render('partials/alert', alert);
}

export interface AlertData {
  level: 'info' | 'success' | 'warning' | 'error';
  text: string;
  code?: string;
  issues?: string[];
  regenerateHtml?: string;
  reload?: string;
}

function toastsHtml(pc: PageContext, toasts: readonly Toast[]): string {
  return toasts.map((toast) => pc.views.render('partials/toast', { toast })).join('');
}

/**
 * Out-of-band fragments for what changed between two IRs: changed surfaces replaced whole
 * (outerHTML by id), new surfaces appended, new transcript entries and page-level toasts
 * appended, and the status line (`quietStatus`: for screen readers only, see statusHtml). Surface
 * toasts travel inside their surface (`/ui/toast`).
 */
export function changesHtml(
  pc: PageContext, prev: ConversationIr, next: ConversationIr,
  options: { skipSurface?: string; status?: string; quietStatus?: boolean; clearAlerts?: boolean } = {},
): string {
  const parts: string[] = [];
  const opts = compileOptions(pc);
  for (const surface of next.surfaces) {
    if (surface.id === options.skipSurface) continue;
    const before = findSurface(prev, surface.id);
    if (before === surface) continue;
    if (before === undefined) {
      parts.push(`<div hx-swap-oob="beforeend:#surfaces">${compileSurfaceToHtml(next, surface.id, opts) ?? ''}</div>`);
    } else {
      parts.push(compileSurfaceToHtml(next, surface.id, { ...opts, oob: 'true' }) ?? '');
    }
  }
  // Actions leave the transcript as it was (the same array): no need to look at its entries.
  const entries = addedTranscriptEntries(prev.transcript, next.transcript);
  if (entries.length > 0) parts.push(`<div hx-swap-oob="beforeend:#transcript">${transcriptHtml(pc, entries)}</div>`);
  const toasts = addedItems(prev.toasts, next.toasts).filter((t) => t.surfaceId === undefined);
  if (toasts.length > 0) parts.push(`<div hx-swap-oob="beforeend:#toasts">${toastsHtml(pc, toasts)}</div>`);
  if (options.status !== undefined) parts.push(statusHtml(pc, options.status, options.quietStatus));
  if (options.clearAlerts === true) parts.push(CLEAR_ALERTS_HTML);
  return parts.join('\n');
}

/**
 * Items of `next` whose id is not in `prev`, in order. Toasts (at most 20) are appended with the
 * oldest dropped, so `next` starts with `prev`'s own last items: those are skipped by identity
 * and only what follows is looked up, where a Set of `prev`'s ids built on every action cost
 * more than the rest of the page's changes.
 */
export function addedItems<T extends { id: string }>(prev: readonly T[], next: readonly T[]): T[] {
  const last = prev.length === 0 ? -1 : next.lastIndexOf(prev[prev.length - 1]!);
  let shared = last >= 0;
  for (let i = 0; shared && i <= last; i++) shared = next[i] === prev[prev.length - 1 - last + i];
  const out: T[] = [];
  for (let i = shared ? last + 1 : 0; i < next.length; i++) {
    const item = next[i]!;
    if (!prev.some((p) => p.id === item.id)) out.push(item);
  }
  return out;
}

/** Everything, replaced whole: for a page that may have missed updates (SSE (re)connect). */
export function refreshHtml(pc: PageContext, ir: ConversationIr): string {
  return [
    `<ol id="transcript" hx-swap-oob="innerHTML">${transcriptHtml(pc, recentTranscript(ir.transcript).entries)}</ol>`,
    `<div id="surfaces" hx-swap-oob="innerHTML">${emptyStateHtml(pc)}${surfacesHtml(pc, ir)}</div>`,
  ].join('\n');
}
