import { createHash, randomBytes } from 'node:crypto';
import type { ParameterizedContext } from 'koa';
import type { Redis } from 'ioredis';
import type { AppState } from '../http/context.js';
import { escapeHtml } from '../http/html.js';
import { ServiceUnavailableError } from '../errors.js';
import { NotSignedInError } from '../auth/errors.js';
import { LOGIN_COOKIE, SESSION_COOKIE, setCookie } from './cookies.js';
import { checkCsrf } from './csrf.js';
import { SignInRejectedError, type DashboardOidcClient, type PendingSignIn } from './oidcClient.js';
import type { DashboardSession, DashboardSessions } from './sessions.js';
import { DASHBOARD_PATH, type DashboardSite } from './site.js';

export type DashboardCtx = ParameterizedContext<AppState>;

export interface SignInDeps {
  redis: Redis;
  site: DashboardSite;
  sessions: DashboardSessions;
  /** Absent: an external provider without AUTH_CLIENT_ID; sign-in answers 503. */
  oidcClient: DashboardOidcClient | undefined;
  absoluteMs: number;
}

/** How long a started sign-in may take to come back. */
const SIGN_IN_TTL_SECONDS = 600;
const pendingKey = (loginId: string) => `dashboard:login:${createHash('sha256').update(loginId).digest('hex')}`;

function oidcClientOf(deps: SignInDeps): DashboardOidcClient {
  if (deps.oidcClient) return deps.oidcClient;
  throw new ServiceUnavailableError(
    'SIGN_IN_NOT_CONFIGURED',
    'Dashboard sign-in is not configured: set AUTH_CLIENT_ID and AUTH_CLIENT_SECRET for the identity provider at AUTH_ISSUER',
  );
}

/** The live session the request's cookie names (marking it used), or 401 NOT_SIGNED_IN. */
export async function requireSession(deps: SignInDeps, ctx: DashboardCtx): Promise<DashboardSession> {
  const session = await deps.sessions.use(ctx.cookies.get(SESSION_COOKIE, { signed: false }));
  if (!session) throw new NotSignedInError();
  return session;
}

/** `GET /dashboard/login`: PKCE verifier, state and nonce go to Redis; the browser goes to the provider. */
export async function login(deps: SignInDeps, ctx: DashboardCtx): Promise<void> {
  const origin = deps.site.originFor(ctx.host);
  const { url, pending } = await oidcClientOf(deps).startSignIn(deps.site.callbackUrl(origin));
  const loginId = randomBytes(32).toString('base64url');
  await deps.redis.set(pendingKey(loginId), JSON.stringify(pending), 'EX', SIGN_IN_TTL_SECONDS);
  setCookie(ctx, LOGIN_COOKIE, loginId, SIGN_IN_TTL_SECONDS);
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(url);
}

function signInFailedPage(ctx: DashboardCtx, reason: string): void {
  ctx.status = 400;
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head>
<body style="font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">
<h1>Sign-in failed</h1><p>${escapeHtml(reason)}</p><p><a href="${DASHBOARD_PATH}/login">Sign in again</a></p></body></html>`;
}

/** `GET /dashboard/callback`: the code becomes a server-side session; the browser gets an opaque cookie. */
export async function callback(deps: SignInDeps, ctx: DashboardCtx): Promise<void> {
  const client = oidcClientOf(deps);
  const loginId = ctx.cookies.get(LOGIN_COOKIE, { signed: false });
  setCookie(ctx, LOGIN_COOKIE, '', 0);
  const stored = loginId ? await deps.redis.getdel(pendingKey(loginId)) : null;
  if (!stored) return signInFailedPage(ctx, 'This sign-in was not started in this browser, or took longer than 10 minutes.');
  const pending = JSON.parse(stored) as PendingSignIn;
  let signedIn;
  try {
    signedIn = await client.finishSignIn(new URL(ctx.url, new URL(pending.redirectUri).origin), pending);
  } catch (err) {
    if (!(err instanceof SignInRejectedError)) throw err;
    ctx.state.log.warn({ err }, 'dashboard sign-in rejected');
    return signInFailedPage(ctx, 'The identity provider did not confirm this sign-in.');
  }
  // A session the browser already had is replaced, never reused (no fixation).
  const previous = await deps.sessions.use(ctx.cookies.get(SESSION_COOKIE, { signed: false }));
  if (previous) await deps.sessions.end(previous.key);
  const { cookieValue } = await deps.sessions.create(signedIn);
  setCookie(ctx, SESSION_COOKIE, cookieValue, Math.floor(deps.absoluteMs / 1000));
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(`${DASHBOARD_PATH}/`);
}

/** `GET /dashboard/session`: who is signed in, the CSRF token, and when the session ends if unused. */
export async function sessionInfo(deps: SignInDeps, ctx: DashboardCtx): Promise<void> {
  const session = await requireSession(deps, ctx);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = {
    user: { email: session.user.email, name: session.user.name },
    csrf_token: session.csrfToken,
    expires_at: new Date(deps.sessions.endsAt(session)).toISOString(),
  };
}

/** `POST /dashboard/logout`: the session is deleted (its cookie is refused from then on). */
export async function logout(deps: SignInDeps, ctx: DashboardCtx): Promise<void> {
  const session = await requireSession(deps, ctx);
  checkCsrf(ctx, session, deps.site);
  await deps.sessions.end(session.key);
  setCookie(ctx, SESSION_COOKIE, '', 0);
  ctx.status = 204;
  deps.oidcClient?.revoke(session.tokens).catch((err: unknown) => ctx.state.log.warn({ err }, 'refresh token not revoked at sign-out'));
}
