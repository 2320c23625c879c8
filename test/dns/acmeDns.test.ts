import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startPowerDns, type PowerDns } from '../support/powerdns.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../support/http.js';
import { dnsCustomer, type Customer } from '../support/domains.js';
import { insertAcmeDnsRegistration } from '../../src/features/acmeDns/registrations.repository.js';
import { MAX_REGISTRATIONS_PER_ORG_AND_MODE } from '../../src/features/acmeDns/acmeDns.js';
import { listAuditEventsForTarget } from '../../src/audit/auditEvents.js';
import { newId, randomBase62 } from '../../src/ids.js';

/**
 * The ACME-DNS protocol (docs/certificates.md) against a live-mode app whose DNS provider is a real
 * PowerDNS serving ACME_DNS_ZONE: what an update sets is checked over DNS. lego's own acme-dns client
 * runs in test/dns/certificatesLive.test.ts.
 */
const ZONE = `acme-${randomBase62(6).toLowerCase()}.test`;

interface Credentials {
  id: string;
  username: string;
  password: string;
  fulldomain: string;
  subdomain: string;
  allowfrom: string[];
}

let pdns: PowerDns;
let app: TestApp;
beforeAll(async () => {
  pdns = await startPowerDns();
  app = await startTestApp({ env: { DNS_PROVIDER_URL: pdns.apiUrl, DNS_PROVIDER_TOKEN: pdns.apiKey, ACME_DNS_ZONE: ZONE, ACME_DNS_NAMESERVERS: 'ns1.example.net' } });
});
afterAll(async () => {
  await app?.close();
  await pdns?.close();
});

const digest = () => randomBase62(43);
const address = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

