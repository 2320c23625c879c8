import type { ParameterizedContext } from 'koa';

// `__Host-` names: a browser keeps such a cookie only if it is Secure, has Path=/ and no Domain, so
// neither a sibling subdomain nor a plain-HTTP page on the network can plant or overwrite it (no
// session fixation, no forced sign-in). Chromium counts http://localhost and http://127.0.0.1 as
// secure, so `npm run dev` keeps working over plain HTTP on loopback (test/dashboard/journey.test.ts).

/** The opaque session id; nothing else about the session ever reaches the browser. */
export const SESSION_COOKIE = '__Host-dashboard_session';
/** Ties a sign-in's callback to the browser that started it (PKCE verifier, state and nonce stay in Redis). */
export const LOGIN_COOKIE = '__Host-dashboard_login';

/**
 * Written by hand rather than with ctx.cookies: Koa refuses `Secure` on a connection it does not see
 * as TLS, which is every connection behind a TLS-terminating proxy. Values are base64url: no escaping.
 * `maxAgeSeconds` 0 deletes the cookie.
 */
export function setCookie(ctx: Pick<ParameterizedContext, 'append'>, name: string, value: string, maxAgeSeconds: number): void {
  const attributes = [`${name}=${value}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax', 'Secure'];
  if (maxAgeSeconds === 0) attributes.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  ctx.append('Set-Cookie', attributes.join('; '));
}
