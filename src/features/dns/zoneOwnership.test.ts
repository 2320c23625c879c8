import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { jsonHeaders } from '../../../test/support/actors.js';
import { findDomainOfOrg } from '../domains/domains.repository.js';
import { changeDomainStatus } from '../domains/domainStatus.js';
import { createDnsActivities } from './activities.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * A name outlives its registrations, and PowerDNS knows zones only by name. Here one organisation's
 * live registration of a name ends without its zone being removed yet (the lifecycle's deletion is
 * retried while PowerDNS is down, for as long as it takes), and another organisation registers the
 * same name: the zone activities are the ones the registration and lifecycle workflows run.
 */
let pdns: PowerDns;
let app: TestApp;
let dnsActivities: ReturnType<typeof createDnsActivities>;
beforeAll(async () => {
  pdns = await startPowerDns();
  app = await startTestApp({ env: { DNS_PROVIDER_URL: pdns.apiUrl, DNS_PROVIDER_TOKEN: pdns.apiKey } });
  dnsActivities = createDnsActivities({ config: app.deps.config, db: app.deps.db });
});
afterAll(async () => {
  await app?.close();
  await pdns?.close();
});

const LIVE = modeOf(true);
const a = (name: string) => pdns.resolver().resolve4(name).then((ips) => ips.sort(), (err: NodeJS.ErrnoException) => err.code);
const nameservers = (name: string) => pdns.resolver().resolveNs(name).then((ns) => ns.sort());
const zoneStatus = async (name: string) =>
  (await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${name}.`, { headers: { 'X-API-Key': pdns.apiKey } })).status;

async function addRecord(c: Customer, name: string, record: { type: string; name: string; content: string }): Promise<void> {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}/records`, { method: 'POST', headers: jsonHeaders(c.key), body: JSON.stringify(record) });
  expect(res.status).toBe(201);
}

/** A live domain of a first organisation with a record at PowerDNS, then expired and deleted by its lifecycle, whose zone deletion has not run yet. */
async function endedRegistration(): Promise<string> {
  const first = await dnsCustomer(app, 'live');
  const name = await insertActiveDomain(app, first, { nameservers: ['ns1.first.example', 'ns2.first.example'] });
  await addRecord(first, name, { type: 'A', name: 'www', content: '192.0.2.10' });
  expect(await a(`www.${name}`)).toEqual(['192.0.2.10']);
  const domainId = (await findDomainOfOrg(app.deps.db, LIVE, first.org.id, name))!.id;
  await changeDomainStatus({ db: app.deps.db, mode: LIVE, domainId, to: 'expired' });
  await changeDomainStatus({ db: app.deps.db, mode: LIVE, domainId, to: 'deleted' });
  return name;
}

async function reRegistered(name: string): Promise<Customer> {
  const second = await dnsCustomer(app, 'live');
  await insertActiveDomain(app, second, { name, nameservers: ['ns1.second.example', 'ns2.second.example'] });
  return second;
}

describe('a live name registered again after an earlier registration ended', () => {
  it('gets a zone of its own when the registration creates it: nothing of the earlier registration survives', async () => {
    const name = await endedRegistration();
    await reRegistered(name);
    const created = await dnsActivities.createDnsZone({ livemode: true, domainName: name, nameservers: ['ns1.second.example', 'ns2.second.example'] });
    expect(await a(`www.${name}`)).toBe('ENOTFOUND');
    expect(await nameservers(name)).toEqual(['ns1.second.example', 'ns2.second.example']);
    expect(created).toEqual({ created: true });
  });

  it('gets a zone of its own on its first record edit when the registration could not create it', async () => {
    const name = await endedRegistration();
    const second = await reRegistered(name);
    await addRecord(second, name, { type: 'A', name: 'api', content: '192.0.2.20' });
    expect(await a(`api.${name}`)).toEqual(['192.0.2.20']);
    expect(await a(`www.${name}`)).toBe('ENOTFOUND');
    expect(await nameservers(name)).toEqual(['ns1.second.example', 'ns2.second.example']);
  });

  it('keeps its zone when the earlier registration’s zone deletion comes late', async () => {
    const name = await endedRegistration();
    const second = await reRegistered(name);
    await dnsActivities.createDnsZone({ livemode: true, domainName: name, nameservers: ['ns1.second.example', 'ns2.second.example'] });
    await addRecord(second, name, { type: 'A', name: 'api', content: '192.0.2.20' });

    // What the first registration's lifecycle runs once PowerDNS answers again.
    expect(await dnsActivities.deleteDnsZone({ livemode: true, domainName: name })).toEqual({ deleted: false });
    expect(await zoneStatus(name)).toBe(200);
    expect(await a(`api.${name}`)).toEqual(['192.0.2.20']);
  });
});

describe('the zone of one live registration', () => {
  it('is adopted, records and all, when its creation is retried, and deleted once the registration ends', async () => {
    const c = await dnsCustomer(app, 'live');
    const name = await insertActiveDomain(app, c, { nameservers: ['ns1.example.net', 'ns2.example.net'] });
    const input = { livemode: true, domainName: name, nameservers: ['ns1.example.net', 'ns2.example.net'] };
    expect(await dnsActivities.createDnsZone(input)).toEqual({ created: true });
    await addRecord(c, name, { type: 'A', name: 'www', content: '192.0.2.30' });
    expect(await dnsActivities.createDnsZone(input)).toEqual({ created: false });
    expect(await a(`www.${name}`)).toEqual(['192.0.2.30']);

    // While the domain holds its name, a deletion (a lifecycle's late retry for some earlier registration) leaves it.
    expect(await dnsActivities.deleteDnsZone({ livemode: true, domainName: name })).toEqual({ deleted: false });
    expect(await zoneStatus(name)).toBe(200);

    const domainId = (await findDomainOfOrg(app.deps.db, LIVE, c.org.id, name))!.id;
    await changeDomainStatus({ db: app.deps.db, mode: LIVE, domainId, to: 'expired' });
    await changeDomainStatus({ db: app.deps.db, mode: LIVE, domainId, to: 'deleted' });
    expect(await dnsActivities.deleteDnsZone({ livemode: true, domainName: name })).toEqual({ deleted: true });
    expect(await zoneStatus(name)).toBe(404);
  });
});
