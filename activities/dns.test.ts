import { ApplicationFailure } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPowerDns, type PowerDns } from '../test/support/powerdns.js';
import { freePort } from '../scripts/lib/temporalDevServer.js';
import { createDnsActivities } from './dns.js';

let pdns: PowerDns;
beforeAll(async () => {
  pdns = await startPowerDns();
});
afterAll(async () => pdns?.close());

const zone = () => `zone-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.com`;

describe('createDnsZone activity', () => {
  it('creates the live zone at PowerDNS with the domain’s name servers, and is idempotent', async () => {
    const activities = createDnsActivities({ config: { dnsProvider: { url: pdns.apiUrl, token: pdns.apiKey } } });
    const domainName = zone();
    const input = { livemode: true, domainName, nameservers: ['ns1.example.net', 'ns2.example.net'] };
    expect(await activities.createDnsZone(input)).toEqual({ created: true });
    expect(await activities.createDnsZone(input)).toEqual({ created: false });
    expect((await pdns.resolver().resolveNs(domainName)).sort()).toEqual(['ns1.example.net', 'ns2.example.net']);
    expect((await pdns.resolver().resolveSoa(domainName)).hostmaster).toContain(domainName);
  });

  it('never contacts the provider in test mode', async () => {
    const activities = createDnsActivities({ config: { dnsProvider: { url: `http://127.0.0.1:${await freePort()}`, token: 'x' } } });
    expect(await activities.createDnsZone({ livemode: false, domainName: zone(), nameservers: [] })).toEqual({ created: true });
  });

  it('fails retryably while the provider is unreachable, and for good when it refuses or is not configured', async () => {
    const down = createDnsActivities({ config: { dnsProvider: { url: `http://127.0.0.1:${await freePort()}`, token: 'x' } } });
    const transient = await down.createDnsZone({ livemode: true, domainName: zone(), nameservers: [] }).catch((err: unknown) => err);
    expect(transient).toBeInstanceOf(ApplicationFailure);
    expect(transient).toMatchObject({ type: 'DNS_PROVIDER_UNAVAILABLE', nonRetryable: false });

    const wrongKey = createDnsActivities({ config: { dnsProvider: { url: pdns.apiUrl, token: 'wrong' } } });
    const refused = await wrongKey.createDnsZone({ livemode: true, domainName: zone(), nameservers: [] }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ type: 'DNS_PROVIDER_UNAVAILABLE', nonRetryable: true });

    const unconfigured = createDnsActivities({ config: { dnsProvider: undefined } });
    const missing = await unconfigured.createDnsZone({ livemode: true, domainName: zone(), nameservers: [] }).catch((err: unknown) => err);
    expect(missing).toMatchObject({ type: 'DNS_PROVIDER_UNAVAILABLE', nonRetryable: true });
  });
});
