import { createHash, timingSafeEqual } from 'node:crypto';
import getRawBody from 'raw-body';
import type { Context, Middleware } from 'koa';
import { InvalidTokenError, NotAuthenticatedError } from '../auth/errors.js';
import type { AppState } from '../http/context.js';
import { PayloadTooLargeError } from '../errors.js';

/**
 * The codec server decrypts every payload for whoever it answers. With CODEC_SERVER_TOKEN set
 * (required beyond loopback: src/config.ts) only callers presenting that secret are answered:
 * - `Authorization: Bearer <token>`: the `temporal` CLI (`--codec-auth "Bearer …"`), or a proxy in
 *   front of the Web UI that adds it;
 * - the session cookie set by signing in at `/session` with the token: for the Web UI in a browser,
 *   which cannot send a header of ours but sends this cookie when its codec setting
 *   `includeCredentials` is on (TEMPORAL_CODEC_INCLUDE_CREDENTIALS). The cookie is HttpOnly and
 *   SameSite=Strict: the UI's page (another port of the same host) is same-site, no other site is.
 */
export const SESSION_COOKIE = 'codec_session';
const SESSION_MAX_AGE_MS = 12 * 3_600_000;
const FORM_LIMIT_BYTES = 4 * 1024;
/** Paths answered without the secret: the health check, and the page that asks for it. */
const OPEN_PATHS = new Set(['/healthz', '/session']);

const digest = (value: string) => createHash('sha256').update(value).digest();
/** What the cookie holds: derived from the token, so the token itself is never stored in the browser. */
const sessionValue = (token: string) => createHash('sha256').update(`codec-session|${token}`).digest('base64url');

function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function presented(ctx: Context): { bearer: string } | { session: string } | undefined {
  const header = ctx.get('Authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match) return { bearer: match[1]! };
  if (header) throw new InvalidTokenError('The codec server takes `Authorization: Bearer <CODEC_SERVER_TOKEN>`');
  const session = ctx.cookies.get(SESSION_COOKIE);
  return session ? { session } : undefined;
}

/** 401 for every encode and decode that does not present the secret; nothing is asked when none is configured. */
export function requireCodecToken(token: string | undefined): Middleware<AppState> {
  return async (ctx, next) => {
    if (token === undefined || OPEN_PATHS.has(ctx.path)) {
      await next();
      return;
    }
    const credential = presented(ctx);
    if (!credential) throw new NotAuthenticatedError();
    const ok = 'bearer' in credential ? sameSecret(credential.bearer, token) : sameSecret(credential.session, sessionValue(token));
    if (!ok) throw new InvalidTokenError('The codec server token is not valid');
    await next();
  };
}

const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
};

async function readForm(ctx: Context): Promise<string> {
  try {
    return await getRawBody(ctx.req, { limit: FORM_LIMIT_BYTES, encoding: 'utf8' });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw new PayloadTooLargeError(FORM_LIMIT_BYTES);
    throw err;
  }
}

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Codec server</title></head><body>${body}</body></html>`;

/**
 * `GET /session`: a form asking for the token; `POST /session` (the form) sets the session cookie
 * when the token is right. Without a configured token there is nothing to sign in to (404).
 */
export function codecSession(token: string | undefined): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.path !== '/session') {
      await next();
      return;
    }
    ctx.set(PAGE_HEADERS);
    if (token === undefined) {
      ctx.status = 404;
      ctx.body = page('<p>This codec server asks for no token.</p>');
      return;
    }
    if (ctx.method === 'GET') {
      ctx.type = 'html';
      ctx.body = page(
        '<form method="post" action="/session"><label>Codec server token <input type="password" name="token" autocomplete="off" required></label> <button>Sign in</button></form>',
      );
      return;
    }
    if (ctx.method !== 'POST') {
      await next();
      return;
    }
    const given = new URLSearchParams(await readForm(ctx)).get('token') ?? '';
    if (!sameSecret(given, token)) throw new InvalidTokenError('The codec server token is not valid');
    ctx.cookies.set(SESSION_COOKIE, sessionValue(token), { httpOnly: true, sameSite: 'strict', path: '/', maxAge: SESSION_MAX_AGE_MS, secure: ctx.secure });
    ctx.type = 'html';
    ctx.body = page('<p>Signed in: the Temporal Web UI in this browser can decode payloads for the next 12 hours.</p>');
  };
}
