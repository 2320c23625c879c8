/**
 * E-mail forwards on a domain's page, in Debian's Chromium driven by Playwright against the real api
 * (serving the built front end), in test mode: the first forward adds the domain's MX, SPF and DMARC
 * records (the page says so, and the records table shows them), a bad address is refused where it
 * was typed, a forward is deleted. With DASHBOARD_SCREENSHOTS=1 it refreshes docs/screenshots/email-forwards.png.
 */
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openChromiumDashboard, pollPage as poll, showPageOnFailure, type ChromiumDashboard } from '../support/dashboardChromium.js';
import { randomBase62 } from '../../src/ids.js';
import { expectNoAxeViolations } from '../support/axe.js';
import { insertActiveDomain } from '../support/domains.js';

const person = { email: `ray-${randomBase62(6).toLowerCase()}@example.com`, name: 'Ray Tomlinson' };

let dashboard: ChromiumDashboard;
let page: Page;

beforeAll(async () => {
  dashboard = await openChromiumDashboard();
  page = dashboard.page;
});
afterEach(showPageOnFailure(() => page));
afterAll(() => dashboard?.close());

describe.sequential('e-mail forwards in the dashboard', () => {
  it('forwards an address, shows the mail records it set, refuses a bad address and deletes a forward', async () => {
    await dashboard.signIn(person);
    await dashboard.createOrg('Arpanet Mail');
    const orgId = await page.getByRole('combobox', { name: 'Organisation' }).inputValue();
    await page.getByRole('switch', { name: 'Test data' }).check();
    await poll(() => page.getByRole('status').first().textContent()).toContain('Test data');
    const domain = await insertActiveDomain(dashboard.app, { org: { id: orgId }, livemode: false }, { name: `mail-${randomBase62(6).toLowerCase()}.com` });
    await page.goto(dashboard.url(`/domains/${domain}`));

    const form = page.getByRole('form', { name: 'New e-mail forward' });
    await form.getByRole('textbox', { name: /^Address/ }).fill('hello');
    await form.getByRole('textbox', { name: /^Forward to/ }).fill('ray@example.org\nteam@example.net');
    await form.getByRole('button', { name: 'Forward', exact: true }).click();
    const forwards = page.getByRole('table', { name: 'E-mail forwards' });
    await poll(() => forwards.textContent()).toContain(`hello@${domain}`);
    await poll(() => page.getByText('Added MX @').count()).toBe(1);
    // The records editor read the zone again: its rows (inputs) hold the SPF record.
    await poll(() => page.locator('input').evaluateAll((inputs: { value: string }[]) => inputs.map((input) => input.value))).toContain('v=spf1 mx ~all');

    await form.getByRole('textbox', { name: /^Address/ }).fill('sales');
    await form.getByRole('textbox', { name: /^Forward to/ }).fill('not an address');
    await form.getByRole('button', { name: 'Forward', exact: true }).click();
    await poll(async () => (await form.textContent()) ?? '').toContain('Must be an e-mail address');

    await form.getByRole('textbox', { name: /^Address/ }).fill('*');
    await form.getByRole('textbox', { name: /^Forward to/ }).fill('ray@example.org');
    await form.getByRole('button', { name: 'Forward', exact: true }).click();
    await poll(() => forwards.textContent()).toContain(`*@${domain}`);
    await dashboard.screenshot('email-forwards.png');
    await expectNoAxeViolations(page, 'a domain page with its e-mail forwards');

    await forwards.getByRole('row', { name: new RegExp(`\\*@${domain.replace(/\./g, '\\.')}`) }).getByRole('button', { name: 'Delete' }).click();
    await forwards.getByRole('button', { name: 'Yes, delete' }).click();
    await poll(() => forwards.textContent()).not.toContain(`*@${domain}`);
  });
});
