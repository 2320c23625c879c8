/**
 * The dashboard in Debian's Chromium, driven by Playwright, against the real api (serving the built
 * front end), a worker, Temporal, PostgreSQL and Redis: one person's first session, in order.
 * With DASHBOARD_SCREENSHOTS=1 it also refreshes docs/screenshots/ (`npm run screenshots`).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page, Response } from 'playwright-core';
import { openChromiumDashboard, pollPage as poll, showPageOnFailure, type ChromiumDashboard } from '../support/dashboardChromium.js';
import { randomBase62 } from '../../src/ids.js';
import { expectNoAxeViolations } from '../support/axe.js';

const person = { email: `ada-${randomBase62(6).toLowerCase()}@example.com`, name: 'Ada Lovelace' };
// `-flaky`: the synthetic registrar answers 503 twice first (src/registrar/synthetic.ts), so the
// operation stays unfinished long enough to be watched.
const domain = `journey-${randomBase62(8).toLowerCase()}-flaky.com`;

let dashboard: ChromiumDashboard;
let page: Page;

/** The values of the form fields a locator matches (checkbox values, text inputs' contents). */
async function valuesOf(fields: Locator): Promise<string[]> {
  return Promise.all((await fields.all()).map((field) => field.inputValue()));
}

beforeAll(async () => {
  dashboard = await openChromiumDashboard({ worker: true });
  page = dashboard.page;
});
afterEach(showPageOnFailure(() => page));
afterAll(() => dashboard?.close());

