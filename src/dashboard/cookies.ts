import type { ParameterizedContext } from 'koa';

/** The opaque session id; nothing else about the session ever reaches the browser. */
export const SESSION_COOKIE = 'dashboard_session';
/** Ties a sign-in's callback to the browser that started it (PKCE verifier, state and nonce stay in Redis). */
export const LOGIN_COOKIE = 'dashboard_login';

export interface CookieOptions {
  path: string;
  secure: boolean;
  /** Seconds; 0 deletes the cookie. */
  maxAgeSeconds: number;
}

/**
 * Written by hand rather than with ctx.cookies: Koa refuses `Secure` on a connection it does not see
 * as TLS, which is every connection behind a TLS-terminating proxy. Values are base64url: no escaping.
 */
export function setCookie(ctx: Pick<ParameterizedContext, 'append'>, name: string, value: string, options: CookieOptions): void {
  const attributes = [`${name}=${value}`, `Path=${options.path}`, `Max-Age=${options.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAgeSeconds === 0) attributes.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (options.secure) attributes.push('Secure');
  ctx.append('Set-Cookie', attributes.join('; '));
}
