/**
 * The device authorization grant (RFC 8628) on the development provider, as the command line uses it
 * (openid-client, a public client) and as a person completes it in Chromium: every page in words and
 * passing axe-core, a wrong code said so, a cancelled sign-in refused to the device, and the tokens
 * it ends with accepted by the API and refreshed.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { launchChromium } from '../support/chromium.js';
import { expectNoAxeViolations } from '../support/axe.js';
import { bearer, uniqueEmail } from '../support/actors.js';
import { readJson } from '../support/http.js';

let app: TestApp;
let browser: Browser;
let settings: { issuer: string; client_id: string; scopes: string[] };
let config: oidc.Configuration;

beforeAll(async () => {
  app = await startTestApp();
  browser = await launchChromium();
  const res = await app.fetch('/api/v1/sign-in/device');
  expect(res.status).toBe(200);
  settings = await readJson(res);
  config = await oidc.discovery(new URL(settings.issuer), settings.client_id, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A person at their own browser (their own address, behind the test app's proxy). */
async function personPage(): Promise<Page> {
  const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': app.clientAddress } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

describe('device sign-in on the development provider', () => {
  it('names its provider and public client for the command line', () => {
    expect(settings).toEqual({ issuer: `${app.url}/dev/oidc`, client_id: 'domain-service-cli', scopes: ['openid', 'email', 'profile', 'offline_access'] });
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${app.url}/dev/oidc/device/auth`);
  });

  // A person's pages in Chromium, each checked with axe, while the device polls: 11 s in a cold CI run.
  it('signs a device in once the person types its code, confirms it and says who they are', { timeout: 60_000 }, async () => {
    const device = await oidc.initiateDeviceAuthorization(config, { scope: settings.scopes.join(' ') });
    expect(device.user_code).toMatch(/^[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}$/);
    const tokens = oidc.pollDeviceAuthorizationGrant(config, device);

    const page = await personPage();
    await page.goto(device.verification_uri);
    await expectNoAxeViolations(page, 'the device code page');
    await page.getByLabel('Code shown on your device').fill('BBBB-BBBB');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('No device is waiting with that code');
    await expectNoAxeViolations(page, 'the device code page, after a wrong code');

    await page.getByLabel('Code shown on your device').fill(device.user_code.toLowerCase().replace('-', ''));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Confirm the device' }).waitFor();
    expect(await page.getByLabel('Device code').textContent()).toBe(device.user_code);
    await expectNoAxeViolations(page, 'the device confirmation page');
    await page.getByRole('button', { name: 'Continue' }).click();

    const email = uniqueEmail('device');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Device signed in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain('The domain-service command line is signed in');
    await expectNoAxeViolations(page, 'the device success page');

    const granted = await tokens;
    expect(granted.refresh_token).toBeTruthy();
    const me = await app.fetch('/api/v1/me', { headers: bearer(granted.access_token) });
    expect(me.status).toBe(200);
    expect(await readJson(me)).toMatchObject({ email, name: 'Grace Hopper', auth: { type: 'session', mode: 'live' } });

    // The command line stays signed in: the refresh token gives a new access token (and a new refresh token).
    const refreshed = await oidc.refreshTokenGrant(config, granted.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(granted.refresh_token);
    expect((await app.fetch('/api/v1/me', { headers: bearer(refreshed.access_token) })).status).toBe(200);
  });

  it('tells the device no when the person cancels', async () => {
    const device = await oidc.initiateDeviceAuthorization(config, { scope: settings.scopes.join(' ') });
    const outcome = oidc.pollDeviceAuthorizationGrant(config, device).then(
      () => 'granted',
      (err: unknown) => (err instanceof oidc.ResponseBodyError ? err.error : String(err)),
    );
    const page = await personPage();
    await page.goto(device.verification_uri);
    await page.getByLabel('Code shown on your device').fill(device.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Sign-in cancelled');
    expect(await outcome).toBe('access_denied');
  });
});
