/**
 * The dashboard's Webhooks page in Debian's Chromium, against the real api, a worker, the event
 * dispatcher, Temporal, PostgreSQL and Redis, delivering to a receiver on loopback: a test-mode
 * endpoint, which WEBHOOK_TEST_LOOPBACK=true lets be http://127.0.0.1, as under `npm run dev`.
 * With DASHBOARD_SCREENSHOTS=1 it also refreshes docs/screenshots/webhooks.png.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openChromiumDashboard, pollPage as poll, showPageOnFailure, type ChromiumDashboard } from '../support/dashboardChromium.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { startEventDispatcher } from '../../src/features/webhooks/startDispatcher.js';
import { randomBase62 } from '../../src/ids.js';
import { expectNoAxeViolations } from '../support/axe.js';
import { createOwnDatabase, type OwnDatabase } from '../support/ownDatabase.js';

const person = { email: `grace-${randomBase62(6).toLowerCase()}@example.com`, name: 'Grace Hopper' };

let database: OwnDatabase;
let dashboard: ChromiumDashboard;
let receiver: WebhookReceiver;
let dispatcherId: string;
let page: Page;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Its own database: a dispatcher hands every undispatched event of its database to its own task
  // queue, so on the run's shared one another file's dispatcher could take this page's ping.
  database = await createOwnDatabase();
  dashboard = await openChromiumDashboard({ worker: true, env: { WEBHOOK_TEST_LOOPBACK: 'true', DATABASE_URL: database.url } });
  dispatcherId = await startEventDispatcher(dashboard.app.deps.temporal.client, dashboard.app.deps.config);
  page = dashboard.page;
});
afterEach(showPageOnFailure(() => page));
afterAll(async () => {
  await dashboard?.app.deps.temporal.client.workflow.getHandle(dispatcherId).terminate('test over').catch(() => undefined);
  await dashboard?.close();
  await receiver?.close();
  await database?.drop();
});

describe.sequential('the Webhooks page in Chromium', () => {
  it('adds an endpoint, shows its secret once, pings it and lists the delivery', async () => {
    await dashboard.signIn(person);
    await dashboard.createOrg('Compilers Inc');
    await page.getByRole('switch', { name: 'Test data' }).check();
    await poll(() => page.getByRole('status').first().textContent()).toContain('Test data');
    await dashboard.openNav('Webhooks');
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
    await dashboard.screenshot('webhooks.png');
    await expectNoAxeViolations(page, 'the Webhooks page');

    await page.reload();
    await poll(() => page.getByRole('article', { name: `Endpoint ${receiver.url}` }).textContent()).toContain('Build notifications');
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });
});
