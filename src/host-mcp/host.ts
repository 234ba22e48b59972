import { createMcpHandler, type McpHttpHandler, type McpRequestContext, type Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Context, Hono } from 'hono';
import { silentLogger, type Logger } from '../conversation/index.ts';
import { makeError } from '../errors/index.ts';
import {
  admitCaller, clientAddress, LOCAL_PRINCIPAL, ownerOfPrincipal, readLimitedText, type Authenticate, type Principal,
} from '../hosting/index.ts';
import { createMcpDoorServer, type McpCaller, type McpDoorDeps } from './server.ts';

/*
 * The MCP door over HTTP: Streamable HTTP at `/mcp`, served by the official SDK's web-standard
 * handler (createMcpHandler) mounted in Hono. The protocol this SDK serves (2026-07-28) has no
 * sessions: every request carries what the server needs, and a server instance is built per
 * request from the factory; 2025-era clients are served by the SDK's stateless fallback. So any
 * instance over Redis answers any request, with nothing to share but the conversation log,
 * and conversations are named explicitly (`conversationId`, returned by the first call).
 *
 * Before the SDK sees a request: the Origin is checked (a foreign one is 403: DNS rebinding),
 * the caller is let in by the agent endpoints' rules (bearer principals, loopback only without
 * tokens; 401 names the Protected Resource Metadata, RFC 9728), and the body is read within
 * the limit (413). Each refusal is the canonical error.
 */

export const MCP_PATH = '/mcp';
/** RFC 9728 §3: the metadata of the resource `/mcp`, and the host's root form. */
export const PROTECTED_RESOURCE_PATHS = ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'] as const;

export interface McpHostOptions extends Omit<McpDoorDeps, 'logger'> {
  authenticate: Authenticate;
  /** No tokens and no `authenticate`: loopback callers only (agent-gate.ts). */
  open: boolean;
  maxBodyBytes: number;
  /** Browser origins allowed besides the server's own (SURFACER_AGENT_ORIGINS). */
  agentOrigins: readonly string[];
  /** Authorization servers the Protected Resource Metadata names (SURFACER_MCP_AUTHORIZATION_SERVERS). */
  authorizationServers: readonly string[];
  logger?: Logger;
}

export interface McpHost {
  mount(app: Hono<any>): void;
  /**
   * The same server over stdio (`surfacer mcp`, for hosts that launch local servers): one local
   * principal, and the connection's conversation for a call that names none. Default transport:
   * this process's stdin and stdout (nothing else may write to stdout).
   */
  serveStdio(options?: { transport?: Transport }): { close(): Promise<void> };
  close(): Promise<void>;
}

/** The caller, handed from the route to the factory through the SDK's pass-through `authInfo`. */
const CALLER_KEY = 'surfacer.caller';

function callerOf(ctx: McpRequestContext): McpCaller {
  const caller = ctx.authInfo?.extra?.[CALLER_KEY] as McpCaller | undefined;
  // The route always sets it: a request without one never reached the handler.
  if (caller === undefined) throw new Error('MCP request without a caller');
  return caller;
}

export function createMcpHost(options: McpHostOptions): McpHost {
  const logger = options.logger ?? silentLogger;
  const deps: McpDoorDeps = { ...options, logger };
  const handler: McpHttpHandler = createMcpHandler((ctx) => createMcpDoorServer(deps, callerOf(ctx)), {
    legacy: 'stateless',
    maxRequestBodySize: options.maxBodyBytes,
    onerror: (error) => logger.info('MCP request refused by the protocol layer', { error: error.message }),
  });
  const allowedOrigins = new Set(options.agentOrigins);

  function refuse(c: Context, status: 401 | 403 | 413, error: ReturnType<typeof makeError>): Response {
    c.header('Cache-Control', 'no-store');
    if (status === 401) c.header('WWW-Authenticate', `Bearer realm="surfacer", resource_metadata="${metadataUrl(c)}"`);
    return c.json(error, status);
  }

  async function serve(c: Context): Promise<Response> {
    const origin = c.req.header('origin');
    // A browser page's request: only from this server's own origin or one the operator allowed.
    if (origin !== undefined && origin !== new URL(c.req.url).origin && !allowedOrigins.has(origin)) {
      return refuse(c, 403, makeError('HTTP_ORIGIN_FORBIDDEN', `origin ${origin.slice(0, 200)} may not call ${MCP_PATH} (SURFACER_AGENT_ORIGINS)`));
    }
    const length = c.req.header('content-length');
    if (length !== undefined && (!/^\d+$/.test(length) || Number(length) > options.maxBodyBytes)) {
      return refuse(c, 413, makeError('HTTP_PAYLOAD_TOO_LARGE', `request body over ${options.maxBodyBytes} bytes`));
    }
    const admitted = await admitCaller(c, options);
    // The gate's 401, with the metadata a host finds the authorization server by (RFC 9728 §5.1).
    if (admitted instanceof Response) return refuse(c, 401, await admitted.json() as ReturnType<typeof makeError>);
    const principal: Principal = admitted;
    let request = c.req.raw;
    let parsedBody: unknown;
    if (request.method === 'POST') {
      const text = await readLimitedText(request, options.maxBodyBytes);
      if (text === undefined) return refuse(c, 413, makeError('HTTP_PAYLOAD_TOO_LARGE', `request body over ${options.maxBodyBytes} bytes, or not UTF-8`));
      try {
        // Parsed once here; the SDK takes it as is (its own read would parse it again).
        parsedBody = JSON.parse(text);
      } catch {
        // Not JSON: the SDK answers that in the protocol's words (a parse error), from the text.
        request = new Request(request.url, { method: 'POST', headers: request.headers, body: text, signal: request.signal });
      }
    }
    const caller: McpCaller = { owner: ownerOfPrincipal(principal), address: clientAddress(c) };
    const authInfo = { token: '', clientId: principal.id, scopes: [], extra: { [CALLER_KEY]: caller } };
    return handler.fetch(request, parsedBody === undefined ? { authInfo } : { authInfo, parsedBody });
  }

  function metadata(c: Context): Response {
    const resource = `${new URL(c.req.url).origin}${MCP_PATH}`;
    c.header('Cache-Control', 'public, max-age=3600');
    return c.json({
      resource,
      ...(options.authorizationServers.length > 0 ? { authorization_servers: options.authorizationServers } : {}),
      bearer_methods_supported: ['header'],
      resource_name: options.service.app.name,
    });
  }

  return {
    mount(app) {
      app.all(MCP_PATH, serve);
      for (const path of PROTECTED_RESOURCE_PATHS) app.get(path, metadata);
    },
    serveStdio(stdio = {}) {
      // One connection per process: its conversation outlives the per-connection server the SDK builds.
      const caller: McpCaller = { owner: ownerOfPrincipal(LOCAL_PRINCIPAL), address: 'stdio', connection: {} };
      return serveStdio(() => createMcpDoorServer(deps, caller), {
        ...(stdio.transport ? { transport: stdio.transport } : {}),
        onerror: (error) => logger.info('MCP stdio message refused by the protocol layer', { error: error.message }),
      });
    },
    close: () => handler.close(),
  };
}

function metadataUrl(c: Context): string {
  return `${new URL(c.req.url).origin}${PROTECTED_RESOURCE_PATHS[0]}`;
}
