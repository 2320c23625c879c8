/**
 * Certificates in the dashboard, in Debian's Chromium driven by Playwright against the real api
 * (serving the built front end), in test mode: a key made with the Certificates preset can answer
 * DNS-01 challenges through httpreq and nothing else; ACME-DNS registrations are made (the
 * credential shown once), listed and deleted.
 * With DASHBOARD_SCREENSHOTS=1 it refreshes docs/screenshots/api-key-certificates.png and certificates.png.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openChromiumDashboard, pollPage as poll, showPageOnFailure, type ChromiumDashboard } from '../support/dashboardChromium.js';
import { randomBase62 } from '../../src/ids.js';
import { expectNoAxeViolations } from '../support/axe.js';
import { insertActiveDomain } from '../support/domains.js';

const person = { email: `whit-${randomBase62(6).toLowerCase()}@example.com`, name: 'Whitfield Diffie' };
const ZONE = 'acme-dns.example.net';

let dashboard: ChromiumDashboard;
let page: Page;
let orgId: string;

beforeAll(async () => {
  dashboard = await openChromiumDashboard({ env: { ACME_DNS_ZONE: ZONE } });
  page = dashboard.page;
});
afterEach(showPageOnFailure(() => page));
afterAll(() => dashboard?.close());

describe.sequential('certificates in the dashboard', () => {
  it('fills a Certificates key with the challenge records of the organisation’s domains; the key answers challenges and nothing else', async () => {
    await dashboard.signIn(person);
    await dashboard.createOrg('Key Exchange Ltd');
    orgId = await page.getByRole('combobox', { name: 'Organisation' }).inputValue();
    await page.getByRole('switch', { name: 'Test data' }).check();
    await poll(() => page.getByRole('status').first().textContent()).toContain('Test data');
    const stamp = randomBase62(6).toLowerCase();
    const domains = [`shop-${stamp}.com`, `blog-${stamp}.org`];
    for (const name of domains) await insertActiveDomain(dashboard.app, { org: { id: orgId }, livemode: false }, { name });

    await dashboard.openNav('API keys');
    await page.getByLabel('Name', { exact: true }).fill('lego on the web server');
    await page.getByRole('radio', { name: 'Certificates' }).check();
    const records = page.getByRole('textbox', { name: 'Allowed DNS records' });
    const expected = domains.flatMap((d) => [`_acme-challenge.${d}:TXT`, `_acme-challenge.*.${d}:TXT`]);
    await poll(async () => (await records.inputValue()).split('\n').sort()).toEqual([...expected].sort());
    const scopes = await Promise.all((await page.locator('input[name=scope]:checked').all()).map((box) => box.inputValue()));
    expect(scopes.sort()).toEqual(['dns:read', 'dns:write']);
    await poll(() => page.getByTestId('certificates-note').textContent()).toContain('_acme-challenge');
    await dashboard.screenshot('api-key-certificates.png');
    await expectNoAxeViolations(page, 'the API keys page with the Certificates preset');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('key-secret').textContent())!;
    expect(key).toMatch(/^svc_test_/);
    const listed = page.getByRole('table', { name: 'API keys' });
    await poll(() => listed.textContent()).toContain('Records only: _acme-challenge.');
    for (const pattern of expected) expect(await listed.textContent()).toContain(pattern);

    // As lego's httpreq provider sends it: the key as an HTTP Basic password.
    const present = await dashboard.app.fetch(`/api/v1/orgs/${orgId}/acme/httpreq/present`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`lego:${key}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fqdn: `_acme-challenge.${domains[0]}.`, value: randomBase62(43) }),
    });
    expect(present.status).toBe(200);
    const aRecord = await dashboard.app.fetch(`/api/v1/orgs/${orgId}/domains/${domains[0]}/records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.1' }),
    });
    expect(aRecord.status).toBe(403);
    expect(((await aRecord.json()) as { code: string }).code).toBe('RECORD_NOT_ALLOWED');
    const balance = await dashboard.app.fetch(`/api/v1/orgs/${orgId}/billing/balance`, { headers: { authorization: `Bearer ${key}` } });
    expect(balance.status).toBe(403);
  });

  it('registers an ACME-DNS name with its credential shown once, lists it and deletes it', async () => {
    await dashboard.openNav('Certificates');
    await poll(() => page.getByTestId('httpreq-endpoint').textContent()).toBe(`${dashboard.app.url}/api/v1/orgs/${orgId}/acme/httpreq`);
    await poll(() => page.getByText('No registrations yet.').count()).toBe(1);
    await page.getByRole('textbox', { name: 'Allowed from' }).fill('203.0.113.0/24');
    await page.getByRole('button', { name: 'Register' }).click();
    const credentials = JSON.parse((await page.getByTestId('acme-dns-credentials').textContent())!) as { username: string; password: string; fulldomain: string; allowfrom: string[] };
    expect(credentials).toMatchObject({ allowfrom: ['203.0.113.0/24'], fulldomain: expect.stringMatching(new RegExp(`\\.${ZONE.replaceAll('.', '\\.')}$`)) });
    expect(credentials.password).toHaveLength(40);
    const table = page.getByRole('table', { name: 'ACME-DNS registrations' });
    await poll(() => table.textContent()).toContain(credentials.fulldomain);
    await dashboard.screenshot('certificates.png');
    await expectNoAxeViolations(page, 'the Certificates page showing new ACME-DNS credentials');

    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.content()).not.toContain(credentials.password);
    await table.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await poll(() => page.getByText('No registrations yet.').count()).toBe(1);
    await expectNoAxeViolations(page, 'the Certificates page');
  });
});
