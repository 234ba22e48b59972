import type { Context, MiddlewareHandler } from 'hono';
import { makeError } from '../errors/index.ts';
import { isLoopbackHost, type Authenticate, type Principal } from './agent-auth.ts';
import { clientAddress } from './rate-limit.ts';

/*
 * The door every agent endpoint (AG-UI, A2A) shares: who calls (bearer tokens or the library
 * user's `authenticate`; 401 otherwise), how much they may send (the same body limit as the
 * other ingress paths), and, with no tokens at all, loopback callers only. The endpoints read
 * the caller with `principalOf(c)` and map it to a conversation owner with ownerOfPrincipal.
 */

export interface AgentGateOptions {
  authenticate: Authenticate;
  /** No tokens and no `authenticate`: every caller is LOCAL_PRINCIPAL, and only loopback peers get in. */
  open: boolean;
  /** Largest request body; a larger one is 413 before it is read. */
  maxBodyBytes: number;
}

const PRINCIPAL_KEY = 'surfacer.agentPrincipal';

/** The principal the gate let in (undefined outside a gated route). */
export function principalOf(c: Context): Principal | undefined {
  return c.get(PRINCIPAL_KEY as never) as Principal | undefined;
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

export function agentGate(options: AgentGateOptions): MiddlewareHandler {
  return async (c, next) => {
    // Declared lengths are checked before anything is read; chunked bodies are counted by the
    // endpoint as it reads (readLimitedText).
    const length = c.req.header('content-length');
    if (length !== undefined && (!/^\d+$/.test(length) || Number(length) > options.maxBodyBytes)) {
      return c.json(makeError('HTTP_PAYLOAD_TOO_LARGE', `request body over ${options.maxBodyBytes} bytes`), 413);
    }
    // Open endpoints are a laptop's own: a peer elsewhere (a bind widened behind our back, a
    // proxy) is refused as if it held no token. An unknown peer (no Node socket) is refused too.
    if (options.open && !isLoopbackAddress(clientAddress(c))) {
      return unauthorized(c, 'agent endpoints without SURFACER_API_TOKENS answer loopback callers only');
    }
    let principal: Principal | undefined;
    try {
      principal = await options.authenticate(c.req.raw);
    } catch {
      principal = undefined;
    }
    if (principal === undefined || typeof principal.id !== 'string' || principal.id === '') {
      return unauthorized(c, 'missing or unknown bearer token');
    }
    c.set(PRINCIPAL_KEY as never, principal as never);
    return next();
  };
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