describe.sequential('the dashboard in Chromium', () => {
  it('signs in through the development OpenID provider and keeps the session out of reach of scripts', async () => {
    await dashboard.signIn(person, (label) => expectNoAxeViolations(page, label));
    await poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Welcome, ${person.name}`);
    await expectNoAxeViolations(page, 'the home page');

    const cookies = await dashboard.context.cookies(`${dashboard.app.url}/dashboard/`);
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // Chromium keeps a __Host- cookie (Secure, Path=/, no Domain) from plain HTTP on loopback too.
    expect(cookies.find((cookie) => cookie.name === '__Host-dashboard_session')).toMatchObject({ secure: true, path: '/', domain: '127.0.0.1' });
    expect(await page.evaluate('document.cookie')).toBe('');
  });

  it('creates an organisation and makes it the current one', async () => {
    await dashboard.openNav('Organisations');
    await page.getByRole('textbox', { name: 'New organisation' }).fill('Analytical Engines Ltd');
    await page.getByRole('button', { name: 'Create' }).click();
    await poll(() => page.getByRole('combobox', { name: 'Organisation' }).inputValue()).toMatch(/^org_/);
    await poll(() => page.getByRole('table', { name: 'Members' }).textContent()).toContain(person.email);

    // The only owner cannot step down: said in words, and the role stays.
    await page.getByRole('combobox', { name: `Role of ${person.email}` }).selectOption('member');
    await poll(() => page.getByRole('alert').first().textContent()).toContain('at least one owner');
    await page.reload();
    await poll(() => page.getByRole('combobox', { name: `Role of ${person.email}` }).inputValue()).toBe('owner');
    await expectNoAxeViolations(page, 'the Organisations page');
  });

  it('creates a test key from a preset, with the secret shown once', async () => {
    await dashboard.openNav('API keys');
    await page.getByLabel('Name', { exact: true }).fill('CI deploys');
    await page.getByLabel('Test-mode key').check();
    await page.getByRole('radio', { name: 'CI' }).check();
    const preset = await valuesOf(page.locator('input[name=scope]:checked'));
    expect(preset.length).toBeGreaterThan(0);
    // The preset only pre-fills: take one scope away before creating.
    const dropped = preset[preset.length - 1]!;
    await page.locator(`input[name=scope][value="${dropped}"]`).uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();

    const secret = (await page.getByTestId('key-secret').textContent())!;
    expect(secret).toMatch(/^svc_test_/);
    await poll(() => page.getByRole('article', { name: 'New key secret' }).textContent()).toContain('secrets manager');
    await dashboard.screenshot('keys-secret-once.png');
    await expectNoAxeViolations(page, 'the API keys page showing a new secret');

    const me = await dashboard.app.fetch('/api/v1/me', { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { auth: { mode: string; scopes: string[] } };
    expect(body.auth.mode).toBe('test');
    expect([...body.auth.scopes].sort()).toEqual(preset.filter((s) => s !== dropped).sort());

    await page.reload();
    await poll(() => page.getByRole('table', { name: 'API keys' }).textContent()).toContain('CI deploys');
    expect(await page.getByTestId('key-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await expectNoAxeViolations(page, 'the API keys page');
  });

  it('explains a 402 in words when the test balance cannot pay for a registration', async () => {
    await page.getByRole('switch', { name: 'Test data' }).check();
    await poll(() => page.getByRole('status').first().textContent()).toContain('Test data');

    await dashboard.openNav('Contacts');
    const contact = page.getByRole('form', { name: 'New contact' });
    for (const [label, value] of Object.entries({
      'First name': 'Ada',
      'Last name': 'Lovelace',
      'E-mail': person.email,
      Phone: '+442071234567',
      Address: '12 St James Square',
      City: 'London',
      'Postal code': 'SW1Y 4JH',
      Country: 'GB',
    })) {
      await contact.getByLabel(label, { exact: true }).fill(value);
    }
    await contact.getByRole('button', { name: 'Add contact' }).click();
    await poll(() => page.getByRole('table', { name: 'Contacts' }).textContent()).toContain('Ada Lovelace');

    // Editing fills the form from the contact and saves only through If-Match on the version it read.
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click();
    const edit = page.getByRole('form', { name: 'Edit contact' });
    await poll(() => edit.getByLabel('City', { exact: true }).inputValue()).toBe('London');
    await edit.getByLabel('Company (optional)', { exact: true }).fill('Analytical Engines');
    await dashboard.screenshot('contact-edit.png');
    await expectNoAxeViolations(page, 'the Contacts page editing a contact');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => page.getByRole('table', { name: 'Contacts' }).textContent()).toContain('Analytical Engines');
    await poll(() => page.getByRole('form', { name: 'New contact' }).count()).toBe(1);

    await dashboard.openNav('Domains');
    await page.getByRole('searchbox').fill(domain);
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await poll(() => page.getByTestId('availability').textContent()).toContain('is available');
    await page.getByRole('button', { name: 'Register…' }).click();
    const registration = page.getByRole('article', { name: 'Register a domain' });
    await registration.getByLabel('Registrant contact').selectOption({ label: `Ada Lovelace (${person.email})` });
    await poll(() => registration.getByTestId('balance').textContent()).toBe('$0.00');
    await expectNoAxeViolations(page, 'the Domains page registering a name');
    await registration.getByRole('button', { name: /^Register for/ }).click();

    const problem = page.getByTestId('payment-required');
    await poll(() => problem.textContent()).toMatch(/Not enough funds\. This costs \$[\d.]+ but your balance has \$0\.00 available\./);
    expect(await problem.textContent()).not.toContain('{');
    await expectNoAxeViolations(page, 'the Domains page explaining a 402');
    expect(page.url()).toBe(dashboard.url('/domains'));
  });

  it('tops up the test balance and watches the registration live until it has succeeded', async () => {
    await dashboard.openNav('Billing');
    await page.getByLabel('Amount in USD').fill('100');
    await page.getByRole('button', { name: 'Add funds' }).click();
    await poll(() => page.getByTestId('available').textContent()).toBe('$100.00');
    await poll(() => page.getByRole('table', { name: 'Transactions' }).textContent()).toContain('Top-up');
    await expectNoAxeViolations(page, 'the Billing page');

    await dashboard.openNav('Domains');
    await page.getByRole('searchbox').fill(domain);
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.getByRole('button', { name: 'Register…' }).click();
    const registration = page.getByRole('article', { name: 'Register a domain' });
    await registration.getByLabel('Registrant contact').selectOption({ label: `Ada Lovelace (${person.email})` });
    await registration.getByRole('button', { name: /^Register for/ }).click();

    await page.waitForURL(/\/dashboard\/operations\/op_/);
    const status = page.getByTestId('operation-status');
    // Seen unfinished first, then finished on the same page: it updates by itself.
    await poll(() => status.textContent()).toMatch(/pending|running/);
    await dashboard.screenshot('operation-in-progress.png');
    await expectNoAxeViolations(page, "an operation's page");
    await poll(() => status.textContent(), { timeout: 60_000 }).toBe('succeeded');
    await poll(() => page.getByRole('link', { name: `Open ${domain}` }).count()).toBe(1);
  }, 90_000);

  it('adds DNS records, then changes, deletes and adds in one batch', async () => {
    await page.getByRole('link', { name: `Open ${domain}` }).click();
    await page.waitForURL(dashboard.url(`/domains/${domain}`));
    const editor = page.getByRole('article', { name: 'DNS records' });
    const rows = editor.getByTestId('record-row');
    const fillRow = async (n: number, type: string, name: string, content: string) => {
      await editor.getByLabel(`Type of row ${n}`).selectOption(type);
      await editor.getByLabel(`Name of row ${n}`).fill(name);
      await editor.getByLabel(`Content of row ${n}`).fill(content);
    };
    await poll(() => editor.textContent()).toContain('No records yet');
    await expectNoAxeViolations(page, "a domain's page");

    await editor.getByRole('button', { name: 'Add record' }).click();
    await fillRow(1, 'A', 'www', '192.0.2.10');
    await editor.getByRole('button', { name: 'Add record' }).click();
    // An empty name is the apex; empty content is refused in words, next to its row.
    await fillRow(2, 'TXT', '', '');
    await editor.getByRole('button', { name: 'Apply 2 changes' }).click();
    await poll(() => editor.locator('tr.row-error').textContent()).toBe('Content: Give the record’s data, e.g. an IPv4 address for an A record.');
    await dashboard.screenshot('record-refused.png');
    await expectNoAxeViolations(page, "a domain's page with a refused record");
    await editor.getByLabel('Content of row 2').fill('v=spf1 -all');
    await editor.getByRole('button', { name: 'Apply 2 changes' }).click();
    await poll(() => editor.getByRole('status').textContent()).toBe('Applied 2 changes.');
    await poll(() => rows.count()).toBe(2);
    await poll(async () => (await valuesOf(editor.locator('input[aria-label^="Name of row"]'))).sort()).toEqual(['@', 'www']);
    // The table shows the records as the API returned them (no row still marked as changed) before
    // rows are picked by position: the API's order need not be the order they were typed in.
    await poll(() => editor.locator('tr.changed').count()).toBe(0);

    // A bad row is named next to itself, and nothing of the batch is applied.
    const wwwRow = (await valuesOf(editor.locator('input[aria-label^="Name of row"]'))).indexOf('www') + 1;
    const txtRow = 3 - wwwRow;
    await editor.getByLabel(`Content of row ${wwwRow}`).fill('192.0.2.11');
    await editor.getByLabel(`Delete row ${txtRow}`).check();
    await editor.getByRole('button', { name: 'Add record' }).click();
    await fillRow(3, 'A', 'api', 'not-an-address');
    await editor.getByRole('button', { name: 'Apply 3 changes' }).click();
    await poll(() => editor.locator('tr.row-error').textContent()).toMatch(/content/i);

    await editor.getByLabel('Content of row 3').fill('192.0.2.12');
    await editor.getByRole('button', { name: 'Apply 3 changes' }).click();
    await poll(() => editor.getByRole('status').textContent()).toBe('Applied 3 changes.');

    await page.reload();
    await poll(() => rows.count()).toBe(2);
    // www changed, the TXT record deleted, api added: each name with its own content.
    const names = await valuesOf(editor.locator('input[aria-label^="Name of row"]'));
    const contents = await valuesOf(editor.locator('input[aria-label^="Content of row"]'));
    expect(names.map((name, i) => `${name} ${contents[i]}`).sort()).toEqual(['api 192.0.2.12', 'www 192.0.2.11']);
    await dashboard.screenshot('domain-records.png');
    await expectNoAxeViolations(page, "a domain's page with records");
  });

  it('adds a record of a newer type, with the hint for its content, and names the part that is wrong', async () => {
    const editor = page.getByRole('article', { name: 'DNS records' });
    const rows = editor.getByTestId('record-row');
    await poll(() => rows.count()).toBe(2);
    await editor.getByRole('button', { name: 'Add record' }).click();
    await editor.getByLabel('Type of row 3').selectOption('HTTPS');
    // The hint under the content field follows the type chosen, and describes the field.
    const content = editor.getByLabel('Content of row 3');
    await poll(() => editor.getByTestId('record-hint').textContent()).toContain('SvcPriority TargetName SvcParams');
    expect(await content.getAttribute('aria-describedby')).toBe(await editor.getByTestId('record-hint').getAttribute('id'));
    await editor.getByLabel('Name of row 3').fill('@');
    await content.fill('1 . alpn=h3,h2 port=99999');
    await editor.getByRole('button', { name: 'Apply 1 change' }).click();
    await poll(() => editor.locator('tr.row-error').textContent()).toBe('Content: SvcParams: port must be 0–65535, e.g. port=8443');
    await dashboard.screenshot('record-https.png');
    await expectNoAxeViolations(page, "a domain's page adding an HTTPS record");
    await content.fill('1 . port=443 alpn=h3,h2');
    await editor.getByRole('button', { name: 'Apply 1 change' }).click();
    await poll(() => editor.getByRole('status').textContent()).toBe('Applied 1 change.');

    await page.reload();
    await poll(() => rows.count()).toBe(3);
    // Stored in its normal form: parameters in key order.
    expect(await valuesOf(editor.locator('input[aria-label^="Content of row"]'))).toContain('1 . alpn=h3,h2 port=443');
    expect(await editor.getByTestId('record-hint').count()).toBe(0);
  });

  it('unlocks the domain, shows its auth code, and renews it live', async () => {
    const settings = page.getByRole('form', { name: 'Domain settings' });
    await settings.getByRole('switch', { name: 'Transfer lock' }).uncheck();
    // The `-flaky` name's registrar answers 503 twice first: the SDK's own retries get it through.
    const saved = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.status() === 200);
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await saved;
    await page.reload();
    await poll(() => settings.getByRole('switch', { name: 'Transfer lock' }).isChecked()).toBe(false);

    await page.getByRole('button', { name: 'Show auth code' }).click();
    await poll(() => page.locator('article', { hasText: 'Transfer out' }).locator('code').textContent()).toMatch(/\S{6,}/);

    // The renewal answers once its workflow is done (200) or after 10 s (202), and the page then moves
    // to its operation: on this `-flaky` name the registrar's 503s are retried inside the workflow, so
    // the answer may take those 10 s (a fixed wait for the URL alone timed out on a loaded machine).
    // Every answer is noted for the failure's message; the client retries 429, 502 and 503.
    const isRenewal = (r: Response) => r.request().method() === 'POST' && r.url().endsWith(`/domains/${domain}/renew`);
    const renewAnswers: string[] = [];
    const clicked = Date.now();
    const noteAnswer = (r: Response) => void (isRenewal(r) && renewAnswers.push(`${r.status()} after ${Date.now() - clicked} ms`));
    page.on('response', noteAnswer);
    await page.getByRole('form', { name: 'Renew' }).getByRole('button', { name: 'Renew' }).click();
    await page
      .waitForResponse((r) => isRenewal(r) && (r.status() === 200 || r.status() === 202), { timeout: 30_000 })
      .catch((err: Error) => {
        throw new Error(`the renewal was not accepted within 30 s; its answers: ${renewAnswers.join(', ') || 'none'}`, { cause: err });
      })
      .finally(() => page.off('response', noteAnswer));
    await page.waitForURL(/\/dashboard\/operations\/op_/);
    await poll(() => page.getByRole('article').first().textContent()).toContain(`Renewal of ${domain}`);
    await poll(() => page.getByTestId('operation-status').textContent(), { timeout: 60_000 }).toBe('succeeded');
  }, 90_000);

  it("lists in the organisation's audit log what was just done in test mode, newest first", async () => {
    await dashboard.openNav('Organisations');
    const rows = page.getByRole('table', { name: 'Audit log' }).locator('tbody tr');
    const actions = rows.locator('td:nth-child(2)');
    await poll(() => actions.allTextContents()).toContain('domain.auth_code_read');
    const shown = await actions.allTextContents();
    expect(shown[0]).toBe('domain.auth_code_read');
    expect(shown).toEqual(expect.arrayContaining(['domain.lock_changed', 'dns_record.created', 'dns_record.deleted']));
    expect(shown.indexOf('domain.lock_changed')).toBeLessThan(shown.indexOf('dns_record.created'));
    // The Test data switch is on: the organisation's creation, a live-mode entry, is not among them.
    expect(shown).not.toContain('org.created');
    expect(new Set(await rows.locator('td:nth-child(5)').allTextContents())).toEqual(new Set(['test']));
    await expectNoAxeViolations(page, 'the Organisations page with its audit log');
  });

  it('checks many names at once, each answered in its place', async () => {
    await dashboard.openNav('Domains');
    const free = `bulk-${randomBase62(8).toLowerCase()}.com`;
    const taken = `bulk-${randomBase62(8).toLowerCase()}-taken.com`;
    await page.getByRole('form', { name: 'Check availability in bulk' }).getByRole('textbox').fill(`${free}\n${taken}`);
    await page.getByRole('button', { name: 'Check all' }).click();
    const answers = page.locator('.bulk-results li');
    await poll(() => answers.count()).toBe(2);
    expect(await answers.nth(0).textContent()).toContain(`${free} is available`);
    expect(await answers.nth(1).textContent()).toContain(`${taken} is taken`);
    await expectNoAxeViolations(page, 'the Domains page after a bulk check');
  });

  it('shows test-mode objects only while the test data toggle is on', async () => {
    await dashboard.openNav('Domains');
    await poll(() => page.getByRole('table', { name: 'Domains' }).textContent()).toContain(domain);
    await page.getByRole('switch', { name: 'Test data' }).uncheck();
    await poll(() => page.getByText('No domains yet').count()).toBe(1);
    expect(await page.getByText(domain).count()).toBe(0);
    await page.getByRole('switch', { name: 'Test data' }).check();
    await poll(() => page.getByRole('table', { name: 'Domains' }).textContent()).toContain(domain);
    await expectNoAxeViolations(page, 'the Domains page listing a domain');
  });

  it('fits a 390 px wide phone without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const label of ['Domains', 'Operations', 'Contacts', 'Billing', 'API keys', 'Organisations']) {
      await dashboard.openNav(label);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, label).toBeLessThanOrEqual(0);
      await expectNoAxeViolations(page, `the ${label} page 390 px wide`);
      if (label === 'API keys') await dashboard.screenshot('keys-390px.png');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('signs out, and the old cookie is refused afterwards', async () => {
    const oldCookies = await dashboard.context.cookies(`${dashboard.app.url}/dashboard/`);
    await page.locator('details.dropdown summary').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await poll(() => page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    await expectNoAxeViolations(page, 'the signed-out page');

    const replay = await dashboard.browser.newContext();
    await replay.addCookies(oldCookies);
    const me = await replay.request.get(`${dashboard.app.url}/dashboard/api/v1/me`);
    expect(me.status()).toBe(401);
    const session = await replay.request.get(`${dashboard.app.url}/dashboard/session`);
    expect(session.status()).toBe(401);
    expect((await session.json()).code).toBe('NOT_SIGNED_IN');
    await replay.close();
  });
});
