import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPowerDns, type PowerDns } from '../../../../test/support/powerdns.js';
import { freePort } from '../../../../scripts/lib/temporalDevServer.js';
import { DnsProviderUnavailableError, DnsZoneNotFoundError } from './errors.js';
import { patchWaitMs, PowerDnsProvider } from './powerdns.js';
import { createDnsProviders } from './index.js';
import { HoldingProxy } from '../../../../test/support/holdingProxy.js';

let pdns: PowerDns;
let provider: PowerDnsProvider;
beforeAll(async () => {
  pdns = await startPowerDns();
  provider = new PowerDnsProvider({ baseUrl: `${pdns.apiUrl}/api/v1`, apiKey: pdns.apiKey, timeoutMs: 3_000 });
});
afterAll(async () => pdns?.close());

const zoneName = () => `adapter-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.test`;

describe('PowerDNS adapter, against a real pdns_server', () => {
  it('creates a zone once (a second create is fine) that answers SOA and NS over DNS', async () => {
    const zone = zoneName();
    expect(await provider.createZone({ zone, nameservers: ['ns1.example.net', 'ns2.example.net.'] })).toEqual({ created: true });
    expect(await provider.createZone({ zone, nameservers: ['ns1.example.net'] })).toEqual({ created: false });
    expect((await pdns.resolver().resolveNs(zone)).sort()).toEqual(['ns1.example.net', 'ns2.example.net']);
    expect((await pdns.resolver().resolveSoa(zone)).nsname).toBeTruthy();
  });

  it('replaces whole RRsets and deletes them, every type in its presentation format', async () => {
    const zone = zoneName();
    await provider.createZone({ zone, nameservers: ['ns1.example.net'] });
    const long = 'x'.repeat(300);
    await provider.applyChanges(zone, [
      { changetype: 'REPLACE', name: 'www', type: 'A', ttl: 300, records: [{ type: 'A', content: '192.0.2.1', priority: null }, { type: 'A', content: '192.0.2.2', priority: null }] },
      { changetype: 'REPLACE', name: 'www', type: 'AAAA', ttl: 300, records: [{ type: 'AAAA', content: '2001:db8::1', priority: null }] },
      { changetype: 'REPLACE', name: '@', type: 'MX', ttl: 300, records: [{ type: 'MX', content: 'mail.example.net', priority: 10 }] },
      { changetype: 'REPLACE', name: 'txt', type: 'TXT', ttl: 300, records: [{ type: 'TXT', content: `say "hi" ${long}`, priority: null }] },
      { changetype: 'REPLACE', name: '_sip._tcp', type: 'SRV', ttl: 300, records: [{ type: 'SRV', content: '5 5060 sip.example.net', priority: 20 }] },
      { changetype: 'REPLACE', name: '@', type: 'CAA', ttl: 300, records: [{ type: 'CAA', content: '0 issue "letsencrypt.org"', priority: null }] },
      { changetype: 'REPLACE', name: 'alias', type: 'CNAME', ttl: 300, records: [{ type: 'CNAME', content: 'www.example.net', priority: null }] },
      { changetype: 'REPLACE', name: 'sub', type: 'NS', ttl: 300, records: [{ type: 'NS', content: 'ns.elsewhere.net', priority: null }] },
    ]);
    const r = pdns.resolver();
    expect((await r.resolve4(`www.${zone}`)).sort()).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(await r.resolve6(`www.${zone}`)).toEqual(['2001:db8::1']);
    expect(await r.resolveMx(zone)).toEqual([{ exchange: 'mail.example.net', priority: 10 }]);
    expect((await r.resolveTxt(`txt.${zone}`))[0]!.join('')).toBe(`say "hi" ${long}`);
    expect((await r.resolveTxt(`txt.${zone}`))[0]!.map((s) => s.length)).toEqual([255, 54]);
    expect(await r.resolveSrv(`_sip._tcp.${zone}`)).toEqual([{ name: 'sip.example.net', port: 5060, priority: 20, weight: 5 }]);
    expect(await r.resolveCaa(zone)).toEqual([{ critical: 0, issue: 'letsencrypt.org' }]);
    expect(await r.resolveCname(`alias.${zone}`)).toEqual(['www.example.net']);

    await provider.applyChanges(zone, [{ changetype: 'REPLACE', name: 'www', type: 'A', ttl: 300, records: [{ type: 'A', content: '192.0.2.3', priority: null }] }]);
    expect(await pdns.resolver().resolve4(`www.${zone}`)).toEqual(['192.0.2.3']);
    await provider.applyChanges(zone, [{ changetype: 'DELETE', name: 'www', type: 'A' }]);
    await provider.applyChanges(zone, [{ changetype: 'DELETE', name: 'never-was', type: 'A' }]);
    await expect(pdns.resolver().resolve4(`www.${zone}`)).rejects.toMatchObject({ code: 'ENODATA' });
  });

  it('lands every one of many concurrent changes of one zone (gsqlite3 refuses a write that races another as "database is locked")', async () => {
    const zone = zoneName();
    await provider.createZone({ zone, nameservers: ['ns1.example.net'] });
    const names = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const outcomes = await Promise.allSettled(
      names.map((name, i) =>
        provider.applyChanges(zone, [{ changetype: 'REPLACE', name, type: 'TXT', ttl: 60, records: [{ type: 'TXT', content: `v${i}`, priority: null }] }]),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason))).toEqual([]);
    const served = await Promise.all(names.map(async (name) => (await pdns.resolver().resolveTxt(`${name}.${zone}`))[0]!.join('')));
    expect(served).toEqual(names.map((_, i) => `v${i}`));
  });

  it('applies a PATCH all or nothing: one refused RRset leaves the others unchanged', async () => {
    const zone = zoneName();
    await provider.createZone({ zone, nameservers: ['ns1.example.net'] });
    await provider.applyChanges(zone, [{ changetype: 'REPLACE', name: 'alias', type: 'CNAME', ttl: 300, records: [{ type: 'CNAME', content: 'www.example.net', priority: null }] }]);
    const refused = provider.applyChanges(zone, [
      { changetype: 'REPLACE', name: 'ok', type: 'A', ttl: 300, records: [{ type: 'A', content: '192.0.2.9', priority: null }] },
      { changetype: 'REPLACE', name: 'alias', type: 'A', ttl: 300, records: [{ type: 'A', content: '192.0.2.9', priority: null }] },
    ]);
    await expect(refused).rejects.toMatchObject({ status: 502, code: 'DNS_PROVIDER_UNAVAILABLE', transient: false, upstreamStatus: 422 });
    await expect(refused).rejects.toThrow(/Conflicts with pre-existing RRset/);
    await expect(pdns.resolver().resolve4(`ok.${zone}`)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('reports a missing zone, a wrong key, and an unreachable or unconfigured provider', async () => {
    await expect(provider.applyChanges('missing.test', [{ changetype: 'REPLACE', name: 'www', type: 'A', ttl: 300, records: [{ type: 'A', content: '192.0.2.1', priority: null }] }])).rejects.toBeInstanceOf(
      DnsZoneNotFoundError,
    );
    const wrongKey = new PowerDnsProvider({ baseUrl: pdns.apiUrl, apiKey: 'wrong' });
    await expect(wrongKey.createZone({ zone: zoneName(), nameservers: [] })).rejects.toMatchObject({ status: 502, transient: false, upstreamStatus: 401 });
    const closed = new PowerDnsProvider({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: 'x' });
    const down = closed.createZone({ zone: zoneName(), nameservers: [] });
    await expect(down).rejects.toMatchObject({ status: 503, transient: true });
    await expect(down).rejects.toThrow(/ECONNREFUSED/);
    const unconfigured = createDnsProviders({ dnsProvider: undefined }).forMode(true);
    await expect(unconfigured.applyChanges('x.test', [])).rejects.toMatchObject({ status: 503, code: 'DNS_PROVIDER_UNAVAILABLE', transient: false });
    await expect(createDnsProviders({ dnsProvider: undefined }).forMode(false).createZone({ zone: 'x.test', nameservers: [] })).resolves.toEqual({ created: true });
  });

  it('answers 503 while PowerDNS is stopped, and works again once it is back', async () => {
    const zone = zoneName();
    await provider.createZone({ zone, nameservers: ['ns1.example.net'] });
    await pdns.stop();
    try {
      const err: unknown = await provider.createZone({ zone: zoneName(), nameservers: [] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DnsProviderUnavailableError);
      expect(err).toMatchObject({ status: 503, transient: true });
    } finally {
      await pdns.start();
    }
    await provider.applyChanges(zone, [{ changetype: 'REPLACE', name: 'back', type: 'A', ttl: 300, records: [{ type: 'A', content: '192.0.2.4', priority: null }] }]);
    expect(await pdns.resolver().resolve4(`back.${zone}`)).toEqual(['192.0.2.4']);
  });

  it('waits for a change as long as its size asks: the base timeout, 1 ms a record, and more for a large change', async () => {
    const zone = zoneName();
    await provider.createZone({ zone, nameservers: ['ns1.example.net'] });
    const api = new URL(pdns.apiUrl);
    const proxy = await HoldingProxy.start({ host: api.hostname, port: Number(api.port) });
    const held = new PowerDnsProvider({ baseUrl: `http://127.0.0.1:${proxy.port}`, apiKey: pdns.apiKey, timeoutMs: 20 });
    const txt = (count: number) => ({
      changetype: 'REPLACE' as const,
      name: 'bulk',
      type: 'TXT' as const,
      ttl: 300,
      records: Array.from({ length: count }, (_, i) => ({ type: 'TXT' as const, content: `record ${i}`, priority: null })),
    });
    proxy.hold();
    try {
      await expect(held.applyChanges(zone, [txt(1)])).rejects.toThrow(`did not answer PATCH /zones/${zone}. within 21 ms`);
      await expect(held.applyChanges(zone, [txt(500), { changetype: 'DELETE', name: 'gone', type: 'A' }])).rejects.toThrow('within 546 ms');
    } finally {
      await proxy.close();
    }
    // The largest zone file's change (20,000 records) on the default 10 s.
    expect(patchWaitMs(10_000, 20_000)).toBe(70_000);
  });
});
