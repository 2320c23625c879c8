/**
 * WHOIS privacy on a domain's page, in Debian's Chromium driven by Playwright against the real api
 * (serving the built front end), in test mode: the page shows it, the switch turns it on through the
 * registrar when the settings are saved, and it stays on after a reload; the registration form asks
 * for it.
 * With DASHBOARD_SCREENSHOTS=1 it refreshes docs/screenshots/domain-whois-privacy.png.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openChromiumDashboard, pollPage as poll, showPageOnFailure, type ChromiumDashboard } from '../support/dashboardChromium.js';
import { randomBase62 } from '../../src/ids.js';
import { expectNoAxeViolations } from '../support/axe.js';
import { insertActiveDomain } from '../support/domains.js';
import { creditBalance, insertContact } from '../support/factories.js';

const person = { email: `hedy-${randomBase62(6).toLowerCase()}@example.com`, name: 'Hedy Lamarr' };

let dashboard: ChromiumDashboard;
let page: Page;
let orgId: string;

beforeAll(async () => {
  dashboard = await openChromiumDashboard();
  page = dashboard.page;
});
afterEach(showPageOnFailure(() => page));
afterAll(() => dashboard?.close());

/** Opens the page of an active test-mode domain of the current organisation, written straight to the database. */
async function openDomain(label: string): Promise<string> {
  const name = await insertActiveDomain(dashboard.app, { org: { id: orgId }, livemode: false }, { name: `${label}-${randomBase62(8).toLowerCase()}.com` });
  await page.goto(dashboard.url(`/domains/${name}`));
  await poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
  return name;
}

describe.sequential('WHOIS privacy on the domain page', () => {
  it('shows it off, turns it on with the switch, and shows it on after a reload', async () => {
    await dashboard.signIn(person);
    await dashboard.createOrg('Frequency Hopping Ltd');
    orgId = await page.getByRole('combobox', { name: 'Organisation' }).inputValue();
    await page.getByRole('switch', { name: 'Test data' }).check();
    await poll(() => page.getByRole('status').first().textContent()).toContain('Test data');

    await openDomain('hidden');
    const settings = page.getByRole('form', { name: 'Domain settings' });
    const privacy = settings.getByRole('switch', { name: 'WHOIS privacy' });
    await poll(() => page.getByTestId('whois-privacy').textContent()).toBe('off');
    await poll(() => privacy.isChecked()).toBe(false);
    await privacy.check();
    const saved = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.status() === 200);
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await saved;
    await poll(() => page.getByTestId('whois-privacy').textContent()).toBe('on');
    await dashboard.screenshot('domain-whois-privacy.png');
    await expectNoAxeViolations(page, "a domain's page with WHOIS privacy on");

    await page.reload();
    await poll(() => page.getByTestId('whois-privacy').textContent()).toBe('on');
    await poll(() => settings.getByRole('switch', { name: 'WHOIS privacy' }).isChecked()).toBe(true);
  });

  it('the registration form sends whois_privacy: true when its switch is on', async () => {
    await insertContact(dashboard.app.deps, { orgId, livemode: false });
    await creditBalance(dashboard.app.deps, { orgId, livemode: false, amount: 5_000 });
    const name = `veiled-${randomBase62(8).toLowerCase()}.com`;
    await dashboard.openNav('Domains');
    await page.getByRole('searchbox').fill(name);
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.getByRole('button', { name: 'Register…' }).click();
    const registration = page.getByRole('article', { name: 'Register a domain' });
    await registration.getByLabel('Registrant contact').selectOption({ index: 1 });
    await registration.getByRole('switch', { name: /^WHOIS privacy/ }).check();
    const dryRun = page.waitForRequest((r) => r.method() === 'POST' && r.headers()['dry-run'] === 'true');
    await registration.getByRole('button', { name: 'Check first' }).click();
    expect((await dryRun).postDataJSON()).toMatchObject({ name, whois_privacy: true });
    await poll(() => page.getByTestId('dry-run').count()).toBe(1);
    await expectNoAxeViolations(page, 'the registration form with WHOIS privacy');
  });
});
