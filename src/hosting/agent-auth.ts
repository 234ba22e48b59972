import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Who calls an agent endpoint (AG-UI, A2A, metrics). A principal owns the conversations it
 * starts; another principal asking for them gets a 404, as for an unknown conversation.
 */
export interface Principal {
  /** Stable across restarts and instances (never the secret itself: ids reach logs). */
  readonly id: string;
  /**
   * The conversation owner this principal acts as, when a library user's `authenticate` knows
   * better (e.g. the owner of a browser session it recognises, so the htmx page shows the same
   * conversations). Default: ownerOfPrincipal's hash of `id`.
   */
  readonly owner?: string;
}

/** Resolves a request's principal; undefined → 401. A library user may plug in their own. */
export type Authenticate = (request: Request) => Principal | undefined | Promise<Principal | undefined>;

/** `SURFACER_API_TOKENS`: comma-separated, blanks dropped. */
export function parseApiTokens(value: string | undefined): string[] {
  return (value ?? '').split(',').map((t) => t.trim()).filter((t) => t.length > 0);
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Bearer tokens, each its own principal. Tokens are compared as SHA-256 digests with
 * timingSafeEqual, so neither a token's length nor its prefix leaks through timing.
 */
export function bearerTokenAuthenticator(tokens: readonly string[]): Authenticate {
  const known = tokens.map((token) => ({ hash: digest(`token:${token}`), id: `token-${digest(`principal:${token}`).toString('base64url').slice(0, 16)}` }));
  return (request) => {
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) return undefined;
    const offered = digest(`token:${match[1]}`);
    let found: Principal | undefined;
    // Every token is compared, found or not: the time taken does not say which one matched.
    for (const k of known) if (timingSafeEqual(k.hash, offered) && found === undefined) found = { id: k.id };
    return found;
  };
}

/**
 * The owner a principal's conversations record (`ownerSessionId`): hashed like browser sessions'
 * owners, in a namespace of its own so a principal id can never equal a session's owner.
 */
export function ownerOfPrincipal(principal: Principal): string {
  if (typeof principal.owner === 'string' && principal.owner !== '') return principal.owner;
  return createHash('sha256').update(`principal:${principal.id}`).digest('base64url');
}

/** Agent endpoints without tokens answer only on these binds (a laptop's own calls). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The one principal of an agent endpoint left open (no tokens, no authenticate): loopback binds only, callers that send no Authorization. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ id: 'local' });

/**
 * How agent endpoints authenticate: the library user's `authenticate`, else bearer tokens, else
 * open (`open: true`: every caller is LOCAL_PRINCIPAL; `listen` then refuses a non-loopback bind).
 */
export function chooseAgentAuthenticate(options: { authenticate?: Authenticate; tokens: readonly string[] }): { authenticate: Authenticate; open: boolean } {
  if (options.authenticate) return { authenticate: options.authenticate, open: false };
  if (options.tokens.length > 0) return { authenticate: bearerTokenAuthenticator(options.tokens), open: false };
  // A caller that sends a token believes one is checked: with none configured, say no (401)
  // rather than let any token pass as if it mattered.
  return { authenticate: (request) => (request.headers.has('authorization') ? undefined : LOCAL_PRINCIPAL), open: true };
}
