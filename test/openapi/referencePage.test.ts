/**
 * `/docs` as a developer meets it, in Debian's Chromium against the real app: everything the page
 * loads comes from our own origin, "Authorize" takes a test key, and "Try it out" sends the
 * route's own example to the api and shows the answer. The schemas it shows are written out, not
 * `$ref`s. With DASHBOARD_SCREENSHOTS=1 it also refreshes docs/screenshots/api-reference.png.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { launchChromium } from '../support/chromium.js';
import { REPO_ROOT } from '../support/processes.js';
import { insertCustomer } from '../support/factories.js';
import { SCOPES } from '../../src/auth/scopes.js';

const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs', 'screenshots') : undefined;

let app: TestApp;
let browser: Browser;
let page: Page;
const requested: { url: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  app = await startTestApp();
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.setDefaultTimeout(15_000);
  page.on('request', (request) => requested.push({ url: request.url(), authorization: request.headers().authorization }));
});

afterEach(async ({ task }) => {
  if (task.result?.state === 'fail' && page) console.log(`page at ${page.url()}:\n${await page.locator('body').innerText().catch(() => '(unreadable)')}`);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe.sequential('the API reference in Chromium', () => {
  // Swagger UI's bundle is large: on a busy machine loading and rendering it has taken over 30 s.
  it('authorises with a test key and sends a route’s example from the page', async () => {
    const customer = await insertCustomer(app.deps, { scopes: [...SCOPES], mode: 'test', balance: 5_000 });
    expect(customer.key).toMatch(/^svc_test_/);

    await page.goto(`${app.url}/docs#/contacts/createContact`);
    const operation = page.locator('#operations-contacts-createContact');
    // The deep link opens the operation once the whole document is rendered: the slow part on a busy machine.
    await operation.waitFor({ timeout: 60_000 });

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().fill(customer.key);
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('.auth-btn-wrapper button.btn-done').click();

    // The body is the route's own example, ready to send as it is.
    const body = operation.locator('textarea.body-param__text');
    expect(JSON.parse(await body.inputValue())).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', country: 'GB' });
    await operation.locator('input[placeholder="org_oid"]').fill(customer.org.id);
    await operation.getByRole('button', { name: 'Execute' }).click();

    const live = operation.locator('.live-responses-table');
    await expect.poll(() => live.locator('tr.response .response-col_status').first().innerText().catch(() => ''), { timeout: 15_000 }).toBe('201');
    const answer = JSON.parse(await live.locator('tr.response .response-col_description pre.microlight').first().innerText()) as Record<string, unknown>;
    expect(answer).toMatchObject({ first_name: 'Ada', city: 'London', version: 1 });
    expect(String(answer.id)).toMatch(/^ct_/);

    const sent = requested.find((r) => r.url.endsWith(`/api/v1/orgs/${customer.org.id}/contacts`));
    expect(sent?.authorization).toBe(`Bearer ${customer.key}`);
    // Nothing the page loaded or sent left our origin: no CDN, no outside validator.
    expect(requested.filter((r) => !r.url.startsWith(app.url))).toEqual([]);
    if (SCREENSHOTS) {
      // From the operation's head to the answer: the request as sent and what came back.
      // Bounding boxes are in viewport coordinates; a full-page clip is in page coordinates.
      const scrollY = await page.evaluate<number>('window.scrollY');
      const top = (await operation.boundingBox())!;
      const end = (await live.boundingBox())!;
      const clip = { x: top.x, y: top.y + scrollY, width: top.width, height: end.y + end.height - top.y + 8 };
      await page.screenshot({ path: path.join(SCREENSHOTS, 'api-reference.png'), fullPage: true, clip });
    }
  }, 120_000);

  it('writes the schemas out in full, with every declared status', async () => {
    const operation = page.locator('#operations-domains-getAuthCode');
    await operation.locator('.opblock-summary-control').click();
    await operation.locator('tr.response').first().waitFor();
    const statuses = await Promise.all((await operation.locator('tr.response').all()).map((row) => row.getAttribute('data-code')));
    expect(statuses).toEqual(expect.arrayContaining(['200', '401', '403', '404', '409', '429']));
    // The 409's example names the refusal a caller meets: the transfer lock.
    const conflict = operation.locator('tr.response[data-code="409"]');
    expect(await conflict.innerText()).toContain('DOMAIN_LOCKED');
    // Its schema, opened: the fields themselves, not a reference to look up.
    await conflict.getByRole('tab', { name: 'Schema' }).click();
    const model = await conflict.locator('.model-box').innerText();
    expect(model).toContain('detail');
    expect(model).toContain('code');
    expect(await operation.innerText()).not.toContain('$ref');
  });
});
