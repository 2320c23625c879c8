/**
 * The money guards in the dashboard, in Debian's Chromium driven by Playwright against the real api
 * (serving the built front end): an owner sets the organisation's monthly spending limit in test mode
 * and sees it on the Billing page; a key is created with a spending limit and allowed domains, and the
 * list shows them; a registration is checked first (dry run) and a max price below the price is
 * refused in words. With DASHBOARD_SCREENSHOTS=1 it refreshes docs/screenshots/billing-limits.png.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openChromiumDashboard, pollPage as poll, showPageOnFailure, type ChromiumDashboard } from '../support/dashboardChromium.js';
import { randomBase62 } from '../../src/ids.js';
import { expectNoAxeViolations } from '../support/axe.js';

const person = { email: `grace-${randomBase62(6).toLowerCase()}@example.com`, name: 'Grace Hopper' };

let dashboard: ChromiumDashboard;
let page: Page;

beforeAll(async () => {
  dashboard = await openChromiumDashboard();
  page = dashboard.page;
});
afterEach(showPageOnFailure(() => page));
afterAll(() => dashboard?.close());

describe.sequential('money guards in the dashboard', () => {
  it('lets an owner set and clear the test-mode monthly spending limit, shown on the Billing page', async () => {
    await dashboard.signIn(person);
    await dashboard.createOrg('Compilers Inc');
    await page.getByRole('switch', { name: 'Test data' }).check();
    await poll(() => page.getByRole('status').first().textContent()).toContain('Test data');

    await dashboard.openNav('Billing');
    await poll(() => page.getByTestId('monthly-limit').textContent()).toBe('none');
    expect(await page.getByTestId('spent-this-month').textContent()).toBe('$0.00');
    await page.getByLabel('Limit in USD').fill('250');
    await page.getByRole('button', { name: 'Save limit' }).click();
    await poll(() => page.getByTestId('monthly-limit').textContent()).toBe('$250.00');
    await page.getByLabel('Amount in USD').fill('40');
    await page.getByRole('button', { name: 'Add funds' }).click();
    await poll(() => page.getByTestId('available').textContent()).toBe('$40.00');
    await dashboard.screenshot('billing-limits.png');
    await expectNoAxeViolations(page, 'the Billing page with a spending limit');

    // The limit belongs to the organisation, not to this page: it is there after a reload.
    await page.reload();
    await poll(() => page.getByTestId('monthly-limit').textContent()).toBe('$250.00');
    await page.getByRole('button', { name: 'Remove limit' }).click();
    await poll(() => page.getByTestId('monthly-limit').textContent()).toBe('none');
  });

  it('creates a key with a spending limit and allowed domains, lists them, and shows a bad entry next to its field', async () => {
    await dashboard.openNav('API keys');
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name', { exact: true }).fill('Shop robot');
    await form.getByRole('radio', { name: 'CI' }).check();
    await form.getByLabel('Monthly spending limit (USD)').fill('75');
    await form.getByLabel('Allowed domains').fill('*.example.com\nshop.example.org');
    await form.getByLabel('Allowed IP ranges').fill('not-an-ip');
    await form.getByRole('button', { name: 'Create key' }).click();
    // The API's 422 is shown under the field it names, not as a general note.
    await poll(() => form.locator('label', { hasText: 'Allowed IP ranges' }).locator('.field-error').count()).toBe(1);
    expect(await page.getByTestId('key-secret').count()).toBe(0);
    await expectNoAxeViolations(page, 'the API keys page with a refused field');

    await form.getByLabel('Allowed IP ranges').fill('203.0.113.0/24');
    await form.getByRole('button', { name: 'Create key' }).click();
    await poll(() => page.getByTestId('key-secret').count()).toBe(1);
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'Shop robot' });
    await poll(() => row.textContent()).toContain('$75.00 a month');
    expect(await row.textContent()).toContain('*.example.com, shop.example.org');
    expect(await row.textContent()).toContain('203.0.113.0/24');

    // Editing keeps the key and changes only its guards.
    await row.getByRole('button', { name: 'Edit limits' }).click();
    const edit = page.getByRole('form', { name: 'Limits of Shop robot' });
    await edit.getByLabel('Monthly spending limit (USD)').fill('');
    await edit.getByLabel('Allowed domains').fill('*.example.net');
    await edit.getByRole('button', { name: 'Save limits' }).click();
    await poll(() => row.textContent()).toContain('Limit: none');
    expect(await row.textContent()).toContain('*.example.net');
    await expectNoAxeViolations(page, 'the API keys page with limits');
  });

  it('checks a registration first: the price and the balance after, nothing charged, and a max price below it refused in words', async () => {
    await dashboard.openNav('Contacts');
    const contact = page.getByRole('form', { name: 'New contact' });
    const fields = { 'First name': 'Grace', 'Last name': 'Hopper', 'E-mail': person.email, Phone: '+12025550123', Address: '1 Navy Way', City: 'Arlington', 'Postal code': '22202', Country: 'US' };
    for (const [label, value] of Object.entries(fields)) await contact.getByLabel(label, { exact: true }).fill(value);
    await contact.getByRole('button', { name: 'Add contact' }).click();
    await poll(() => page.getByRole('table', { name: 'Contacts' }).textContent()).toContain('Grace Hopper');

    await dashboard.openNav('Domains');
    await page.getByRole('searchbox').fill(`money-${randomBase62(8).toLowerCase()}.com`);
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.getByRole('button', { name: 'Register…' }).click();
    const registration = page.getByRole('article', { name: 'Register a domain' });
    await registration.getByLabel('Registrant contact').selectOption({ label: `Grace Hopper (${person.email})` });
    await poll(() => registration.getByTestId('balance').textContent()).toBe('$40.00');
    const price = (await registration.getByTestId('price').textContent())!;
    await registration.getByRole('button', { name: 'Check first' }).click();
    await poll(() => registration.getByTestId('dry-run').textContent()).toContain(`it would cost ${price}`);
    const after = 40 - Number(price.replace(/[$,]/g, ''));
    expect(await registration.getByTestId('dry-run').textContent()).toContain(`leaving $${after.toFixed(2)} available`);

    await registration.getByLabel('Max price in USD').fill('0.01');
    await registration.getByRole('button', { name: 'Check first' }).click();
    await poll(() => registration.getByRole('alert').textContent()).toContain('higher than the most you chose to pay');
    await expectNoAxeViolations(page, 'the Domains page checking a registration first');
    await dashboard.openNav('Billing');
    expect(await page.getByTestId('available').textContent()).toBe('$40.00');
  });
});
