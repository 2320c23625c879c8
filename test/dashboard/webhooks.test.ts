/**
 * The dashboard's Webhooks page in Debian's Chromium, against the real api, a worker, the event
 * dispatcher, Temporal, PostgreSQL and Redis, delivering to a receiver on loopback
 * (WEBHOOK_ALLOW_PRIVATE=true lets an http://127.0.0.1 endpoint through).
 * With DASHBOARD_SCREENSHOTS=1 it also refreshes docs/screenshots/webhooks.png.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { launchChromium } from '../support/chromium.js';
import { builtDashboard } from '../support/dashboardBuild.js';
import { REPO_ROOT } from '../support/processes.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { startEventDispatcher } from '../../src/services/webhooks/startDispatcher.js';
import { randomBase62 } from '../../src/ids.js';

const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs', 'screenshots') : undefined;
const person = { email: `grace-${randomBase62(6).toLowerCase()}@example.com`, name: 'Grace Hopper' };

let app: TestApp;
let receiver: WebhookReceiver;
let dispatcherId: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const url = (pathname: string) => `${app.url}/dashboard${pathname}`;
const poll = <T>(read: () => Promise<T>, options: { timeout?: number } = {}) => expect.poll(read, { timeout: 15_000, interval: 100, ...options });

beforeAll(async () => {
  const dist = await builtDashboard();
  receiver = await startWebhookReceiver();
  app = await startTestApp({ worker: true, env: { DASHBOARD_DIST_DIR: dist, WEBHOOK_ALLOW_PRIVATE: 'true' } });
  dispatcherId = await startEventDispatcher(app.deps.temporal.client, app.deps.config);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
});

afterEach(async ({ task }) => {
  if (task.result?.state === 'fail' && page) console.log(`page at ${page.url()}:\n${await page.locator('body').innerText().catch(() => '(unreadable)')}`);
});

afterAll(async () => {
  await browser?.close();
  await app?.deps.temporal.client.workflow.getHandle(dispatcherId).terminate('test over').catch(() => undefined);
  await app?.close();
  await receiver?.close();
});

describe.sequential('the Webhooks page in Chromium', () => {
  it('adds an endpoint, shows its secret once, pings it and lists the delivery', async () => {
    await page.goto(url('/'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dev\/oidc\//);
    await page.getByLabel('E-mail').fill(person.email);
    await page.getByLabel('Name').fill(person.name);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/'));
    await page.locator('.topbar .nav-links').getByRole('link', { name: 'Organisations', exact: true }).click();
    await page.getByRole('textbox', { name: 'New organisation' }).fill('Compilers Inc');
    await page.getByRole('button', { name: 'Create' }).click();
    await poll(() => page.getByRole('combobox', { name: 'Organisation' }).inputValue()).toMatch(/^org_/);

    await page.locator('.topbar .nav-links').getByRole('link', { name: 'Webhooks', exact: true }).click();
    await poll(() => page.getByRole('heading', { level: 1 }).first().textContent()).toBe('Webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description').fill('Build notifications');
    await page.getByRole('button', { name: 'Add endpoint' }).click();

    const secret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await poll(() => page.getByRole('article', { name: 'Webhook signing secret' }).textContent()).toContain('secrets manager');
    const card = page.getByRole('article', { name: `Endpoint ${receiver.url}` });
    await poll(() => card.textContent()).toContain('all events');

    await card.getByRole('button', { name: 'Send test ping' }).click();
    const ping = await receiver.waitFor((hook) => (JSON.parse(hook.body) as { type: string }).type === 'ping');
    expect(ping.headers['webhook-signature']).toMatch(/^v1,/);

    await card.getByRole('button', { name: 'Deliveries' }).click();
    await poll(
      async () => {
        await card.getByRole('button', { name: 'Refresh deliveries' }).click();
        return card.getByTestId('delivery-status').allTextContents();
      },
      { timeout: 20_000 },
    ).toContain('200');
    if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, 'webhooks.png'), fullPage: true });

    await page.reload();
    await poll(() => page.getByRole('article', { name: `Endpoint ${receiver.url}` }).textContent()).toContain('Build notifications');
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });
});