async function register(c: Customer, body?: unknown): Promise<Credentials> {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/register`, { method: 'POST', headers: jsonHeaders(c.key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (res.status !== 201) throw new Error(`registration refused: ${res.status} ${await res.text()}`);
  return readJson<Credentials>(res);
}

/** As goacmedns sends it (capitalised field names), from `from`. */
const update = (account: Pick<Credentials, 'username' | 'password' | 'subdomain'>, txt: string, from = app.clientAddress, body?: unknown) =>
  app.fetch('/api/v1/acme-dns/update', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-user': account.username, 'x-api-key': account.password, 'x-forwarded-for': from },
    body: JSON.stringify(body ?? { SubDomain: account.subdomain, Txt: txt }),
  });

const served = (name: string) =>
  pdns
    .resolver()
    .resolveTxt(name)
    .then((answers) => answers.map((strings) => strings.join('')).sort(), (err: NodeJS.ErrnoException) => err.code);

describe('ACME-DNS', () => {
  it('registers a name and credential, serves the two newest values at it, and forgets it on delete', async () => {
    const c = await dnsCustomer(app, 'live');
    const account = await register(c);
    expect(account).toMatchObject({ id: expect.stringMatching(/^acd_/), allowfrom: [], fulldomain: `${account.subdomain}.${ZONE}` });
    expect(account.username).toMatch(/^[0-9a-f-]{36}$/);
    expect(account.password).toHaveLength(40);
    // The zone was made at PowerDNS with the configured name servers.
    expect(await pdns.resolver().resolveNs(ZONE)).toEqual(['ns1.example.net']);

    const [first, second, third] = [digest(), digest(), digest()];
    const set = await update(account, first);
    expect(set.status).toBe(200);
    expect(await readJson(set)).toEqual({ txt: first });
    expect(await served(account.fulldomain)).toEqual([first]);
    expect((await update(account, second)).status).toBe(200);
    expect(await served(account.fulldomain)).toEqual([first, second].sort());
    // Sending a value already there keeps the other one.
    expect((await update(account, first)).status).toBe(200);
    expect(await served(account.fulldomain)).toEqual([first, second].sort());
    expect((await update(account, third, app.clientAddress, { subdomain: account.subdomain, txt: third })).status).toBe(200);
    expect(await served(account.fulldomain)).toEqual([second, third].sort());

    const list = await readJson<{ data: { id: string; fulldomain: string; txt_updated_at: string | null; livemode: boolean }[] }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/registrations`, { headers: bearer(c.key) }),
    );
    expect(list.data).toEqual([expect.objectContaining({ id: account.id, fulldomain: account.fulldomain, livemode: true, txt_updated_at: expect.any(String) })]);
    expect(JSON.stringify(list)).not.toContain(account.password);

    const removed = await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/registrations/${account.id}`, { method: 'DELETE', headers: bearer(c.key) });
    expect(removed.status).toBe(204);
    expect(await served(account.fulldomain)).toBe('ENOTFOUND');
    expect((await update(account, first)).status).toBe(401);
    expect((await listAuditEventsForTarget(app.deps.db, 'acme_dns_registration', account.id)).map((e) => [e.action, e.actorKeyId === null])).toEqual([
      ['acme_dns.registered', false],
      ['acme_dns.updated', true],
      ['acme_dns.updated', true],
      ['acme_dns.updated', true],
      ['acme_dns.deleted', false],
    ]);
  });

  it('enforces allowfrom against the client address, the subdomain and the value', async () => {
    const c = await dnsCustomer(app, 'live');
    const office = address();
    const account = await register(c, { allowfrom: [`${office}/32`, '2001:DB8::/32'] });
    expect(account.allowfrom).toEqual([`${office}/32`, '2001:db8::/32']);
    const elsewhere = await update(account, digest(), '198.51.100.1');
    expect(elsewhere.status).toBe(403);
    expect(await readJson<MessageErrorBody>(elsewhere)).toMatchObject({ code: 'IP_NOT_ALLOWED' });
    expect((await update(account, digest(), '2001:db8::7')).status).toBe(200);
    expect((await update(account, digest(), office)).status).toBe(200);

    const other = await register(c);
    expect(await readJson<MessageErrorBody>(await update(account, digest(), office, { subdomain: other.subdomain, txt: digest() }))).toMatchObject({ code: 'FORBIDDEN' });
    const short = await update(account, 'too-short', office);
    expect(short.status).toBe(422);
    expect((await readJson<FieldErrorBody>(short)).detail.map((e) => e.loc.join('.'))).toEqual(['body.txt']);
    const bad = await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/register`, { method: 'POST', headers: jsonHeaders(c.key), body: '{"allowfrom":["10.0.0.0/8","nope"]}' });
    expect((await readJson<FieldErrorBody>(bad)).detail.map((e) => e.loc.join('.'))).toEqual(['body.allowfrom.1']);
  });

  it('answers failed credentials 401, then 429 past the address’s limit, while a good one from there still works', async () => {
    const c = await dnsCustomer(app, 'live');
    const account = await register(c);
    const attacker = address();
    const statuses: number[] = [];
    for (let i = 0; i < 70; i += 1) statuses.push((await update({ ...account, password: randomBase62(40) }, digest(), attacker)).status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(60);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
    expect((await update(account, digest(), attacker)).status).toBe(200);
  });

  it('keeps registrations per organisation and mode, at most a hundred each', async () => {
    const c = await dnsCustomer(app, 'live');
    const testMode = await dnsCustomer(app, 'test');
    const test = await register(testMode);
    // Test mode without a test DNS host: stored and updated, served by no one.
    expect((await update(test, digest())).status).toBe(200);
    expect(await served(test.fulldomain)).toBe('ENOTFOUND');
    for (let i = 0; i < MAX_REGISTRATIONS_PER_ORG_AND_MODE; i += 1) {
      await insertAcmeDnsRegistration(app.deps.db, { livemode: true }, {
        id: newId('acd'),
        orgId: c.org.id,
        username: crypto.randomUUID(),
        passwordHash: Buffer.alloc(32),
        subdomain: crypto.randomUUID(),
        zone: ZONE,
        allowfrom: [],
      });
    }
    const full = await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/register`, { method: 'POST', headers: jsonHeaders(c.key) });
    expect(full.status).toBe(409);
    expect(await readJson<MessageErrorBody>(full)).toMatchObject({ code: 'ACME_DNS_REGISTRATION_LIMIT' });
    // The other mode's are counted apart.
    const inTestMode = await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/register`, { method: 'POST', headers: { ...jsonHeaders(c.session), 'x-mode': 'test' } });
    expect(inTestMode.status).toBe(201);
  });
});
