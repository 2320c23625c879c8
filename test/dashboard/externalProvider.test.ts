import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { TestBrowser, signInToDashboard } from '../support/browser.js';
import { bodyOf } from '../support/dashboard.js';
import { uniqueEmail } from '../support/actors.js';
import { freePort, startOnFreePort } from '../../scripts/lib/temporalDevServer.js';
import { DEV_DASHBOARD_CLIENT } from '../../src/config.js';

/**
 * The production configuration: the dashboard of one api signs in against an OpenID provider it
 * knows only by AUTH_ISSUER (here another api's development provider, a standard one on loopback),
 * and that api's API finds the provider's keys by discovery (no AUTH_JWKS_URL).
 */
let provider: TestApp;
let service: TestApp;
beforeAll(async () => {
  service = await startOnFreePort(async (port) => {
    provider = await startTestApp({ env: { DASHBOARD_ORIGINS: `http://127.0.0.1:${port}` } });
    try {
      return await startTestApp({
        port,
        env: {
          AUTH_ISSUER: `${provider.url}/dev/oidc`,
          AUTH_AUDIENCE: 'domain-service',
          AUTH_CLIENT_ID: DEV_DASHBOARD_CLIENT.id,
          AUTH_CLIENT_SECRET: DEV_DASHBOARD_CLIENT.secret,
        },
      });
    } catch (err) {
      await provider.close();
      throw err;
    }
  });
});
afterAll(async () => {
  await service?.close();
  await provider?.close();
});

describe('a standard OpenID provider found by discovery at AUTH_ISSUER', () => {
  it('signs in, and the API accepts the access token with keys found by discovery', async () => {
    expect(service.deps.devIdentity).toBeUndefined();
    expect(service.deps.config.auth).toMatchObject({ issuer: `${provider.url}/dev/oidc`, jwksUrl: undefined });
    const browser = new TestBrowser();
    const email = uniqueEmail('external');
    const callback = await signInToDashboard(browser, service.url, { email, name: 'External Person' });
    expect(callback.url).toMatch(new RegExp(`^${service.url}/dashboard/callback\\?`));
    expect(callback.status).toBe(302);
    // The form was the provider's, on its own origin.
    expect(browser.seen.some((seen) => seen.url.startsWith(`${provider.url}/dev/oidc/interaction/`))).toBe(true);

    const me = await browser.request(`${service.url}/dashboard/api/v1/me`);
    expect(me.status).toBe(200);
    expect(bodyOf(me)).toMatchObject({ email, name: 'External Person', auth: { type: 'session' } });
    const session = await browser.request(`${service.url}/dashboard/session`);
    expect(bodyOf(session)).toMatchObject({ user: { email, name: 'External Person' } });
  });

  it('answers 503 SIGN_IN_NOT_CONFIGURED at /dashboard/login when the dashboard has no client', async () => {
    const unconfigured = await startTestApp({
      port: await freePort(),
      env: { AUTH_ISSUER: `${provider.url}/dev/oidc`, AUTH_AUDIENCE: 'domain-service' },
    });
    try {
      const res = await unconfigured.fetch('/dashboard/login', { redirect: 'manual' });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'SIGN_IN_NOT_CONFIGURED' });
    } finally {
      await unconfigured.close();
    }
  });
});
