import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { TestBrowser } from '../support/browser.js';
import { accessTokenClaims, bodyOf, serverSession, signedInUser } from '../support/dashboard.js';
import { bearer, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { runTs } from '../support/processes.js';
import { readJson } from '../support/http.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

interface Me {
  id: string;
  email: string;
  name: string;
  auth: { type: string; mode: string };
}

const JWT_SHAPE = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

describe('dashboard sign-in through the development OpenID provider', () => {
  it('signs in with an e-mail and a name, and the proxied API shows that user', async () => {
    const user = await signedInUser(app, 'signin');
    expect(user.callback.status).toBe(302);
    expect(user.callback.headers.get('location')).toBe('/dashboard/');

    const session = await user.call('/dashboard/session');
    expect(session.status).toBe(200);
    expect(session.headers.get('cache-control')).toBe('no-store');
    const info = bodyOf<{ user: { email: string; name: string }; csrf_token: string; expires_at: string }>(session);
    expect(info.user).toEqual({ email: user.email, name: user.name });
    expect(info.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const expiresIn = Date.parse(info.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(11.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(12 * 3600_000);

    const me = await user.call('/dashboard/api/v1/me');
    expect(me.status).toBe(200);
    expect(bodyOf<Me>(me)).toMatchObject({ email: user.email, name: user.name, auth: { type: 'session', mode: 'live' } });
    expect(me.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect(me.headers.get('x-request-id')).toMatch(/^req_/);
    expect(me.headers.get('www-authenticate')).toBeNull();

  });

  it('keeps `npm run token` tokens working beside it, for the same user', async () => {
    const user = await signedInUser(app, 'cli');
    const viaDashboard = bodyOf<Me>(await user.call('/dashboard/api/v1/me'));
    const cli = runTs('src/cli/token.ts', ['--email', user.email], { DATA_DIR: app.deps.config.dataDir, PORT: new URL(app.url).port });
    expect(await cli.exited).toBe(0);
    const res = await app.fetch('/api/v1/me', { headers: bearer(cli.output().trim()) });
    expect(res.status).toBe(200);
    // One person, whichever way they come: the provider's `sub` is the one `npm run token` uses.
    expect(await readJson<Me>(res)).toMatchObject({ id: viaDashboard.id, email: user.email, auth: { type: 'session' } });
  });

  it('gives the browser only an opaque __Host- cookie (HttpOnly, SameSite=Lax, Secure, Path=/), never the token', async () => {
    const user = await signedInUser(app, 'cookie');
    const setCookie = user.callback.headers.getSetCookie().find((line) => line.startsWith('__Host-dashboard_session='))!;
    const attributes = setCookie.split(';').map((part) => part.trim());
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Secure', 'Path=/']));
    expect(user.cookieValue()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Every cookie the dashboard sets (the sign-in's too) is one a subdomain or plain-HTTP page cannot plant.
    const dashboardCookies = user.browser.seen.filter((seen) => new URL(seen.url).pathname.startsWith('/dashboard/')).flatMap((seen) => seen.headers.getSetCookie());
    expect(dashboardCookies.map((line) => line.split('=')[0])).toEqual(['__Host-dashboard_login', '__Host-dashboard_login', '__Host-dashboard_session']);
    for (const line of dashboardCookies) {
      const parts = line.split(';').map((part) => part.trim().toLowerCase());
      expect(parts).toEqual(expect.arrayContaining(['secure', 'path=/']));
      expect(parts.some((part) => part.startsWith('domain='))).toBe(false);
    }

    await user.call('/dashboard/api/v1/me');
    await user.call('/dashboard/api/v1/orgs', { method: 'POST', body: { name: 'Token check' } });
    const session = (await serverSession(app, user.cookieValue()))!;
    const token = session.tokens.accessToken;
    expect(token).toMatch(JWT_SHAPE);
    for (const seen of user.browser.seen) {
      const headers = [...seen.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
      for (const text of [seen.body, headers]) {
        expect(text).not.toContain(token);
        if (session.tokens.refreshToken) expect(text).not.toContain(session.tokens.refreshToken);
      }
      // The code flow keeps every token in the back channel: no response carries anything JWT-like.
      expect(`${seen.body}\n${headers}`).not.toMatch(JWT_SHAPE);
    }
  });

  it('gives each sign-in its own sid, so rate limits count per dashboard session', async () => {
    const first = await signedInUser(app, 'sid');
    const again = await signedInUser(app, 'sid');
    const sids = await Promise.all(
      [first, again].map(async (user) => accessTokenClaims((await serverSession(app, user.cookieValue()))!).sid),
    );
    expect(sids[0]).toMatch(/^sess_/);
    expect(sids[1]).toMatch(/^sess_/);
    expect(sids[0]).not.toBe(sids[1]);
    const claims = accessTokenClaims((await serverSession(app, first.cookieValue()))!);
    expect(claims).toMatchObject({ iss: `${new URL(app.url).origin}/dev/oidc`, aud: 'domain-service', email: first.email, name: first.name });
  });

  it('lets a signed-in person see and accept an invitation: the provider vouches for the address typed in', async () => {
    const user = await signedInUser(app, 'invited');
    const owner = await sessionToken(app, uniqueEmail('inviter'));
    const org = await createOrg(app, owner, 'Inviting');
    const invited = await app.fetch(`/api/v1/orgs/${org.id}/members`, {
      method: 'POST',
      headers: jsonHeaders(owner),
      body: JSON.stringify({ email: user.email, role: 'member' }),
    });
    const { invitation_id: invitationId } = await readJson<{ invitation_id: string }>(invited);
    expect(accessTokenClaims((await serverSession(app, user.cookieValue()))!)).toMatchObject({ email: user.email, email_verified: true });

    const listed = bodyOf<{ data: { invitation_id: string }[] }>(await user.call('/dashboard/api/v1/me/invitations'));
    expect(listed.data.map((invitation) => invitation.invitation_id)).toEqual([invitationId]);
    const accepted = await user.call(`/dashboard/api/v1/me/invitations/${invitationId}/accept`, { method: 'POST' });
    expect(accepted.status).toBe(200);
    expect(bodyOf<{ org_id: string; role: string }>(accepted)).toEqual({ org_id: org.id, role: 'member' });
  });

  it('answers 401 NOT_SIGNED_IN without a session, or with a cookie it does not know', async () => {
    const browser = new TestBrowser();
    for (const path of ['/dashboard/session', '/dashboard/api/v1/me']) {
      const res = await browser.request(`${app.url}${path}`);
      expect(res.status).toBe(401);
      expect(bodyOf(res)).toEqual({ detail: expect.any(String), code: 'NOT_SIGNED_IN' });
    }
    browser.setCookie(new URL(app.url).hostname, '__Host-dashboard_session', 'x'.repeat(43));
    expect((await browser.request(`${app.url}/dashboard/api/v1/me`)).status).toBe(401);
  });

  it('refuses a callback that this browser did not start', async () => {
    const stranger = new TestBrowser();
    const res = await stranger.request(`${app.url}/dashboard/callback?code=abc&state=def`);
    expect(res.status).toBe(400);
    expect(res.body).toContain('Sign in again');
    expect(res.headers.getSetCookie().some((line) => line.startsWith('__Host-dashboard_session='))).toBe(false);
  });
});

describe('a callback that does not match its sign-in', () => {
  it('is refused with the sign-in page link, and the started sign-in cannot be replayed', async () => {
    const browser = new TestBrowser();
    const started = await browser.request(`${app.url}/dashboard/login`);
    expect(started.status).toBe(302);
    const authorize = new URL(started.headers.get('location')!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${app.url}/dashboard/callback`);
    const forged = await browser.request(`${app.url}/dashboard/callback?code=forged&state=${authorize.searchParams.get('state')}x&iss=${encodeURIComponent(`${app.url}/dev/oidc`)}`);
    expect(forged.status).toBe(400);
    expect(forged.body).toContain('did not confirm this sign-in');
    const again = await browser.request(`${app.url}/dashboard/callback?code=forged&state=${authorize.searchParams.get('state')}`);
    expect(again.status).toBe(400);
    expect(again.body).toContain('not started in this browser');
    expect((await browser.request(`${app.url}/dashboard/session`)).status).toBe(401);
  });
});

describe('sign-out', () => {
  it('needs the CSRF token, then deletes the session so the old cookie is refused', async () => {
    const user = await signedInUser(app, 'logout');
    const cookie = user.cookieValue();
    const refused = await user.browser.request(`${app.url}/dashboard/logout`, { method: 'POST', headers: { origin: user.origin } });
    expect(refused.status).toBe(403);
    expect(bodyOf(refused)).toMatchObject({ code: 'CSRF_FAILED' });
    expect((await user.call('/dashboard/session')).status).toBe(200);

    const out = await user.call('/dashboard/logout', { method: 'POST' });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()).toEqual([expect.stringMatching(/^__Host-dashboard_session=; Path=\/; Max-Age=0/)]);
    expect(await serverSession(app, cookie)).toBeUndefined();

    // A copy of the cookie kept from before sign-out: the session behind it is gone.
    const replay = new TestBrowser();
    replay.setCookie(new URL(app.url).hostname, '__Host-dashboard_session', cookie);
    for (const path of ['/dashboard/session', '/dashboard/api/v1/me']) {
      const res = await replay.request(`${app.url}${path}`);
      expect(res.status).toBe(401);
      expect(bodyOf(res)).toMatchObject({ code: 'NOT_SIGNED_IN' });
    }
  });
});
