import { compileConversationToHtml, compileRegenerateForm, compileSurfaceToHtml } from '../compiler/html/index.ts';
import { findLiveSurface, findSurface, type ConversationIr, type Toast, type TranscriptEntry } from '../ui-ir/index.ts';
import type { Views } from './views.ts';

/** What every fragment of one conversation page needs. */
export interface PageContext {
  views: Views;
  cid: string;
  base: string;
  csrf: string;
  plannerLabel: string;
  maxMessageLength: number;
}

const ROLE_LABELS: Record<TranscriptEntry['role'], string> = { user: 'You', assistant: 'Assistant', system: 'Note' };

export function transcriptHtml(pc: PageContext, entries: readonly TranscriptEntry[]): string {
  return entries.map((entry) => pc.views.render('partials/transcript-entry', { entry: { ...entry, roleLabel: ROLE_LABELS[entry.role] } })).join('');
}

export function transcriptViewModel(entries: readonly TranscriptEntry[]): Array<TranscriptEntry & { roleLabel: string }> {
  return entries.map((entry) => ({ ...entry, roleLabel: ROLE_LABELS[entry.role] }));
}

export function composerData(pc: PageContext, options: { text?: string; autofocus?: boolean } = {}): object {
  return {
    action: `${pc.base}/messages`, cancelAction: `${pc.base}/messages/cancel`, csrf: pc.csrf,
    plannerLabel: pc.plannerLabel, maxLength: pc.maxMessageLength, text: options.text ?? '', autofocus: options.autofocus ?? false,
  };
}

export function messageFormHtml(pc: PageContext, options: { text?: string; autofocus?: boolean } = {}): string {
  return pc.views.render('partials/message-form', composerData(pc, options));
}

export function statusHtml(pc: PageContext, text: string): string {
  return pc.views.render('partials/status', { text, oob: true });
}

export function surfacesHtml(pc: PageContext, ir: ConversationIr): string {
  return compileConversationToHtml(ir, { csrfToken: pc.csrf, basePath: pc.base }).html;
}

export function surfaceHtml(pc: PageContext, ir: ConversationIr, surfaceId: string): string {
  return compileSurfaceToHtml(ir, surfaceId, { csrfToken: pc.csrf, basePath: pc.base }) ?? '';
}

export function regenerateHtml(pc: PageContext, ir: ConversationIr, surfaceId: string): string | undefined {
  return findLiveSurface(ir, surfaceId) ? compileRegenerateForm(ir, surfaceId, { csrfToken: pc.csrf, basePath: pc.base }) : undefined;
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
 * appended, and the status line. Surface toasts travel inside their surface (`/ui/toast`).
 */
export function changesHtml(
  pc: PageContext, prev: ConversationIr, next: ConversationIr, options: { skipSurface?: string; status?: string } = {},
): string {
  const parts: string[] = [];
  const opts = { csrfToken: pc.csrf, basePath: pc.base };
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
  const entries = next.transcript === prev.transcript ? [] : added(prev.transcript, next.transcript);
  if (entries.length > 0) parts.push(`<div hx-swap-oob="beforeend:#transcript">${transcriptHtml(pc, entries)}</div>`);
  const toasts = added(prev.toasts, next.toasts).filter((t) => t.surfaceId === undefined);
  if (toasts.length > 0) parts.push(`<div hx-swap-oob="beforeend:#toasts">${toastsHtml(pc, toasts)}</div>`);
  if (options.status !== undefined) parts.push(statusHtml(pc, options.status));
  return parts.join('\n');
}

/** Items of `next` whose id is not in `prev`, in order. */
function added<T extends { id: string }>(prev: readonly T[], next: readonly T[]): T[] {
  const known = new Set(prev.map((item) => item.id));
  return next.filter((item) => !known.has(item.id));
}

/** Everything, replaced whole: for a page that may have missed updates (SSE (re)connect). */
export function refreshHtml(pc: PageContext, ir: ConversationIr): string {
  return [
    `<ol id="transcript" hx-swap-oob="innerHTML">${transcriptHtml(pc, ir.transcript)}</ol>`,
    `<div id="surfaces" hx-swap-oob="innerHTML"><p class="surfaces__empty">No panels yet. Ask for one, for example “create a character card”.</p>${surfacesHtml(pc, ir)}</div>`,
  ].join('\n');
}
