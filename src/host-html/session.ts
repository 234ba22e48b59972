import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

/**
 * Cookie sessions: a random id in a signed, HttpOnly, SameSite=Lax cookie. Nothing is stored
 * server-side: the CSRF token is an HMAC of the session id, and conversations record the
 * SHA-256 of the id as their owner (so a leaked log holds no usable session id).
 */
export interface Session {
  id: string;
  /** What conversations store as ownerSessionId. */
  owner: string;
  csrf: string;
}

export interface Sessions {
  read(c: Context): Promise<Session | undefined>;
  /** The request's session, or a new one (cookie set on the response). */
  ensure(c: Context): Promise<Session>;
  verifyCsrf(session: Session, token: string | undefined): boolean;
  setFlash(c: Context, flash: Flash): Promise<void>;
  takeFlash(c: Context): Promise<Flash | undefined>;
}

export interface Flash {
  level: 'info' | 'success' | 'warning' | 'error';
  text: string;
  /** Set on a stale-surface error: the page offers a regenerate button for it. */
  surfaceId?: string;
  code?: string;
}

const SESSION_COOKIE = 'surfacer_sid';
const FLASH_COOKIE = 'surfacer_flash';
const SID = /^[A-Za-z0-9_-]{32,64}$/;
const MONTH_S = 30 * 24 * 3600;

const VERIFIED_CACHE = 10_000;

export function createSessions(options: { secret: string; secure: boolean; randomToken: (bytes: number) => string }): Sessions {
  const { secret, secure } = options;
  const cookieOptions = { httpOnly: true, sameSite: 'Lax', path: '/', secure } as const;
  const verified = new Map<string, string>();

  // The Cookie header of a client repeats on every request: its parse is remembered too
  // (headers of up to 512 characters, 1000 of them: at most ~0.5 MB).
  const parsed = new Map<string, string | undefined>();
  function cookie(c: Context, name: string): string | undefined {
    const header = c.req.header('Cookie');
    if (!header) return undefined;
    if (header.length > 512) return getCookie(c, name);
    const key = `${name}\n${header}`;
    if (parsed.has(key)) return parsed.get(key);
    const value = getCookie(c, name);
    if (parsed.size >= 1000) parsed.delete(parsed.keys().next().value!);
    parsed.set(key, value);
    return value;
  }

  /**
   * Cookies are `value.base64(HMAC-SHA256(name NUL value))`. The name is signed too, so one
   * cookie's value can never pass as another's: a flash message must not be a session id.
   * Verified synchronously with node:crypto, and raw values already verified are remembered
   * (hono's getSignedCookie verifies through WebCrypto on every request, ~10 % of an action).
   */
  const signatureOf = (name: string, value: string): string =>
    createHmac('sha256', secret).update(`${name}\u0000${value}`).digest('base64');

  function setSigned(c: Context, name: string, value: string, maxAge: number): void {
    setCookie(c, name, `${value}.${signatureOf(name, value)}`, { ...cookieOptions, maxAge });
  }

  function readSigned(c: Context, name: string): string | undefined {
    const raw = cookie(c, name);
    if (raw === undefined) return undefined;
    const key = `${name}\n${raw}`;
    const known = verified.get(key);
    if (known !== undefined) return known;
    const dot = raw.lastIndexOf('.');
    if (dot < 0) return undefined;
    const value = raw.slice(0, dot);
    const signature = Buffer.from(raw.slice(dot + 1));
    const expected = Buffer.from(signatureOf(name, value));
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return undefined;
    if (verified.size >= VERIFIED_CACHE) verified.delete(verified.keys().next().value!);
    verified.set(key, value);
    return value;
  }

  const sessions = new Map<string, Session>();
  const sessionOf = (id: string): Session => {
    const cached = sessions.get(id);
    if (cached) return cached;
    const session = {
      id,
      owner: createHash('sha256').update(`owner:${id}`).digest('base64url'),
      csrf: createHmac('sha256', secret).update(`csrf:${id}`).digest('base64url'),
    };
    if (sessions.size >= VERIFIED_CACHE) sessions.delete(sessions.keys().next().value!);
    sessions.set(id, session);
    return session;
  };

  async function read(c: Context): Promise<Session | undefined> {
    if (c.get('session' as never)) return c.get('session' as never) as Session;
    const id = readSigned(c, SESSION_COOKIE);
    return id !== undefined && SID.test(id) ? sessionOf(id) : undefined;
  }

  return {
    read,
    async ensure(c) {
      const existing = await read(c);
      if (existing) return existing;
      const session = sessionOf(options.randomToken(32));
      setSigned(c, SESSION_COOKIE, session.id, MONTH_S);
      c.set('session' as never, session as never);
      return session;
    },
    verifyCsrf(session, token) {
      if (token === undefined) return false;
      const a = Buffer.from(session.csrf);
      const b = Buffer.from(token);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    async setFlash(c, flash) {
      const value = Buffer.from(JSON.stringify({ ...flash, text: flash.text.slice(0, 500) })).toString('base64url');
      setSigned(c, FLASH_COOKIE, value, 120);
    },
    async takeFlash(c) {
      if (cookie(c, FLASH_COOKIE) === undefined) return undefined;
      const value = readSigned(c, FLASH_COOKIE);
      deleteCookie(c, FLASH_COOKIE, { path: '/', secure });
      if (value === undefined) return undefined;
      try {
        const flash = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Flash;
        return typeof flash.text === 'string' && ['info', 'success', 'warning', 'error'].includes(flash.level) ? flash : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
