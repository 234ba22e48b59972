import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { isErrorCode } from '../../src/errors/index.ts';
import { parseAgentOrigins } from '../../src/hosting/index.ts';
import { createSurfacer, SurfacerConfigError } from '../../src/server/index.ts';
import { startAgui, TOKEN_A, type AguiStack } from './support.ts';

/*
 * Issue 35 item 3: a page on another origin (CopilotKit's HttpAgent in the browser, a browser
 * A2A client) may call the agent endpoints when the operator allowed its origin
 * (SURFACER_AGENT_ORIGINS / agentOrigins); nothing is allowed by default, and a preflight grants
 * no access: every request still needs its token.
 */
const ALLOWED = 'http://app.example.test:5173';
const PATHS = ['/ag-ui', '/a2a', '/.well-known/agent-card.json'];

function preflight(url: string, path: string, origin: string, method = 'POST', headers = 'authorization,content-type'): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
  });
}

const runBody = JSON.stringify({ threadId: 'cors-thread-1', runId: 'r1', state: {}, messages: [{ id: 'm1', role: 'user', content: 'hello' }], tools: [], context: [], forwardedProps: {} });

describe('SURFACER_AGENT_ORIGINS', () => {
  it('parses origins separated by commas or spaces; anything that is not an origin is refused, naming the setting', () => {
    expect(parseAgentOrigins(undefined)).toEqual([]);
    expect(parseAgentOrigins(' https://a.example , http://localhost:3000  https://b.example/ ')).toEqual(['https://a.example', 'http://localhost:3000', 'https://b.example']);
    for (const bad of ['*', 'a.example', 'https://a.example/path', 'javascript:alert(1)', 'ftp://a.example', 'https://a.example?x=1', 'null']) {
      expect(() => parseAgentOrigins(bad), bad).toThrow(/SURFACER_AGENT_ORIGINS: .* is not an origin/);
    }
    expect(() => createSurfacer({ app: createDemoApp(), sessionSecret: 'cors-secret-0123456789abcdef', env: { SURFACER_AGENT_ORIGINS: '*' } })).toThrow(SurfacerConfigError);
    expect(() => createSurfacer({ app: createDemoApp(), sessionSecret: 'cors-secret-0123456789abcdef', env: {}, agentOrigins: ['https://x/y'] })).toThrow(/agentOrigins/);
  });
});

describe('the agent endpoints from a browser on another origin', () => {
  let allowed: AguiStack;
  let closed: AguiStack;
  beforeAll(async () => {
    allowed = await startAgui({ env: { SURFACER_API_TOKENS: TOKEN_A, SURFACER_AGENT_ORIGINS: ALLOWED } });
    closed = await startAgui();
  });
  afterAll(async () => {
    await allowed.close();
    await closed.close();
  });

  it('an allowed origin: the preflight answers 204 with the origin, the methods and the headers the clients send', async () => {
    for (const path of PATHS) {
      const response = await preflight(allowed.url, path, ALLOWED, 'POST', 'authorization,content-type,a2a-version,x-a2a-extensions');
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      const headers = response.headers.get('access-control-allow-headers')!.toLowerCase().split(',');
      for (const h of ['authorization', 'content-type', 'a2a-version', 'x-a2a-extensions']) expect(headers).toContain(h);
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('vary')).toMatch(/Origin/);
    }
  });

  it('another origin, or none allowed at all: the preflight is the canonical 403, with no allow-origin', async () => {
    for (const [stack, origin] of [[allowed, 'https://evil.example'], [closed, ALLOWED], [allowed, 'null']] as const) {
      for (const path of PATHS) {
        const response = await preflight(stack.url, path, origin);
        expect(response.status, `${path} ${origin}`).toBe(403);
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
        expect((await response.json() as { code: string }).code).toBe('HTTP_ORIGIN_FORBIDDEN');
      }
    }
  });

  it('a run from the allowed origin is readable by its page (allow-origin on the stream); without a token it is still 401, readable too', async () => {
    const ok = await fetch(`${allowed.url}/ag-ui`, {
      method: 'POST', body: runBody,
      headers: { Origin: ALLOWED, 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: `Bearer ${TOKEN_A}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(ok.headers.get('access-control-expose-headers')).toContain('Retry-After');
    expect(await ok.text()).toContain('RUN_FINISHED');
    const refused = await fetch(`${allowed.url}/ag-ui`, { method: 'POST', body: runBody, headers: { Origin: ALLOWED, 'Content-Type': 'application/json' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect((await refused.json() as { code: string }).code).toBe('HTTP_UNAUTHORIZED');
    // Another origin's request gets no allow-origin: its page cannot read the answer.
    const foreign = await fetch(`${allowed.url}/ag-ui`, { method: 'POST', body: runBody, headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' } });
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('fuzz: any Origin, method and header list on a preflight is 204 for the allowed origin alone, else the canonical 403; never a 5xx', async () => {
    const origin = fc.oneof(fc.constant(ALLOWED), fc.webUrl().map((u) => new URL(u).origin), fc.string({ maxLength: 80 }).map((s) => s.replace(/[\r\n\0]/g, '')));
    const token = fc.stringMatching(/^[A-Za-z0-9-]{0,20}$/);
    await fc.assert(fc.asyncProperty(fc.constantFrom(...PATHS), origin, token, fc.array(token, { maxLength: 6 }), async (path, o, method, headers) => {
      let response: Response;
      try {
        response = await preflight(allowed.url, path, o, method, headers.join(','));
      } catch {
        return; // a header value fetch itself refuses to send
      }
      expect(response.status).toBeLessThan(500);
      if (response.status === 204) {
        expect(o).toBe(ALLOWED);
        expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      } else {
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
        const body = await response.json() as { code: string };
        expect(isErrorCode(body.code)).toBe(true);
      }
    }), { numRuns: 300 });
  });
});
