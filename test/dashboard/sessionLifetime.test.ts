import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { accessTokenClaims, bodyOf, serverSession, signedInUser } from '../support/dashboard.js';
import { DashboardSessions } from '../../src/dashboard/sessions.js';

// Short lifetimes stand in for 12 hours idle and 7 days in all: long beside the pause between two
// calls of a session in use (STEP_MS), so a loaded machine's late timers do not end it idle.
const IDLE_MS = 3_000;
const MAX_MS = 6_000;
const STEP_MS = 300;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { DASHBOARD_SESSION_IDLE: `${IDLE_MS}ms`, DASHBOARD_SESSION_MAX: `${MAX_MS}ms` } });
});
afterAll(async () => app?.close());

const sessions = () =>
  new DashboardSessions({ redis: app.deps.redis, payloadKeys: app.deps.payloadKeys, lifetimes: { idleMs: IDLE_MS, absoluteMs: MAX_MS } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The Redis key of the session behind a signed-in user's cookie, as the app stored it, and found there:
 * so that "deleted" later means this key, not one the test spelt itself.
 */
async function storedSessionKey(cookie: string): Promise<string> {
  const { key } = (await serverSession(app, cookie))!;
  expect(await app.deps.redis.exists(key)).toBe(1);
  return key;
}

/** 1 while Redis holds the key, 0 once it is deleted. */
const stored = (key: string) => app.deps.redis.exists(key);

/**
 * Resolves when any client sends Redis a command these arguments match (MONITOR): the observable
 * moment a request reached a step, instead of a pause hoping it did.
 */
async function redisCommand(matches: (args: string[]) => boolean): Promise<{ seen: Promise<void>; stop: () => void }> {
  const monitor = await app.deps.redis.monitor();
  const seen = new Promise<void>((resolve) => monitor.on('monitor', (_time: string, args: string[]) => matches(args) && resolve()));
  return { seen, stop: () => monitor.disconnect() };
}

describe('session lifetime', () => {
  it('ends a session left idle longer than the idle limit, and deletes it', async () => {
    const user = await signedInUser(app, 'idle');
    const key = await storedSessionKey(user.cookieValue());
    expect((await user.call('/dashboard/api/v1/me')).status).toBe(200);
    await sleep(IDLE_MS + 300);
    const res = await user.call('/dashboard/api/v1/me');
    expect(res.status).toBe(401);
    expect(bodyOf(res)).toMatchObject({ code: 'NOT_SIGNED_IN' });
    expect(await stored(key)).toBe(0);
  });

  it('keeps a session in use alive past the idle limit, but not past the absolute limit', async () => {
    const user = await signedInUser(app, 'absolute');
    const key = await storedSessionKey(user.cookieValue());
    const started = Date.now();
    // Used every STEP_MS until half an idle limit before the absolute one: past the idle limit, and
    // late enough that the idle limit would now end it after the absolute one.
    const expiresAts: number[] = [];
    while (Date.now() - started < MAX_MS - IDLE_MS / 2) {
      const res = await user.call('/dashboard/session');
      expect(res.status).toBe(200);
      expiresAts.push(Date.parse(bodyOf<{ expires_at: string }>(res).expires_at));
      await sleep(STEP_MS);
    }
    const lastExpiresAt = expiresAts.at(-1)!;
    // Each use moved the end later, until the absolute limit held it: the last two ends are that limit.
    expect(expiresAts).toEqual([...expiresAts].sort((a, b) => a - b));
    expect(expiresAts[0]).toBeLessThan(lastExpiresAt);
    expect(expiresAts.at(-2)).toBe(lastExpiresAt);
    expect(lastExpiresAt - started).toBeLessThanOrEqual(MAX_MS);
    // Just past it, and before the idle limit from the last use: only the absolute limit ends it here.
    await sleep(Math.max(0, lastExpiresAt - Date.now()) + 200);
    const res = await user.call('/dashboard/session');
    expect(res.status).toBe(401);
    expect(await stored(key)).toBe(0);
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
    const lock = `${before.key}:refreshing`;
    await app.deps.redis.set(lock, '1', 'PX', 10_000);
    // The waiting call has found the lock taken once it has tried to take it itself.
    const tried = await redisCommand((args) => args[0]?.toLowerCase() === 'set' && args[1] === lock && args.includes('NX'));
    let answered = false;
    const waiting = user.call('/dashboard/api/v1/me').finally(() => (answered = true));
    await tried.seen;
    tried.stop();
    expect(answered).toBe(false);
    // …and stores what the provider gave it.
    const renewed = await app.deps.devIdentity!.issueToken({ email: user.email, name: user.name });
    await sessions().replaceTokens(before, { ...before.tokens, accessToken: renewed, accessTokenExpiresAt: Date.now() + 3_600_000 });
    await app.deps.redis.del(lock);
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
    const key = await storedSessionKey(user.cookieValue());
    await sessions().replaceTokens(session, { ...session.tokens, refreshToken: 'not-a-refresh-token', accessTokenExpiresAt: Date.now() - 1_000 });
    const res = await user.call('/dashboard/api/v1/me');
    expect(res.status).toBe(401);
    expect(bodyOf(res)).toMatchObject({ code: 'NOT_SIGNED_IN' });
    expect(await stored(key)).toBe(0);
  });

  it('ends the session when the API refuses its access token', async () => {
    const user = await signedInUser(app, 'api-refused');
    const session = (await serverSession(app, user.cookieValue()))!;
    const key = await storedSessionKey(user.cookieValue());
    // A token the provider would not have signed: as the API sees a token revoked or re-keyed.
    const [header, payload] = session.tokens.accessToken.split('.');
    await sessions().replaceTokens(session, { ...session.tokens, accessToken: `${header}.${payload}.${'A'.repeat(86)}` });
    const res = await user.call('/dashboard/api/v1/me');
    expect(res.status).toBe(401);
    expect(bodyOf(res)).toMatchObject({ code: 'NOT_SIGNED_IN' });
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(await stored(key)).toBe(0);
  });
});
