import type { Context } from 'hono';
import { httpStatusOf, retryAfterOf, type SurfacerError } from '../errors/index.ts';
import { alertHtml, type AlertData, type PageContext } from './fragments.ts';

/** Who is asking: htmx (fragments), a JSON client (canonical objects) or a plain browser form. */
export type ClientKind = 'htmx' | 'json' | 'html';

export function clientKind(c: Context): ClientKind {
  if (c.req.header('HX-Request') === 'true') return 'htmx';
  const accept = c.req.header('Accept') ?? '';
  if (accept.includes('application/json') && !accept.includes('text/html')) return 'json';
  return 'html';
}

export function statusFor(error: SurfacerError, status?: number): number {
  return status ?? httpStatusOf(error.code);
}

export type HttpStatus = 200 | 202 | 204 | 303 | 400 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504;

export function asStatus(n: number): HttpStatus {
  return n as HttpStatus;
}

/** `Retry-After` on answers whose error says "briefly unavailable, try again" (the registry decides which). */
export function retryHint(c: Context, error: Pick<SurfacerError, 'code'>): void {
  const seconds = retryAfterOf(error.code);
  if (seconds !== undefined) c.header('Retry-After', String(seconds));
}

/** `{...canonical error, issues?}` with its status. */
export function jsonError(c: Context, error: SurfacerError, status: number, issues?: ReadonlyArray<{ pointer: string; message: string }>): Response {
  return c.json(issues && issues.length > 0 ? { ...error, issues } : error, asStatus(status) as never);
}

/**
 * An error fragment for htmx: swapped into `target` (a surface's alert slot or #alerts) even
 * though htmx 2 leaves 4xx alone by default (see HTMX_CONFIG and the HX-Retarget header).
 */
export function htmxError(c: Context, pc: PageContext | undefined, alert: AlertData, status: number, target = '#alerts'): Response {
  const body = pc ? alertHtml(pc, alert) : `<div class="alert alert--error"><p class="alert__text">${escapeHtml(alert.text)}</p></div>`;
  c.header('HX-Retarget', target);
  c.header('HX-Reswap', 'innerHTML');
  return c.html(body, asStatus(status) as never);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function issueLines(issues: ReadonlyArray<{ pointer: string; message: string }> | undefined): string[] {
  return (issues ?? []).slice(0, 10).map((i) => `${i.pointer.replace(/^\//, '') || 'form'}: ${i.message}`);
}
