import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody } from '../../../test/support/http.js';
import { creditBalance, insertContact } from '../../../test/support/factories.js';
import { randomBase62 } from '../../ids.js';

/**
 * Only names one label below a sold suffix can be registered, in test mode too, where names are held
 * per organisation but the test DNS host (a real PowerDNS here) serves one zone per name: a zone made
 * for `www.<someone's domain>` would answer in place of that domain's own records, and one made for
 * ACME_DNS_ZONE would replace the service's ACME-DNS zone.
 */
const ACME_ZONE = `acme-${randomBase62(8).toLowerCase()}.net`;

let pdns: PowerDns;
let app: TestApp;
beforeAll(async () => {
  pdns = await startPowerDns();
  app = await startTestApp({ env: { DNS_TEST_PROVIDER_URL: pdns.apiUrl, DNS_TEST_PROVIDER_TOKEN: pdns.apiKey, ACME_DNS_ZONE: ACME_ZONE } });
});
afterAll(async () => {
  await app?.close();
  await pdns?.close();
});

const a = (name: string) => pdns.resolver().resolve4(name).then((ips) => ips.sort(), (err: NodeJS.ErrnoException) => err.code);
const zoneStatus = async (name: string) =>
  (await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${name}.`, { headers: { 'X-API-Key': pdns.apiKey } })).status;
const post = (c: Customer, url: string, body: unknown, headers: Record<string, string> = {}) =>
  app.fetch(url, { method: 'POST', headers: { ...jsonHeaders(c.key), ...headers }, body: JSON.stringify(body) });

/** A test-mode customer whose domain's zone is on the test host, with `www` pointing at 192.0.2.10. */
async function servedCustomer(): Promise<{ owner: Customer; domain: string }> {
  const owner = await dnsCustomer(app, 'test');
  const domain = await insertActiveDomain(app, owner, { name: `shop-${randomBase62(8).toLowerCase()}.com` });
  expect((await post(owner, `/api/v1/orgs/${owner.org.id}/domains/${domain}/records`, { type: 'A', name: 'www', content: '192.0.2.10' })).status).toBe(201);
  expect(await a(`www.${domain}`)).toEqual(['192.0.2.10']);
  return { owner, domain };
}

/** Another test-mode customer with money and a contact: a registration of a registrable name would go through. */
async function buyer(): Promise<{ c: Customer; contactId: string }> {
  const c = await dnsCustomer(app, 'test');
  await creditBalance(app.deps, { orgId: c.org.id, livemode: false, amount: 100_000 });
  return { c, contactId: await insertContact(app.deps, { orgId: c.org.id, livemode: false }) };
}

/** Every way of asking for the name: register (and its dry run), transfer, availability one and bulk; each answered DOMAIN_NAME_NOT_REGISTRABLE. */
async function expectRefusedEverywhere(name: string): Promise<void> {
  const { c, contactId } = await buyer();
  const domains = `/api/v1/orgs/${c.org.id}/domains`;
  const answers = {
    register: await post(c, domains, { name, years: 1, registrant_contact_id: contactId }, { 'idempotency-key': `register-${name}` }),
    dryRun: await post(c, domains, { name, years: 1, registrant_contact_id: contactId }, { 'dry-run': 'true' }),
    transfer: await post(c, `${domains}/transfers`, { name, auth_code: 'secret-code', registrant_contact_id: contactId }, { 'idempotency-key': `transfer-${name}` }),
    availability: await app.fetch(`/api/v1/domains/availability?name=${encodeURIComponent(name)}`, { headers: bearer(c.key) }),
  };
  for (const [asked, res] of Object.entries(answers)) {
    expect(res.status, asked).toBe(422);
    const body = await readJson<FieldErrorBody & { code: string }>(res);
    expect(body.code, asked).toBe('DOMAIN_NAME_NOT_REGISTRABLE');
    expect(body.detail.map((e) => [e.loc.join('.'), e.type]), asked).toEqual([[asked === 'availability' ? 'query.name' : 'body.name', 'domain_name_not_registrable']]);
  }
  const bulk = await readJson<{ results: { name: string; error?: { code: string } }[] }>(
    await post(c, '/api/v1/domains/availability/bulk', { names: [name, `free-${randomBase62(6).toLowerCase()}.com`] }),
  );
  expect(bulk.results.map((r) => r.error?.code ?? 'answered')).toEqual(['DOMAIN_NAME_NOT_REGISTRABLE', 'answered']);
  const operations = await readJson<{ data: unknown[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations`, { headers: bearer(c.key) }));
  expect(operations.data).toEqual([]);
}

