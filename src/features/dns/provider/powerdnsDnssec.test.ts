import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPowerDns, type PowerDns } from '../../../../test/support/powerdns.js';
import { DnsProviderUnavailableError, DnsZoneNotFoundError } from './errors.js';
import { PowerDnsProvider } from './powerdns.js';
import { SyntheticDnsProvider } from './synthetic.js';
import { dsOf, parseDnskey } from '../dnssecKeys.js';

/** Signing through PowerDNS's cryptokeys API, against a real pdns_server with gsqlite3-dnssec. */
let pdns: PowerDns;
let provider: PowerDnsProvider;
beforeAll(async () => {
  pdns = await startPowerDns();
  provider = new PowerDnsProvider({ baseUrl: pdns.apiUrl, apiKey: pdns.apiKey, timeoutMs: 3_000 });
});
afterAll(async () => pdns?.close());

const zoneName = () => `signed-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.test`;
const run = promisify(execFile);
/** The types the RRSIGs in the answer to `name`/`type` cover. */
async function signedTypes(name: string, type: string): Promise<string[]> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(pdns.dnsPort), '+norec', '+dnssec', '+time=2', '+tries=1', name, type]);
  return stdout
    .split('\n')
    .filter((line) => !line.startsWith(';') && line.split(/\s+/)[3] === 'RRSIG')
    .map((line) => line.split(/\s+/)[4]!);
}

describe('PowerDNS signing', () => {
  it('signs with one algorithm-13 key, keeps it on a retry, and answers its SHA-256 DS', async () => {
    const zone = zoneName();
    await provider.createZone({ zone, nameservers: ['ns1.example.net'] });
    const first = await provider.signZone(zone);
    expect(parseDnskey(first.dnskey)).toMatchObject({ flags: 257, protocol: 3, algorithm: 13 });
    expect(first.ds).toMatchObject({ algorithm: 13, digestType: 2 });
    // Our own arithmetic (src/features/dns/dnssecKeys.ts) agrees with PowerDNS's.
    expect(dsOf(zone, parseDnskey(first.dnskey))).toEqual(first.ds);
    expect(await provider.signZone(zone)).toEqual(first);
    expect(await signedTypes(zone, 'SOA')).toEqual(['SOA']);
    // A record added after signing is signed too.
    await provider.applyChanges(zone, [{ changetype: 'REPLACE', name: 'late', type: 'A', ttl: 300, records: [{ type: 'A', content: '192.0.2.9', priority: null }] }]);
    expect(await signedTypes(`late.${zone}`, 'A')).toEqual(['A']);
  });

  it('unsigns (twice is fine), and a missing zone is DnsZoneNotFoundError', async () => {
    const zone = zoneName();
    await provider.createZone({ zone, nameservers: ['ns1.example.net'] });
    const key = await provider.signZone(zone);
    await provider.unsignZone(zone);
    await provider.unsignZone(zone);
    // Signed again, it is a new key: the old one is gone.
    expect((await provider.signZone(zone)).dnskey).not.toBe(key.dnskey);
    await expect(provider.signZone(zoneName())).rejects.toBeInstanceOf(DnsZoneNotFoundError);
  });

  it('without gsqlite3-dnssec PowerDNS refuses the key: 502, permanent, quoting it', async () => {
    const bare = await startPowerDns({ dnssec: false });
    try {
      const unsigned = new PowerDnsProvider({ baseUrl: bare.apiUrl, apiKey: bare.apiKey, timeoutMs: 3_000 });
      const zone = zoneName();
      await unsigned.createZone({ zone, nameservers: ['ns1.example.net'] });
      const err = await unsigned.signZone(zone).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DnsProviderUnavailableError);
      expect(err).toMatchObject({ status: 502, transient: false });
      expect((err as Error).message).toContain('DNSSEC not enabled');
    } finally {
      await bare.close();
    }
  });
});

describe('the synthetic provider (test mode)', () => {
  it('answers the same real key for a zone every time, and its true DS', async () => {
    const synthetic = new SyntheticDnsProvider();
    const key = await synthetic.signZone('example-test.com');
    expect(await synthetic.signZone('example-test.com')).toEqual(key);
    expect((await synthetic.signZone('other-test.com')).dnskey).not.toBe(key.dnskey);
    expect(dsOf('example-test.com', parseDnskey(key.dnskey))).toEqual(key.ds);
    expect(Buffer.from(parseDnskey(key.dnskey).publicKey, 'base64')).toHaveLength(64);
  });
});

describe('DNSSEC arithmetic', () => {
  it('matches a key tag and digest PowerDNS computed', () => {
    const key = parseDnskey('257 3 13 KZ9dpqUM7JSSGWZoVcj02WLndu75hx+UBNVo5dCDa5V+tKS/b3EMIISa16/2/GPkosvG6g4YusbaWxu4XQBQfg==');
    expect(dsOf('Probe.Test.', key)).toEqual({ keyTag: 10552, algorithm: 13, digestType: 2, digest: '1eae3a42e28375462b29e68e6328110f60f5cedbc0f6af13c74052abded67751' });
  });
});
