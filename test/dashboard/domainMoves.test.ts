/**
 * Moving a domain to another person's organisation in Debian's Chromium, against the real api and a
 * worker: Bob copies his organisation's id from its page, Ada (not a member of it) proposes the move
 * to that id from her domain's page, Bob accepts on his Organisations page, and the domain with its
 * DNS records is then Bob's. Test mode (the "Test data" switch) for the move.
 * With DASHBOARD_SCREENSHOTS=1 it also refreshes docs/screenshots/org-id-copy.png and domain-move-*.png.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openChromiumDashboard, pollPage as poll, showPageOnFailure, type ChromiumDashboard } from '../support/dashboardChromium.js';
import { expectNoAxeViolations } from '../support/axe.js';
import { createKey, createOrg, jsonHeaders, sessionToken } from '../support/actors.js';
import { insertActiveDomain } from '../support/domains.js';
import { randomBase62 } from '../../src/ids.js';

const ada = { email: `ada-${randomBase62(6).toLowerCase()}@example.com`, name: 'Ada Lovelace' };
const bob = { email: `bob-${randomBase62(6).toLowerCase()}@example.com`, name: 'Bob Babbage' };

let dashboard: ChromiumDashboard;
let page: Page;
let domain: string;
let bobsOrgId: string;

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

async function signInAfresh(person: { email: string; name: string }): Promise<void> {
  await dashboard.context.clearCookies();
  await page.evaluate('localStorage.clear()');
  await dashboard.signIn(person);
}

describe.sequential('moving a domain in Chromium', () => {
  it("Bob copies his organisation's id from its page, with the keyboard", async () => {
    await dashboard.signIn(bob);
    await dashboard.createOrg('Difference Co');
    const bobToken = await sessionToken(dashboard.app, bob.email, bob.name);
    const me = (await (await dashboard.app.fetch('/api/v1/me', { headers: { authorization: `Bearer ${bobToken}` } })).json()) as { orgs: { id: string; name: string }[] };
    bobsOrgId = me.orgs.find((o) => o.name === 'Difference Co')!.id;

    await dashboard.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: dashboard.app.url });
    const identity = page.getByRole('article', { name: 'Settings of Difference Co' }).locator('.copyable-id');
    await poll(() => identity.locator('code').textContent()).toBe(bobsOrgId);
    await identity.getByRole('button', { name: 'Copy organisation id' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => identity.getByRole('status').textContent()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(bobsOrgId);
    await dashboard.screenshot('org-id-copy.png');
    await expectNoAxeViolations(page, 'the Organisations page showing its id');
  });

  it("Ada proposes to move her domain to Bob's organisation by its id, without belonging to it", async () => {
    await signInAfresh(ada);
    await dashboard.createOrg('Analytical Engines');
    const { app } = dashboard;
    const adaToken = await sessionToken(app, ada.email, ada.name);
    // A second organisation of Ada's own: offered as a suggestion, but any id is accepted.
    await createOrg(app, adaToken, 'Babbage Workshop');
    const me = (await (await app.fetch('/api/v1/me', { headers: { authorization: `Bearer ${adaToken}` } })).json()) as { orgs: { id: string; name: string }[] };
    const sourceOrg = me.orgs.find((o) => o.name === 'Analytical Engines')!;
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
    const target = move.getByLabel('Target organisation id');
    await poll(() => move.locator('datalist option').count()).toBe(1);
    expect(await move.locator('datalist option').getAttribute('label')).toBe('Babbage Workshop');
    // Not an id: said next to the field, and nothing is sent.
    await target.fill('Difference Co');
    await move.getByRole('button', { name: 'Propose move' }).click();
    await poll(() => move.locator('.field-error').textContent()).toContain('Enter an organisation id');
    expect(await target.getAttribute('aria-invalid')).toBe('true');
    await expectNoAxeViolations(page, 'a domain page with a malformed organisation id');

    await target.fill(bobsOrgId);
    await move.getByRole('button', { name: 'Propose move' }).click();
    await poll(() => page.getByRole('status').filter({ hasText: 'Move proposed' }).textContent()).toContain(`an owner or admin of organisation ${bobsOrgId} can accept it`);
    expect(await move.locator('.field-error').count()).toBe(0);
    await dashboard.screenshot('domain-move-proposed.png');
    await expectNoAxeViolations(page, 'a domain page after proposing a move');

    await dashboard.openNav('Organisations');
    const outgoing = page.getByRole('table', { name: 'Domains moving out' });
    await poll(() => outgoing.textContent()).toContain(domain);
    await poll(() => outgoing.textContent()).toContain(bobsOrgId);
  });

  it('Bob accepts it on his Organisations page, and the domain with its records is his', async () => {
    await signInAfresh(bob);
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
