import type { Context, MiddlewareHandler } from 'hono';
import { makeError } from '../errors/index.ts';
import { isLoopbackHost, type Authenticate, type Principal } from './agent-auth.ts';
import { clientAddress } from './rate-limit.ts';

/*
 * The door every agent endpoint (AG-UI, A2A) shares: who calls (bearer tokens or the library
 * user's `authenticate`; 401 otherwise), what they send (JSON only, 415 otherwise; at most the
 * same body limit as the other ingress paths, 413 otherwise), and, with no tokens at all,
 * loopback callers only. Every refusal is the canonical JSON error. The endpoints read the
 * caller with `principalOf(c)` (mapped to a conversation owner by ownerOfPrincipal) and the
 * body, already read within the limit, with `bodyTextOf(c)`.
 */

export interface AgentGateOptions {
  authenticate: Authenticate;
  /** No tokens and no `authenticate`: every caller is LOCAL_PRINCIPAL, and only loopback peers get in. */
  open: boolean;
  /** Largest request body; a larger one is 413 before it is read. */
  maxBodyBytes: number;
}

const PRINCIPAL_KEY = 'surfacer.agentPrincipal';
const BODY_KEY = 'surfacer.agentBody';

/** The principal the gate let in (undefined outside a gated route). */
export function principalOf(c: Context): Principal | undefined {
  return c.get(PRINCIPAL_KEY as never) as Principal | undefined;
}

/** The request body the gate read, as UTF-8 text within the limit (undefined outside a gated route). */
export function bodyTextOf(c: Context): string | undefined {
  return c.get(BODY_KEY as never) as string | undefined;
}

/** `application/json`, with or without parameters. */
export function isJsonContentType(type: string | undefined): boolean {
  return /^application\/json\s*(;|$)/i.test(type ?? '');
}

/** A peer address on this machine (IPv4-mapped IPv6 included). */
export function isLoopbackAddress(address: string): boolean {
  return isLoopbackHost(address.replace(/^::ffff:/i, ''));
}

/** Canonical 401: the scheme to use goes in WWW-Authenticate (RFC 6750). */
export function unauthorized(c: Context, detail: string): Response {
  c.header('WWW-Authenticate', 'Bearer realm="surfacer"');
  c.header('Cache-Control', 'no-store');
  return c.json(makeError('HTTP_UNAUTHORIZED', detail), 401);
}

function tooLarge(c: Context, detail: string): Response {
  c.header('Cache-Control', 'no-store');
  return c.json(makeError('HTTP_PAYLOAD_TOO_LARGE', detail), 413);
}

export function agentGate(options: AgentGateOptions): MiddlewareHandler {
  return async (c, next) => {
    // Declared lengths are checked before anything is read; chunked bodies are counted as read.
    const length = c.req.header('content-length');
    if (length !== undefined && (!/^\d+$/.test(length) || Number(length) > options.maxBodyBytes)) {
      return tooLarge(c, `request body over ${options.maxBodyBytes} bytes`);
    }
    const principal = await admitCaller(c, options);
    if (principal instanceof Response) return principal;
    // JSON only: a cross-site page cannot send it without a CORS preflight (never granted), which
    // is why these endpoints need no CSRF token (the htmx host's Origin check exempts them).
    if (!isJsonContentType(c.req.header('content-type'))) {
      c.header('Cache-Control', 'no-store');
      return c.json(makeError('HTTP_BAD_REQUEST', 'Content-Type must be application/json'), 415);
    }
    const text = await readLimitedText(c.req.raw, options.maxBodyBytes);
    if (text === undefined) return tooLarge(c, `request body over ${options.maxBodyBytes} bytes, or not UTF-8`);
    c.set(PRINCIPAL_KEY as never, principal as never);
    c.set(BODY_KEY as never, text as never);
    return next();
  };
}

/**
 * Who calls, as every gated endpoint (the agent endpoints, GET /metrics) decides it: with
 * `open`, loopback peers under a loopback name only; otherwise the principal `authenticate`
 * finds. The principal, or the canonical 401 to answer with.
 */
export async function admitCaller(c: Context, options: Pick<AgentGateOptions, 'authenticate' | 'open'>): Promise<Principal | Response> {
  // Open endpoints are a laptop's own: a peer elsewhere (a bind widened behind our back, a
  // proxy) is refused as if it held no token. An unknown peer (no Node socket) is refused too.
  if (options.open && !isLoopbackAddress(clientAddress(c))) {
    return unauthorized(c, 'agent endpoints without SURFACER_API_TOKENS answer loopback callers only');
  }
  // And only under a loopback name: a page whose own host name was rebound to 127.0.0.1 (DNS
  // rebinding) is same-origin to itself and could otherwise drive the open endpoints.
  if (options.open && !isLoopbackHost(hostnameOf(c.req.header('host')))) {
    return unauthorized(c, 'agent endpoints without SURFACER_API_TOKENS answer requests for localhost or a loopback address only');
  }
  let principal: Principal | undefined;
  try {
    principal = await options.authenticate(c.req.raw);
  } catch {
    principal = undefined;
  }
  if (principal === undefined || typeof principal.id !== 'string' || principal.id === '') {
    return unauthorized(c, options.open
      ? 'no tokens are configured (SURFACER_API_TOKENS), so none is accepted: send the request without an Authorization header, or configure tokens'
      : 'missing or unknown bearer token');
  }
  return principal;
}

/**
 * The body as text, at most `maxBytes` (a chunked body has no Content-Length to check first);
 * undefined when over, or not UTF-8.
 */
export async function readLimitedText(request: Request, maxBytes: number): Promise<string | undefined> {
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    return undefined;
  }
}

/** The host name of a Host header (`name:port`, `[v6]:port`); '' when absent or malformed. */
function hostnameOf(host: string | undefined): string {
  if (host === undefined) return '';
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return '';
  }
}