describe('registrable names', () => {
  it('refuses www.<another customer’s domain> in test mode, and that customer’s zone on the test host answers as before', async () => {
    const { domain } = await servedCustomer();
    await expectRefusedEverywhere(`www.${domain}`);
    await expectRefusedEverywhere(`WWW.${domain.toUpperCase()}.`);
    const refused = await readJson<FieldErrorBody>(await app.fetch(`/api/v1/domains/availability?name=www.${domain}`, { headers: bearer((await buyer()).c.key) }));
    expect(refused.detail[0]!.msg).toBe(`www.${domain} is not a registrable name: register ${domain} (one label below .com), then add www as a record of it`);

    expect(await zoneStatus(`www.${domain}`)).toBe(404);
    expect(await a(`www.${domain}`)).toEqual(['192.0.2.10']);
  });

  it('refuses ACME_DNS_ZONE and every name under it, and the ACME-DNS zone on the test host stays', async () => {
    const c = await dnsCustomer(app, 'test');
    // A test-mode ACME-DNS registration makes the zone on the test host.
    expect((await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/register`, { method: 'POST', headers: jsonHeaders(c.key) })).status).toBe(201);
    expect(await zoneStatus(ACME_ZONE)).toBe(200);

    await expectRefusedEverywhere(ACME_ZONE);
    await expectRefusedEverywhere(`certs.${ACME_ZONE}`);
    const refused = await readJson<FieldErrorBody>(await app.fetch(`/api/v1/domains/availability?name=${ACME_ZONE}`, { headers: bearer(c.key) }));
    expect(refused.detail[0]!.msg).toBe(`${ACME_ZONE} is in ${ACME_ZONE}, which this service uses for ACME-DNS; it cannot be registered`);
    expect(await zoneStatus(ACME_ZONE)).toBe(200);
  });

  it('still answers registrable names under multi-label suffixes (co.uk), and refuses one label too many there', async () => {
    const { c } = await buyer();
    const name = `shop-${randomBase62(6).toLowerCase()}.co.uk`;
    expect(await readJson(await app.fetch(`/api/v1/domains/availability?name=${name}`, { headers: bearer(c.key) }))).toMatchObject({ name, available: true, price: { amount: 999 } });
    await expectRefusedEverywhere(`www.${name}`);
  });

  it('never serves a name inside another customer’s zone that was registered before the rule: its records stay here', async () => {
    const { domain } = await servedCustomer();
    const earlier = await dnsCustomer(app, 'test');
    // As a test-mode registration of the last release left it.
    await insertActiveDomain(app, earlier, { name: `www.${domain}` });
    expect((await post(earlier, `/api/v1/orgs/${earlier.org.id}/domains/www.${domain}/records`, { type: 'A', name: '@', content: '198.51.100.66' })).status).toBe(201);

    expect(await zoneStatus(`www.${domain}`)).toBe(404);
    expect(await a(`www.${domain}`)).toEqual(['192.0.2.10']);
    const stored = await readJson<{ data: { content: string }[] }>(await app.fetch(`/api/v1/orgs/${earlier.org.id}/domains/www.${domain}/records`, { headers: bearer(earlier.key) }));
    expect(stored.data.map((r) => r.content)).toEqual(['198.51.100.66']);
  });
});
