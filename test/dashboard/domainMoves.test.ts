/**
 * Moving a domain between two people's organisations in Debian's Chromium, against the real api and
 * a worker: Ada proposes from the domain's page, Bob accepts on his Organisations page, and the
 * domain with its DNS records is then Bob's. Test mode (the "Test data" switch) throughout.
 * With DASHBOARD_SCREENSHOTS=1 it also refreshes docs/screenshots/domain-move-*.png.
 */
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openChromiumDashboard, pollPage as poll, showPageOnFailure, type ChromiumDashboard } from '../support/dashboardChromium.js';
import { expectNoAxeViolations } from '../support/axe.js';
import { createKey, createOrg, jsonHeaders, joinOrg, sessionToken } from '../support/actors.js';
import { insertActiveDomain } from '../support/domains.js';
import { randomBase62 } from '../../src/ids.js';

const ada = { email: `ada-${randomBase62(6).toLowerCase()}@example.com`, name: 'Ada Lovelace' };
const bob = { email: `bob-${randomBase62(6).toLowerCase()}@example.com`, name: 'Bob Babbage' };

let dashboard: ChromiumDashboard;
let page: Page;
let domain: string;

beforeAll(async () => {
  dashboard = await openChromiumDashboard({ worker: true });
  page = dashboard.page;
});
afterEach(showPageOnFailure(() => page));
afterAll(() => dashboard?.close());

/** In test mode, as the "Test data" switch sets it, until the banner says so. */
async function testData(): Promise<void> {
  await page.getByRole('switch', { name: 'Test data' }).check();
  await poll(() => page.getByRole('status').first().textContent()).toContain('Test data');
}

describe.sequential('moving a domain in Chromium', () => {
  it('Ada proposes to move her domain to an organisation she also belongs to', async () => {
    await dashboard.signIn(ada);
    await dashboard.createOrg('Analytical Engines');
    const { app } = dashboard;
    // Bob's organisation, with Ada as a member; Ada's test-mode domain with one record.
    const bobToken = await sessionToken(app, bob.email, bob.name);
    const target = await createOrg(app, bobToken, 'Difference Co');
    await joinOrg(app, bobToken, target.id, ada.email, 'member');
    const adaToken = await sessionToken(app, ada.email, ada.name);
    const source = (await (await app.fetch('/api/v1/me', { headers: { authorization: `Bearer ${adaToken}` } })).json()) as { orgs: { id: string; name: string }[] };
    const sourceOrg = source.orgs.find((o) => o.name === 'Analytical Engines')!;
    domain = await insertActiveDomain(app, { org: sourceOrg, livemode: false });
    const key = await createKey(app, adaToken, { name: 'setup', scopes: ['dns:write'], mode: 'test' });
    const record = await app.fetch(`/api/v1/orgs/${sourceOrg.id}/domains/${domain}/records`, {
      method: 'POST',
      headers: jsonHeaders(key.key),
      body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.10' }),
    });
    if (record.status !== 201) throw new Error(`record refused: ${record.status}`);

    await page.reload();
    await poll(() => page.getByRole('combobox', { name: 'Organisation' }).inputValue()).toBe(sourceOrg.id);
    await testData();
    await dashboard.openNav('Domains');
    await page.getByRole('link', { name: domain }).click();
    await page.waitForURL(dashboard.url(`/domains/${domain}`));
    const move = page.getByRole('form', { name: 'Move to another organisation' });
    await move.getByLabel('Organisation').selectOption({ label: 'Difference Co' });
    await move.getByRole('button', { name: 'Propose move' }).click();
    await poll(() => page.getByRole('status').filter({ hasText: 'Move proposed' }).textContent()).toContain('an owner or admin of Difference Co can accept it');
    await dashboard.screenshot('domain-move-proposed.png');
    await expectNoAxeViolations(page, 'a domain page after proposing a move');

    await dashboard.openNav('Organisations');
    await poll(() => page.getByRole('table', { name: 'Domains moving out' }).textContent()).toContain(domain);
  });

  it('Bob accepts it on his Organisations page, and the domain with its records is his', async () => {
    await dashboard.context.clearCookies();
    await page.evaluate('localStorage.clear()');
    await dashboard.signIn(bob);
    await testData();
    await dashboard.openNav('Organisations');
    const incoming = page.getByRole('table', { name: 'Domains moving in' });
    await poll(() => incoming.textContent()).toContain(domain);
    await poll(() => incoming.textContent()).toContain('Analytical Engines');
    await dashboard.screenshot('domain-move-incoming.png');
    await expectNoAxeViolations(page, 'the Organisations page with an incoming move');
    await incoming.getByRole('button', { name: `Accept ${domain}` }).click();
    await poll(() => incoming.textContent()).toContain('accepted');

    await dashboard.openNav('Domains');
    await page.getByRole('link', { name: domain }).click();
    await page.waitForURL(dashboard.url(`/domains/${domain}`));
    const editor = page.getByRole('article', { name: 'DNS records' });
    await poll(async () => editor.locator('input[aria-label^="Name of row"]').first().inputValue()).toBe('www');
    await expectNoAxeViolations(page, 'the moved domain on its new side');
  });
});
