import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { dnsCustomer, insertActiveDomain } from '../../../test/support/domains.js';
import { freePort } from '../../../scripts/lib/temporalDevServer.js';
import type { Config } from '../../config.js';
import { createDnsActivities } from './activities.js';

let pdns: PowerDns;
let app: TestApp;
beforeAll(async () => {
  pdns = await startPowerDns();
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
  await pdns?.close();
});

const activitiesFor = (dnsProvider: Config['dnsProvider']) => createDnsActivities({ config: { dnsProvider }, db: app.deps.db });
/** A live domain that is active, as a registration leaves it before its zone is created. */
const activeLiveDomain = async (nameservers: string[] = []) => insertActiveDomain(app, await dnsCustomer(app, 'live'), { nameservers });

describe('createDnsZone activity', () => {
  it('creates the live zone at PowerDNS with the domain’s name servers, and is idempotent', async () => {
    const activities = activitiesFor({ url: pdns.apiUrl, token: pdns.apiKey });
    const domainName = await activeLiveDomain(['ns1.example.net', 'ns2.example.net']);
    const input = { livemode: true, domainName, nameservers: ['ns1.example.net', 'ns2.example.net'] };
    expect(await activities.createDnsZone(input)).toEqual({ created: true });
    expect(await activities.createDnsZone(input)).toEqual({ created: false });
    expect((await pdns.resolver().resolveNs(domainName)).sort()).toEqual(['ns1.example.net', 'ns2.example.net']);
    expect((await pdns.resolver().resolveSoa(domainName)).hostmaster).toContain(domainName);
  });

  it('never contacts the provider in test mode', async () => {
    const activities = activitiesFor({ url: `http://127.0.0.1:${await freePort()}`, token: 'x' });
    expect(await activities.createDnsZone({ livemode: false, domainName: 'never-asked.com', nameservers: [] })).toEqual({ created: true });
  });

  it('fails retryably while the provider is unreachable, and for good when it refuses or is not configured', async () => {
    const input = async () => ({ livemode: true, domainName: await activeLiveDomain(), nameservers: [] });
    const down = activitiesFor({ url: `http://127.0.0.1:${await freePort()}`, token: 'x' });
    const transient = await down.createDnsZone(await input()).catch((err: unknown) => err);
    expect(transient).toBeInstanceOf(ApplicationFailure);
    expect(transient).toMatchObject({ type: 'DNS_PROVIDER_UNAVAILABLE', nonRetryable: false });

    const wrongKey = activitiesFor({ url: pdns.apiUrl, token: 'wrong' });
    const refused = await wrongKey.createDnsZone(await input()).catch((err: unknown) => err);
    expect(refused).toMatchObject({ type: 'DNS_PROVIDER_UNAVAILABLE', nonRetryable: true });

    const unconfigured = activitiesFor(undefined);
    const missing = await unconfigured.createDnsZone(await input()).catch((err: unknown) => err);
    expect(missing).toMatchObject({ type: 'DNS_PROVIDER_UNAVAILABLE', nonRetryable: true });
  });
});
