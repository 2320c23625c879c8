import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { startPowerDns, type PowerDns } from '../support/powerdns.js';
import { dnsCustomer, insertActiveDomain } from '../support/domains.js';
import { bearer } from '../support/actors.js';
import { readJson } from '../support/http.js';
import { namedCheckzone } from '../support/namedCheckzone.js';
import { ZONE_FILE_MAX_RECORDS } from '../../src/features/dns/zoneFileImport.js';

/**
 * Zone files in live mode, against a real PowerDNS: an import reaches the DNS server in one change,
 * and the export carries the SOA and apex NS records PowerDNS serves.
 */
let pdns: PowerDns;
let app: TestApp;
beforeAll(async () => {
  pdns = await startPowerDns();
  app = await startTestApp({ env: { DNS_PROVIDER_URL: pdns.apiUrl, DNS_PROVIDER_TOKEN: pdns.apiKey } });
});
afterAll(async () => {
  await app?.close();
  await pdns?.close();
});

describe('zone files in live mode', () => {
  it('imports into PowerDNS and exports the SOA and name servers it serves', async () => {
    const c = await dnsCustomer(app, 'live');
    const domain = await insertActiveDomain(app, c, { nameservers: ['ns1.example.net', 'ns2.example.net'] });
    const zone = `/api/v1/orgs/${c.org.id}/domains/${domain}/zone`;
    const file = ['$TTL 300', 'www A 192.0.2.10', '    A 192.0.2.11', 'txt TXT ( "part one; " ; comment', '  "part two" )', 'mail MX 10 mx.example.net.'].join('\n');
    const res = await app.fetch(zone, { method: 'POST', headers: { ...bearer(c.key), 'content-type': 'text/dns' }, body: file });
    expect(res.status).toBe(200);
    expect((await readJson<{ create: unknown[] }>(res)).create).toHaveLength(4);

    const resolver = pdns.resolver();
    expect((await resolver.resolve4(`www.${domain}`)).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    // The strings are joined into one text, as every TXT record here is (split again only past 255 characters).
    expect(await resolver.resolveTxt(`txt.${domain}`)).toEqual([['part one; part two']]);

    const exported = await app.fetch(zone, { headers: bearer(c.key) });
    const text = await exported.text();
    const [servedSoa] = await resolver.resolveSoa(domain).then((soa) => [soa]);
    // The SOA names the domain's first name server and its hostmaster, not PowerDNS's placeholder.
    expect(servedSoa).toMatchObject({ nsname: 'ns1.example.net', hostmaster: `hostmaster.${domain}` });
    expect(text).toMatch(new RegExp(`^@ \\d+ IN SOA ${servedSoa!.nsname.replace(/\./g, '\\.')}\\. ${servedSoa!.hostmaster.replace(/\./g, '\\.')}\\. ${servedSoa!.serial} `, 'm'));
    expect(text).toContain('@ 3600 IN NS ns1.example.net.\n@ 3600 IN NS ns2.example.net.\n');
    expect(text).toContain('txt 300 IN TXT "part one; part two"\n');
    const checked = await namedCheckzone(domain, text);
    expect(checked.output).toContain('OK');
    expect(checked.code).toBe(0);
  });

  it("imports the most records a file may hold in one change, though that change is far over PowerDNS's default request size", { timeout: 180_000 }, async () => {
    const c = await dnsCustomer(app, 'live');
    const domain = await insertActiveDomain(app, c, { nameservers: ['ns1.example.net', 'ns2.example.net'] });
    const zone = `/api/v1/orgs/${c.org.id}/domains/${domain}/zone`;
    const text = (i: number) => `${i} ${'x'.repeat(200)}`;
    const file = `$TTL 300\n${Array.from({ length: ZONE_FILE_MAX_RECORDS }, (_, i) => `r${i}.bulk TXT "${text(i)}"`).join('\n')}\n`;
    const res = await app.fetch(zone, { method: 'POST', headers: { ...bearer(c.key), 'content-type': 'text/dns' }, body: file });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await readJson<{ create: unknown[] }>(res)).create).toHaveLength(ZONE_FILE_MAX_RECORDS);

    const last = ZONE_FILE_MAX_RECORDS - 1;
    expect(await pdns.resolver().resolveTxt(`r${last}.bulk.${domain}`)).toEqual([[text(last)]]);
    const exported = await (await app.fetch(zone, { headers: bearer(c.key) })).text();
    expect(exported.split('\n').filter((line) => / IN TXT /.test(line))).toHaveLength(ZONE_FILE_MAX_RECORDS);
  });
});
