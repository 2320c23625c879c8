import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { accessTokenClaims, bodyOf, serverSession, signedInUser } from '../support/dashboard.js';
import { DashboardSessions } from '../../src/dashboard/sessions.js';

// Short lifetimes stand in for 12 hours idle and 7 days in all.
const IDLE_MS = 2_000;
const MAX_MS = 5_000;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { DASHBOARD_SESSION_IDLE: `${IDLE_MS}ms`, DASHBOARD_SESSION_MAX: `${MAX_MS}ms` } });
});
afterAll(async () => app?.close());

const sessions = () =>
  new DashboardSessions({ redis: app.deps.redis, payloadKeys: app.deps.payloadKeys, lifetimes: { idleMs: IDLE_MS, absoluteMs: MAX_MS } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** 1 while Redis holds the session behind the cookie, 0 once it is deleted. */
const storedSessions = (cookie: string) => app.deps.redis.exists(`dashboard:session:${createHash('sha256').update(cookie).digest('hex')}`);

describe('session lifetime', () => {
  it('ends a session left idle longer than the idle limit, and deletes it', async () => {
    const user = await signedInUser(app, 'idle');
    expect((await user.call('/dashboard/api/v1/me')).status).toBe(200);
    await sleep(IDLE_MS + 300);
    const res = await user.call('/dashboard/api/v1/me');
    expect(res.status).toBe(401);
    expect(bodyOf(res)).toMatchObject({ code: 'NOT_SIGNED_IN' });
    expect(await storedSessions(user.cookieValue())).toBe(0);
  });

  it('keeps a session in use alive past the idle limit, but not past the absolute limit', async () => {
    const user = await signedInUser(app, 'absolute');
    const started = Date.now();
    let lastExpiresAt = 0;
    while (Date.now() - started < MAX_MS - 700) {
      const res = await user.call('/dashboard/session');
      expect(res.status).toBe(200);
      const expiresAt = Date.parse(bodyOf<{ expires_at: string }>(res).expires_at);
      expect(expiresAt).toBeGreaterThanOrEqual(lastExpiresAt);
      lastExpiresAt = expiresAt;
      await sleep(IDLE_MS / 4);
    }
    // Used all along, so only the absolute limit can have ended it; expires_at says when.
    expect(lastExpiresAt - started).toBeLessThanOrEqual(MAX_MS);
    await sleep(Math.max(0, started + MAX_MS - Date.now()) + 200);
    const res = await user.call('/dashboard/session');
    expect(res.status).toBe(401);
    expect(await storedSessions(user.cookieValue())).toBe(0);
  });
});

describe('access token refresh', () => {
  it('refreshes an access token close to expiry with the refresh token, keeping the session and its sid', async () => {
    const user = await signedInUser(app, 'refresh');
    const before = (await serverSession(app, user.cookieValue()))!;
    expect(before.tokens.refreshToken).toBeTruthy();
    // As if the hour were nearly up: the next call must refresh before it forwards.
    await sessions().replaceTokens(before, { ...before.tokens, accessTokenExpiresAt: Date.now() + 5_000 });

    const me = await user.call('/dashboard/api/v1/me');
    expect(me.status).toBe(200);
    const after = (await serverSession(app, user.cookieValue()))!;
    expect(after.tokens.accessToken).not.toBe(before.tokens.accessToken);
    expect(after.tokens.accessTokenExpiresAt! - Date.now()).toBeGreaterThan(3_000_000);
    expect(accessTokenClaims(after).sid).toBe(accessTokenClaims(before).sid);
  });

  it('waits for a refresh another call has under way instead of spending the refresh token again', async () => {
    const user = await signedInUser(app, 'refresh-wait');
    const before = (await serverSession(app, user.cookieValue()))!;
    await sessions().replaceTokens(before, { ...before.tokens, accessTokenExpiresAt: Date.now() + 5_000 });
    // Another request (perhaps on another api process) holds the refresh lock…
    await app.deps.redis.set(`${before.key}:refreshing`, '1', 'PX', 10_000);
    const waiting = user.call('/dashboard/api/v1/me');
    await sleep(300);
    // …and stores what the provider gave it.
    const renewed = await app.deps.devIdentity!.issueToken({ email: user.email, name: user.name });
    await sessions().replaceTokens(before, { ...before.tokens, accessToken: renewed, accessTokenExpiresAt: Date.now() + 3_600_000 });
    await app.deps.redis.del(`${before.key}:refreshing`);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(bodyOf<{ email: string }>(res).email).toBe(user.email);
    const after = (await serverSession(app, user.cookieValue()))!;
    expect(after.tokens.accessToken).toBe(renewed);
    // The refresh token is still unspent: had the waiting call refreshed too, the provider (which
    // rotates refresh tokens and revokes the grant when one is used twice) would refuse it now.
    await sessions().replaceTokens(after, { ...after.tokens, accessTokenExpiresAt: Date.now() + 5_000 });
    expect((await user.call('/dashboard/api/v1/me')).status).toBe(200);
  });

  it('ends the session when the provider refuses the refresh token', async () => {
    const user = await signedInUser(app, 'refused');
    const session = (await serverSession(app, user.cookieValue()))!;
    await sessions().replaceTokens(session, { ...session.tokens, refreshToken: 'not-a-refresh-token', accessTokenExpiresAt: Date.now() - 1_000 });
    const res = await user.call('/dashboard/api/v1/me');
    expect(res.status).toBe(401);
    expect(bodyOf(res)).toMatchObject({ code: 'NOT_SIGNED_IN' });
    expect(await storedSessions(user.cookieValue())).toBe(0);
  });

  it('ends the session when the API refuses its access token', async () => {
    const user = await signedInUser(app, 'api-refused');
    const session = (await serverSession(app, user.cookieValue()))!;
    // A token the provider would not have signed: as the API sees a token revoked or re-keyed.
    const [header, payload] = session.tokens.accessToken.split('.');
    await sessions().replaceTokens(session, { ...session.tokens, accessToken: `${header}.${payload}.${'A'.repeat(86)}` });
    const res = await user.call('/dashboard/api/v1/me');
    expect(res.status).toBe(401);
    expect(bodyOf(res)).toMatchObject({ code: 'NOT_SIGNED_IN' });
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(await storedSessions(user.cookieValue())).toBe(0);
  });
});
