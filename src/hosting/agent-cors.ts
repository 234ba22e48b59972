import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { makeError } from '../errors/index.ts';

/*
 * Browsers calling the agent endpoints from another origin (CopilotKit's HttpAgent in a page,
 * a browser A2A client): the CORS answers for the origins an operator allowed
 * (`SURFACER_AGENT_ORIGINS`, or the library's `agentOrigins`), none by default. Hono's own CORS
 * middleware writes the headers; a preflight from any other origin is the canonical 403, so the
 * page's developer reads why in the network panel. Tokens travel as bearer headers, never
 * cookies: no credentials mode, and the gate still asks every request for its token.
 */

/** What a browser client of AG-UI and A2A sends (the official HttpAgent, the A2A SDK clients). */
const REQUEST_HEADERS = [
  'Authorization', 'Content-Type', 'Accept', 'A2A-Version', 'A2A-Extensions', 'X-A2A-Extensions',
  // MCP's Streamable HTTP (a browser MCP client: the MCP Inspector's direct mode, an MCP Apps host page).
  'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Mcp-Session-Id', 'Last-Event-ID',
];
/** What such a client reads of the answers: the extensions used, when to retry, how to authenticate. */
const EXPOSED_HEADERS = ['A2A-Extensions', 'X-A2A-Extensions', 'Retry-After', 'WWW-Authenticate'];
const PREFLIGHT_MAX_AGE_S = 600;

export class AgentOriginsError extends Error {
  override readonly name = 'AgentOriginsError';
}

/**
 * `SURFACER_AGENT_ORIGINS`-style text (origins separated by commas or spaces) → the origins, each
 * an http(s) scheme, host and optional port with nothing after it. Throws AgentOriginsError
 * naming `source` and the value that is not one.
 */
export function parseAgentOrigins(text: string | undefined, source = 'SURFACER_AGENT_ORIGINS'): string[] {
  const values = (text ?? '').split(/[\s,]+/).filter((v) => v !== '');
  return values.map((value) => {
    const url = parsedUrl(value);
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value.replace(/\/$/, '')) {
      throw new AgentOriginsError(`${source}: "${value}" is not an origin; write each as scheme://host[:port], e.g. https://app.example.com`);
    }
    return url.origin;
  });
}

/** `value` as a URL; undefined when it is not one. */
export function parsedUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The agent endpoints' CORS: headers for `origins`, a 403 preflight for any other. */
export function agentCors(origins: readonly string[]): MiddlewareHandler {
  const allowed = new Set(origins);
  const headers = cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ['GET', 'POST'], allowHeaders: REQUEST_HEADERS, exposeHeaders: EXPOSED_HEADERS, maxAge: PREFLIGHT_MAX_AGE_S,
  });
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (c.req.method === 'OPTIONS' && origin !== undefined && !allowed.has(origin)) {
      c.header('Cache-Control', 'no-store');
      c.header('Vary', 'Origin');
      const detail = allowed.size === 0
        ? 'no origin may call the agent endpoints from a browser (SURFACER_AGENT_ORIGINS is empty)'
        : `origin ${origin.slice(0, 200)} is not in SURFACER_AGENT_ORIGINS`;
      return c.json(makeError('HTTP_ORIGIN_FORBIDDEN', detail), 403);
    }
    return headers(c, next);
  };
}
