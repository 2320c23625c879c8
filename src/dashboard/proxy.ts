import { ApiError, ServiceUnavailableError } from '../errors.js';
import { NotSignedInError } from '../auth/errors.js';
import { STATE_CHANGING, checkCsrf } from './csrf.js';
import { SignInRejectedError } from './oidcClient.js';
import type { DashboardSession, SessionTokens } from './sessions.js';
import { requireSession, type DashboardCtx, type SignInDeps } from './signIn.js';
import { DASHBOARD_PATH } from './site.js';

/** Runs the request through the API's own router, in this process (src/app.ts). */
export type DispatchApi = (ctx: DashboardCtx) => Promise<void>;

/**
 * What the browser may tell the API. Everything else (its cookies above all) stays here; the API
 * gets the session's bearer token instead.
 */
const FORWARDED_HEADERS = new Set([
  'host',
  'accept',
  'user-agent',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'x-mode',
  'idempotency-key',
  'if-match',
  'if-none-match',
  'dry-run',
  'x-request-id',
  // Not the browser's word but our proxies': the API reads it under the same TRUST_PROXY rules as a
  // direct call (src/http/clientAddress.ts), so its per-address pools and `allowed_ips` see the
  // dashboard user's own address, and hops a browser wrote are believed no more than there.
  'x-forwarded-for',
]);

/** The API's answers meaning the bearer token itself is refused (src/auth/errors.ts). */
const SESSION_REFUSED = new Set(['INVALID_TOKEN', 'TOKEN_EXPIRED', 'NOT_AUTHENTICATED']);

/** Refreshed this long before it expires, so a token never runs out mid-request. */
const REFRESH_MARGIN_MS = 60_000;
const REFRESH_WAIT_MS = 5_000;

const expiresSoon = (tokens: SessionTokens, now: number) =>
  tokens.accessTokenExpiresAt !== undefined && tokens.accessTokenExpiresAt - now < REFRESH_MARGIN_MS;

async function signedOut(deps: SignInDeps, session: DashboardSession, detail: string): Promise<never> {
  await deps.sessions.end(session.key);
  throw new NotSignedInError(detail);
}

/**
 * The session's access token, refreshed when it is about to expire. One request refreshes (a Redis
 * lock): providers that rotate refresh tokens refuse the second use of one.
 */
async function accessToken(deps: SignInDeps, session: DashboardSession): Promise<string> {
  const { tokens } = session;
  const now = Date.now();
  if (!expiresSoon(tokens, now)) return tokens.accessToken;
  const stillValid = tokens.accessTokenExpiresAt! > now;
  if (!tokens.refreshToken || !deps.oidcClient) {
    return stillValid ? tokens.accessToken : await signedOut(deps, session, 'Your sign-in has expired; sign in again');
  }
  const lock = `${session.key}:refreshing`;
  if ((await deps.redis.set(lock, '1', 'PX', 15_000, 'NX')) !== 'OK') {
    for (const deadline = Date.now() + REFRESH_WAIT_MS; Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const current = await deps.sessions.currentTokens(session);
      if (!current) throw new NotSignedInError();
      if (current.accessToken !== tokens.accessToken) return current.accessToken;
    }
    if (stillValid) return tokens.accessToken;
    throw new ServiceUnavailableError('AUTH_PROVIDER_UNAVAILABLE', 'The sign-in could not be renewed in time; retry', 2);
  }
  try {
    const next = await deps.oidcClient.refresh(tokens);
    await deps.sessions.replaceTokens(session, next);
    return next.accessToken;
  } catch (err) {
    if (err instanceof SignInRejectedError) return await signedOut(deps, session, 'Your sign-in has ended at the identity provider; sign in again');
    if (stillValid) return tokens.accessToken;
    throw err;
  } finally {
    await deps.redis.del(lock);
  }
}

/**
 * `/dashboard/api/v1/…`: the browser's call, with the session's bearer token, through the API's own
 * router. Status, body and headers come back as the API wrote them, `Location` pointing here.
 */
export async function proxyToApi(deps: SignInDeps & { dispatchApi: DispatchApi }, ctx: DashboardCtx): Promise<void> {
  const session = await requireSession(deps, ctx);
  if (STATE_CHANGING.has(ctx.method)) checkCsrf(ctx, session, deps.site);
  const token = await accessToken(deps, session);
  const headers = ctx.req.headers;
  for (const name of Object.keys(headers)) if (!FORWARDED_HEADERS.has(name)) delete headers[name];
  headers.authorization = `Bearer ${token}`;
  const dashboardUrl = ctx.url;
  ctx.url = dashboardUrl.slice(DASHBOARD_PATH.length);
  try {
    await deps.dispatchApi(ctx);
  } catch (err) {
    // The API refused the token itself (expired, revoked at the provider): the session is over.
    if (err instanceof ApiError && SESSION_REFUSED.has(err.code)) return await signedOut(deps, session, 'Your sign-in is no longer accepted; sign in again');
    throw err;
  } finally {
    ctx.url = dashboardUrl;
    delete headers.authorization;
    ctx.remove('WWW-Authenticate');
  }
  // Koa 3 answers undefined for an absent header, whatever its types say.
  const location = ctx.response.get('Location') as string | undefined;
  if (location?.startsWith('/api/')) ctx.set('Location', `${DASHBOARD_PATH}${location}`);
}
