import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { bearer, createKey, jsonHeaders } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { dnsCustomer, type Customer } from '../../../test/support/domains.js';
import { insertKey, insertMember, insertUser } from '../../../test/support/factories.js';
import {
  acmeDigest as digest,
  registerAcmeDns,
  registerAcmeDnsAs,
  updateAcmeDns,
  type AcmeDnsCredentials as Credentials,
} from '../../../test/support/acmeDns.js';
import { insertAcmeDnsRegistration } from './registrations.repository.js';
import { MAX_REGISTRATIONS_PER_ORG_AND_MODE } from './acmeDns.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { newId, randomBase62 } from '../../ids.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * The ACME-DNS protocol (docs/certificates.md) against a live-mode app whose DNS provider is a real
 * PowerDNS serving ACME_DNS_ZONE: what an update sets is checked over DNS. lego's own acme-dns client
 * runs in src/features/dns/certificatesLive.test.ts; what updates may cost, in acmeDnsBudgets.test.ts.
 */
const ZONE = `acme-${randomBase62(6).toLowerCase()}.test`;

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

const address = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

const register = (c: Pick<Customer, 'org' | 'key'>, body?: unknown): Promise<Credentials> => registerAcmeDns(app, c.org.id, c.key, body);

const update = (account: Pick<Credentials, 'username' | 'password' | 'subdomain'>, txt: string, from = app.clientAddress, body?: unknown) =>
  updateAcmeDns(app, account, txt, from, body);

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
    // Three changes within the hour: one audit entry for them, the first (docs/api-guide.md, Certificates).
    expect((await listAuditEventsForTarget(app.deps.db, 'acme_dns_registration', account.id)).map((e) => [e.action, e.actorKeyId === null])).toEqual([
      ['acme_dns.registered', false],
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
      await insertAcmeDnsRegistration(app.deps.db, modeOf(true), {
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

  it('stops taking updates once the member who made the registration has left the organisation', async () => {
    const c = await dnsCustomer(app, 'live');
    const member = await insertUser(app.deps);
    await insertMember(app.deps, { orgId: c.org.id, user: member, role: 'admin' });
    const { key } = await insertKey(app.deps, { user: member, scopes: ['dns:read', 'dns:write'], mode: 'live' });
    const theirs = await register({ org: c.org, key });
    const ours = await register(c);
    expect((await update(theirs, digest())).status).toBe(200);

    const removed = await app.fetch(`/api/v1/orgs/${c.org.id}/members/${member.id}`, { method: 'DELETE', headers: bearer(c.session) });
    expect(removed.status).toBe(204);
    const refused = await update(theirs, digest());
    expect(refused.status).toBe(403);
    expect(await readJson<MessageErrorBody>(refused)).toMatchObject({ code: 'FORBIDDEN', detail: expect.stringMatching(/no longer a member/) });
    expect((await update(ours, digest())).status).toBe(200);
    // Still listed, so an owner sees what stopped working and can delete it.
    const list = await readJson<{ data: { id: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/registrations`, { headers: bearer(c.session) }));
    expect(list.data.map((r) => r.id).sort()).toEqual([theirs.id, ours.id].sort());
  });

  it('gives the registrations of a key limited to some addresses its addresses, and lets it see and delete only those', async () => {
    const c = await dnsCustomer(app, 'live');
    const office = '198.51.100.7';
    const limited = await createKey(app, c.session, { name: 'office only', scopes: ['dns:read', 'dns:write'], mode: 'live', allowed_ips: ['198.51.100.0/24'] });
    const asOffice = { headers: { 'x-forwarded-for': office } };
    const made = await registerAcmeDnsAs(app, c.org.id, limited.key, undefined, asOffice);
    expect(made.status).toBe(201);
    const inherited = await readJson<Credentials>(made);
    expect(inherited.allowfrom).toEqual(['198.51.100.0/24']);
    const narrower = await readJson<Credentials>(await registerAcmeDnsAs(app, c.org.id, limited.key, { allowfrom: ['198.51.100.128/25'] }, asOffice));
    expect(narrower.allowfrom).toEqual(['198.51.100.128/25']);
    const wider = await registerAcmeDnsAs(app, c.org.id, limited.key, { allowfrom: ['198.51.100.0/24', '10.0.0.0/8'] }, asOffice);
    expect(wider.status).toBe(403);
    expect(await readJson<MessageErrorBody>(wider)).toMatchObject({ code: 'FORBIDDEN' });

    const open = await register(c);
    const listed = await readJson<{ data: { id: string }[] }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/registrations`, { headers: { ...bearer(limited.key), 'x-forwarded-for': office } }),
    );
    expect(listed.data.map((r) => r.id).sort()).toEqual([inherited.id, narrower.id].sort());
    const remove = (id: string) => app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/registrations/${id}`, { method: 'DELETE', headers: { ...bearer(limited.key), 'x-forwarded-for': office } });
    expect((await remove(open.id)).status).toBe(404);
    expect((await update(open, digest())).status).toBe(200);
    expect((await remove(narrower.id)).status).toBe(204);
  });

  it('refuses every ACME-DNS route to a key limited to some domains', async () => {
    const c = await dnsCustomer(app, 'live');
    const existing = await register(c);
    const limited = await createKey(app, c.session, { name: 'one domain', scopes: ['dns:read', 'dns:write'], mode: 'live', allowed_domains: ['example.com'] });
    const answers = [
      await registerAcmeDnsAs(app, c.org.id, limited.key),
      await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/registrations`, { headers: bearer(limited.key) }),
      await app.fetch(`/api/v1/orgs/${c.org.id}/acme-dns/registrations/${existing.id}`, { method: 'DELETE', headers: bearer(limited.key) }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(await readJson<MessageErrorBody>(answer)).toMatchObject({ code: 'DOMAIN_NOT_ALLOWED' });
    }
    expect((await update(existing, digest())).status).toBe(200);
  });
});
