import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { dnsCustomer, insertActiveDomain } from '../../../test/support/domains.js';
import { bearer } from '../../../test/support/actors.js';
import { readJson } from '../../../test/support/http.js';
import { namedCheckzone } from '../../../test/support/namedCheckzone.js';
import { ZONE_FILE_MAX_RECORDS } from './zoneFileImport.js';
import { ZONE_FILL_READ_RECORDS } from './zones.js';

/**
 * Zone files in live mode, against a real PowerDNS: an import reaches the DNS server in one change,
 * the export carries the SOA and apex NS records PowerDNS serves, and a zone made afresh is given
 * every record, read in batches and sent in changes of bounded size.
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

  it('makes a zone removed at PowerDNS again on the next edit, with every record, read in several batches', { timeout: 180_000 }, async () => {
    const c = await dnsCustomer(app, 'live');
    const domain = await insertActiveDomain(app, c, { nameservers: ['ns1.example.net', 'ns2.example.net'] });
    const zone = `/api/v1/orgs/${c.org.id}/domains/${domain}/zone`;
    // Two and a half batches' worth, with one TXT RRset larger than a batch straddling them.
    const hosts = Array.from({ length: ZONE_FILL_READ_RECORDS }, (_, i) => `h${i} A 192.0.2.${i % 250}`);
    const spf = Array.from({ length: ZONE_FILL_READ_RECORDS + 500 }, (_, i) => `many TXT "entry ${i}"`);
    const file = `$TTL 300\n${[...hosts, ...spf].join('\n')}\n`;
    const imported = await app.fetch(zone, { method: 'POST', headers: { ...bearer(c.key), 'content-type': 'text/dns' }, body: file });
    expect(imported.status, await imported.clone().text()).toBe(200);

    const atPowerDns = `${pdns.apiUrl}/api/v1/servers/localhost/zones/${domain}.`;
    expect((await fetch(atPowerDns, { method: 'DELETE', headers: { 'X-API-Key': pdns.apiKey } })).status).toBe(204);
    const edit = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${domain}/records`, {
      method: 'POST',
      headers: { ...bearer(c.key), 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'A', name: 'after', content: '192.0.2.99' }),
    });
    expect(edit.status).toBe(201);

    const served = (await readJson<{ rrsets: { name: string; type: string; records: unknown[] }[] }>(await fetch(atPowerDns, { headers: { 'X-API-Key': pdns.apiKey } }))).rrsets;
    const count = (type: string, name?: string) =>
      served.filter((r) => r.type === type && (!name || r.name === `${name}.${domain}.`)).reduce((n, r) => n + r.records.length, 0);
    expect(count('A')).toBe(ZONE_FILL_READ_RECORDS + 1);
    expect(count('TXT', 'many')).toBe(ZONE_FILL_READ_RECORDS + 500);
    expect(await pdns.resolver().resolve4(`after.${domain}`)).toEqual(['192.0.2.99']);
  });
});
