import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { startNamed, type Named } from '../../../test/support/named.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { readJson } from '../../../test/support/http.js';
import { freePort } from '../../../scripts/lib/temporalDevServer.js';

/**
 * Outgoing zone transfers against real servers: our PowerDNS (the test DNS host) as primary and
 * BIND's named as the customer's secondary on loopback. named loads the zone with the transfer's
 * key, is NOTIFY'd of every change and serves it within 5 s; without the key no one can AXFR.
 */
const run = promisify(execFile);

interface TransferBody {
  id: string;
  servers: string[];
  tsig: { name: string; algorithm: string; secret?: string };
}

let pdns: PowerDns;
let app: TestApp;
const named: Named[] = [];
beforeAll(async () => {
  pdns = await startPowerDns();
  app = await startTestApp({ env: { DNS_TEST_PROVIDER_URL: pdns.apiUrl, DNS_TEST_PROVIDER_TOKEN: pdns.apiKey } });
});
afterAll(async () => {
  for (const server of named) await server.close();
  await app?.close();
  await pdns?.close();
});

const transfersUrl = (c: Customer, domain: string) => `/api/v1/orgs/${c.org.id}/domains/${domain}/zone/transfers`;
const send = (c: Customer, method: string, url: string, body?: unknown) =>
  app.fetch(url, { method, headers: jsonHeaders(c.key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function addRecord(c: Customer, domain: string, record: { type: string; name: string; content: string }): Promise<void> {
  const res = await send(c, 'POST', `/api/v1/orgs/${c.org.id}/domains/${domain}/records`, { ttl: 300, ...record });
  if (res.status !== 201) throw new Error(`record refused: ${res.status} ${await res.text()}`);
}

/** `dig AXFR` at our PowerDNS, signed with `key` when given: the records it answers, or none when refused. */
async function axfr(domain: string, key?: { name: string; secret: string }): Promise<string[]> {
  const args = ['+time=2', '+tries=1', '@127.0.0.1', '-p', String(pdns.dnsPort), ...(key ? ['-y', `hmac-sha256:${key.name}:${key.secret}`] : []), domain, 'AXFR'];
  const { stdout } = await run('dig', args);
  return stdout.split('\n').filter((line) => line !== '' && !line.startsWith(';'));
}

const ourSerial = async (domain: string) => (await pdns.resolver().resolveSoa(domain)).serial;

describe('outgoing zone transfers', () => {
  it('lets named transfer the zone with the key made for it, notifies it of each change, and refuses everyone else', async () => {
    const c = await dnsCustomer(app, 'test');
    const domain = await insertActiveDomain(app, c, { nameservers: ['ns1.example.net', 'ns2.example.net'] });
    await addRecord(c, domain, { type: 'A', name: 'www', content: '192.0.2.10' });

    const port = await freePort();
    const created = await send(c, 'POST', transfersUrl(c, domain), { servers: [`127.0.0.1:${port}`] });
    expect(created.status).toBe(201);
    const transfer = await readJson<TransferBody>(created);
    expect(transfer).toMatchObject({ servers: [`127.0.0.1:${port}`], tsig: { algorithm: 'hmac-sha256', name: expect.stringMatching(new RegExp(`\\.${domain.replace(/\./g, '\\.')}\\.$`)) } });
    const key = { name: transfer.tsig.name, secret: transfer.tsig.secret! };
    expect(Buffer.from(key.secret, 'base64')).toHaveLength(32);

    // The list never shows the secret again.
    const listed = await readJson<{ data: TransferBody[] }>(await app.fetch(transfersUrl(c, domain), { headers: bearer(c.key) }));
    expect(listed.data).toEqual([expect.objectContaining({ id: transfer.id, tsig: { name: key.name, algorithm: 'hmac-sha256' } })]);

    const secondary = await startNamed([{ name: domain, type: 'secondary', primaryPort: pdns.dnsPort, key }], { port });
    named.push(secondary);
    await expect.poll(() => secondary.dig(`www.${domain}`, 'A'), { timeout: 10_000, interval: 100 }).toEqual(['192.0.2.10']);
    expect(secondary.output()).toContain(`TSIG '${key.name.replace(/\.$/, '')}'`);

    // A change: the secondary serves its serial within 5 s of the API's answer (NOTIFY, not its refresh timer).
    const before = await ourSerial(domain);
    await addRecord(c, domain, { type: 'TXT', name: 'notified', content: 'yes' });
    const after = await ourSerial(domain);
    expect(after).toBeGreaterThan(before);
    await expect.poll(() => secondary.serial(domain), { timeout: 5_000, interval: 50 }).toBe(after);
    expect(await secondary.dig(`notified.${domain}`, 'TXT')).toEqual(['"yes"']);

    // Unsigned, or signed with a key that is not this zone's, the transfer is refused.
    expect((await axfr(domain, key)).some((line) => line.includes('notified'))).toBe(true);
    expect(await axfr(domain)).toEqual([]);
    const other = await insertActiveDomain(app, c, { nameservers: ['ns1.example.net'] });
    await addRecord(c, other, { type: 'A', name: 'www', content: '192.0.2.11' });
    expect(await axfr(other, key)).toEqual([]);

    // Deleted: the key no longer transfers the zone, and it is gone from the list.
    expect((await send(c, 'DELETE', `${transfersUrl(c, domain)}/${transfer.id}`)).status).toBe(204);
    expect(await axfr(domain, key)).toEqual([]);
    expect((await send(c, 'DELETE', `${transfersUrl(c, domain)}/${transfer.id}`)).status).toBe(404);
    expect((await readJson<{ data: unknown[] }>(await app.fetch(transfersUrl(c, domain), { headers: bearer(c.key) }))).data).toEqual([]);
  });

  it('refuses servers that are not addresses, or not public ones (loopback only in test mode)', async () => {
    const c = await dnsCustomer(app, 'test');
    const domain = await insertActiveDomain(app, c);
    const res = await send(c, 'POST', transfersUrl(c, domain), { servers: ['ns1.example.net', '10.0.0.1', '[fe80::1]:53', '192.0.2.1', '[2001:db8::1]:5353'] });
    expect(res.status).toBe(422);
    const body = await readJson<{ detail: { loc: string[]; msg: string }[] }>(res);
    expect(body.detail.map((e) => e.loc.join('.'))).toEqual(['body.servers.0', 'body.servers.1', 'body.servers.2']);
    expect(body.detail[1]!.msg).toContain('private');
    expect((await send(c, 'POST', transfersUrl(c, domain), { servers: [] })).status).toBe(422);
  });
});
