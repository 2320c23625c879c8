import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { startPowerDns, type PowerDns } from '../../../test/support/powerdns.js';
import { dnsCustomer, insertActiveDomain, type Customer } from '../../../test/support/domains.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { checkRecord, type RecordType } from './records.js';

/**
 * Live mode end to end: the app's DNS provider is a real PowerDNS on loopback, and every answer is
 * checked over DNS. Live domains are inserted as active rows through the repository (registering
 * one would need a live registrar); their zones are created at PowerDNS on the first edit.
 */
interface RecordBody {
  id: string;
  type: string;
  name: string;
  content: string;
  ttl: number;
  priority: number | null;
  version: number;
}

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

async function liveDomain(): Promise<{ c: Customer; domain: string; records: string }> {
  const c = await dnsCustomer(app, 'live');
  const domain = await insertActiveDomain(app, c);
  return { c, domain, records: `/api/v1/orgs/${c.org.id}/domains/${domain}/records` };
}

const send = (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  app.fetch(path, { method, headers: { ...jsonHeaders(key), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function create(key: string, records: string, body: Record<string, unknown>): Promise<RecordBody> {
  const res = await send(key, 'POST', records, body);
  if (res.status !== 201) throw new Error(`create refused: ${res.status} ${await res.text()}`);
  return readJson<RecordBody>(res);
}

async function list(key: string, records: string, query = ''): Promise<RecordBody[]> {
  return (await readJson<{ data: RecordBody[] }>(await app.fetch(`${records}?limit=100${query}`, { headers: bearer(key) }))).data;
}

const a = (name: string) => pdns.resolver().resolve4(name).then((ips) => ips.sort(), (err: NodeJS.ErrnoException) => err.code);

/** The answers `dig` prints for a type Node's resolver does not ask for (HTTPS, SVCB, TLSA, SSHFP, DS). */
async function dig(name: string, type: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('dig', ['+short', '+norec', '+time=2', '+tries=1', '@127.0.0.1', '-p', String(pdns.dnsPort), name, type]);
  return stdout.trim().split('\n').filter((line) => line !== '');
}

/** The content of each record PowerDNS holds for the zone, by "name type", as its API answers it. */
async function powerDnsContents(domain: string): Promise<Map<string, string[]>> {
  const res = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${domain}.`, { headers: { 'X-API-Key': pdns.apiKey } });
  const zone = (await res.json()) as { rrsets: { name: string; type: string; records: { content: string }[] }[] };
  return new Map(zone.rrsets.map((set) => [`${set.name} ${set.type}`, set.records.map((r) => r.content)]));
}

describe('DNS records in live mode, applied to PowerDNS', () => {
  it('creates, updates and deletes records, and PowerDNS answers each change', async () => {
    const { c, domain, records } = await liveDomain();
    const www = await create(c.key, records, { type: 'A', name: 'www', content: '192.0.2.10', ttl: 300 });
    expect(www).toMatchObject({ type: 'A', name: 'www', content: '192.0.2.10', ttl: 300, priority: null, version: 1 });
    expect(www.id).toMatch(/^rec_/);
    expect(await a(`www.${domain}`)).toEqual(['192.0.2.10']);
    // The zone was created at PowerDNS with the domain's name servers.
    expect((await pdns.resolver().resolveNs(domain)).sort()).toEqual(['ns1.example.net', 'ns2.example.net']);

    await create(c.key, records, { type: 'A', name: 'www', content: '192.0.2.11' });
    expect(await a(`www.${domain}`)).toEqual(['192.0.2.10', '192.0.2.11']);
    const mx = await create(c.key, records, { type: 'MX', name: '@', content: 'mail.example.net.', priority: 10 });
    expect(await pdns.resolver().resolveMx(domain)).toEqual([{ exchange: 'mail.example.net', priority: 10 }]);
    const long = `v=DKIM1; k=rsa; p=${'A'.repeat(400)}`;
    await create(c.key, records, { type: 'TXT', name: 'mail._domainkey', content: long });
    expect((await pdns.resolver().resolveTxt(`mail._domainkey.${domain}`)).map((strings) => strings.join(''))).toEqual([long]);
    await create(c.key, records, { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"' });
    expect(await pdns.resolver().resolveCaa(domain)).toEqual([{ critical: 0, issue: 'letsencrypt.org' }]);
    await create(c.key, records, { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.example.net', priority: 20 });
    expect(await pdns.resolver().resolveSrv(`_sip._tcp.${domain}`)).toEqual([{ name: 'sip.example.net', port: 5060, priority: 20, weight: 5 }]);
    await create(c.key, records, { type: 'AAAA', name: 'www', content: '2001:db8::10' });
    expect(await pdns.resolver().resolve6(`www.${domain}`)).toEqual(['2001:db8::10']);
    await create(c.key, records, { type: 'CNAME', name: 'blog', content: 'hosting.example.net' });
    expect(await pdns.resolver().resolveCname(`blog.${domain}`)).toEqual(['hosting.example.net']);

    const patched = await send(c.key, 'PATCH', `${records}/${www.id}`, { content: '192.0.2.12' }, { 'if-match': '"1"' });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    expect(await readJson<RecordBody>(patched)).toMatchObject({ content: '192.0.2.12', version: 2 });
    expect(await a(`www.${domain}`)).toEqual(['192.0.2.11', '192.0.2.12']);

    const renamed = await send(c.key, 'PATCH', `${records}/${www.id}`, { name: 'web' });
    expect(renamed.status).toBe(200);
    expect(await a(`www.${domain}`)).toEqual(['192.0.2.11']);
    expect(await a(`web.${domain}`)).toEqual(['192.0.2.12']);

    const mxPatched = await send(c.key, 'PATCH', `${records}/${mx.id}`, { priority: 5 });
    expect(mxPatched.status).toBe(200);
    expect(await pdns.resolver().resolveMx(domain)).toEqual([{ exchange: 'mail.example.net', priority: 5 }]);

    expect((await send(c.key, 'DELETE', `${records}/${www.id}`, undefined, { 'if-match': '"3"' })).status).toBe(204);
    expect(await a(`web.${domain}`)).toBe('ENOTFOUND');
    expect((await send(c.key, 'DELETE', `${records}/${www.id}`)).status).toBe(404);
    expect((await list(c.key, records)).map((r) => `${r.name} ${r.type}`).sort()).toEqual([
      '@ CAA',
      '@ MX',
      '_sip._tcp SRV',
      'blog CNAME',
      'mail._domainkey TXT',
      'www A',
      'www AAAA',
    ]);
  });

  it('serves the types a host needs: ALIAS as its target’s addresses, HTTPS, SVCB, TLSA, SSHFP, NAPTR, PTR and DS', async () => {
    const { c, domain, records } = await liveDomain();
    const sha256 = '0d6fce3320b2e9a2a6c33c7db2e9fe8e4c12a7d16e7e2be1c4fe3c37c5e8e1b2';
    await create(c.key, records, { type: 'A', name: 'www', content: '192.0.2.20' });
    await create(c.key, records, { type: 'AAAA', name: 'www', content: '2001:db8::20' });
    const alias = await create(c.key, records, { type: 'ALIAS', name: '', content: `WWW.${domain}.` });
    expect(alias).toMatchObject({ name: '@', content: `www.${domain}`, priority: null });
    // PowerDNS looks the target up through its resolver and answers with the addresses found.
    expect(await a(domain)).toEqual(['192.0.2.20']);
    expect(await pdns.resolver().resolve6(domain)).toEqual(['2001:db8::20']);

    const https = await create(c.key, records, { type: 'HTTPS', name: '@', content: '1 . port=443 alpn="h3,h2" ipv4hint=192.0.2.20 ipv6hint=2001:DB8:0::20' });
    expect(https.content).toBe('1 . alpn=h3,h2 port=443 ipv4hint=192.0.2.20 ipv6hint=2001:db8::20');
    expect(await dig(domain, 'HTTPS')).toEqual(['1 . alpn="h3,h2" port=443 ipv4hint=192.0.2.20 ipv6hint=2001:db8::20']);
    await create(c.key, records, { type: 'HTTPS', name: 'www', content: `0 ${domain}` });
    expect(await dig(`www.${domain}`, 'HTTPS')).toEqual([`0 ${domain}.`]);
    await create(c.key, records, { type: 'SVCB', name: '_dns', content: '1 dns.example.net. alpn=dot port=853 mandatory=alpn' });
    expect(await dig(`_dns.${domain}`, 'SVCB')).toEqual(['1 dns.example.net. mandatory=alpn alpn="dot" port=853']);

    await create(c.key, records, { type: 'TLSA', name: '_443._tcp.www', content: `3 1 1 ${sha256.toUpperCase()}` });
    expect((await dig(`_443._tcp.www.${domain}`, 'TLSA')).map((line) => line.replace(/ (?=[0-9A-F]{8}$)/, '').toLowerCase())).toEqual([`3 1 1 ${sha256}`]);
    await create(c.key, records, { type: 'SSHFP', name: 'www', content: `4 2 ${sha256}` });
    expect((await dig(`www.${domain}`, 'SSHFP')).map((line) => line.replace(/ (?=[0-9A-F]{8}$)/, '').toLowerCase())).toEqual([`4 2 ${sha256}`]);
    await create(c.key, records, { type: 'NAPTR', name: '@', content: '100 10 "u" "E2U+sip" "!^\\\\+1(.*)$!sip:\\\\1@example.com!" .' });
    await create(c.key, records, { type: 'NAPTR', name: '@', content: '100 20 "S" "SIP+D2U" "" _sip._udp.example.com.' });
    expect((await pdns.resolver().resolveNaptr(domain)).sort((x, y) => x.preference - y.preference)).toEqual([
      { flags: 'U', service: 'E2U+sip', regexp: '!^\\+1(.*)$!sip:\\1@example.com!', replacement: '', order: 100, preference: 10 },
      { flags: 'S', service: 'SIP+D2U', regexp: '', replacement: '_sip._udp.example.com', order: 100, preference: 20 },
    ]);
    await create(c.key, records, { type: 'PTR', name: '10', content: 'host.example.net' });
    expect(await pdns.resolver().resolvePtr(`10.${domain}`)).toEqual(['host.example.net']);
    // A DS stands beside the NS records of the child it is for: both in one batch.
    const batch = await send(c.key, 'POST', `${records}/batch`, {
      operations: [
        { op: 'create', record: { type: 'NS', name: 'child', content: 'ns1.example.net' } },
        { op: 'create', record: { type: 'DS', name: 'child', content: `12345 13 2 ${sha256}` } },
      ],
    });
    expect(batch.status).toBe(200);
    expect((await dig(`child.${domain}`, 'DS')).map((line) => line.replace(/ (?=[0-9A-F]{8}$)/, '').toLowerCase())).toEqual([`12345 13 2 ${sha256}`]);

    // What PowerDNS holds reads back as what is stored here: the two forms round-trip.
    const held = await powerDnsContents(domain);
    // MX and SRV are sent with their priority in front, kept apart here; none are in this zone.
    const stored = await list(c.key, records);
    expect(stored.filter((r) => r.priority !== null)).toEqual([]);
    for (const record of stored) {
      const fqdn = record.name === '@' ? `${domain}.` : `${record.name}.${domain}.`;
      const contents = held.get(`${fqdn} ${record.type}`) ?? [];
      const readBack = contents.map((content) => {
        const checked = checkRecord({ type: record.type as RecordType, name: record.name, content, ttl: record.ttl, priority: null }, domain);
        return checked.ok ? checked.value.content : `refused: ${content}`;
      });
      expect(readBack, `${record.name} ${record.type}`).toContain(record.content);
    }
  });

  it('keeps an ALIAS at the apex and alone beside addresses, and a DS beside NS records', async () => {
    const { c, domain, records } = await liveDomain();
    const elsewhere = await send(c.key, 'POST', records, { type: 'ALIAS', name: 'www', content: 'lb.example.net' });
    expect(elsewhere.status).toBe(422);
    expect((await readJson<FieldErrorBody>(elsewhere)).detail).toEqual([
      { loc: ['body', 'name'], msg: expect.stringContaining('apex'), type: 'alias_not_at_apex' },
    ]);
    const badHttps = await send(c.key, 'POST', records, { type: 'HTTPS', name: '@', content: '1 . port=99999' });
    expect(badHttps.status).toBe(422);
    expect((await readJson<FieldErrorBody>(badHttps)).detail).toEqual([
      { loc: ['body', 'content'], msg: 'SvcParams: port must be 0–65535, e.g. port=8443', type: 'https_invalid' },
    ]);

    await create(c.key, records, { type: 'A', name: '@', content: '192.0.2.1' });
    for (const body of [
      { type: 'ALIAS', name: '@', content: 'lb.example.net' },
      { type: 'DS', name: 'child', content: `12345 13 2 ${'ab'.repeat(32)}` },
    ]) {
      const res = await send(c.key, 'POST', records, body);
      expect(res.status).toBe(409);
      expect((await readJson<MessageErrorBody>(res)).code).toBe('RECORD_CONFLICT');
    }
    expect(await a(domain)).toEqual(['192.0.2.1']);
    await expect(dig(`child.${domain}`, 'DS')).resolves.toEqual([]);
  });

  it('sends one TTL per RRset: the lowest of its records', async () => {
    const { c, domain, records } = await liveDomain();
    await create(c.key, records, { type: 'A', name: 'ttl', content: '192.0.2.1', ttl: 3600 });
    await create(c.key, records, { type: 'A', name: 'ttl', content: '192.0.2.2', ttl: 120 });
    const answers = await pdns.resolver().resolve4(`ttl.${domain}`, { ttl: true });
    expect(answers.map((r) => r.ttl)).toEqual([120, 120]);
  });

  it('checks If-Match and answers 409 VERSION_MISMATCH with nothing changed, here or at PowerDNS', async () => {
    const { c, domain, records } = await liveDomain();
    const rec = await create(c.key, records, { type: 'A', name: 'v', content: '192.0.2.1' });
    expect((await send(c.key, 'PATCH', `${records}/${rec.id}`, { content: '192.0.2.2' })).status).toBe(200);
    const stale = await send(c.key, 'PATCH', `${records}/${rec.id}`, { content: '192.0.2.3' }, { 'if-match': '"1"' });
    expect(stale.status).toBe(409);
    expect((await readJson<MessageErrorBody>(stale)).code).toBe('VERSION_MISMATCH');
    const staleDelete = await send(c.key, 'DELETE', `${records}/${rec.id}`, undefined, { 'if-match': '"1"' });
    expect(staleDelete.status).toBe(409);
    expect(await a(`v.${domain}`)).toEqual(['192.0.2.2']);
    const current = await app.fetch(`${records}/${rec.id}`, { headers: bearer(c.key) });
    expect(current.headers.get('etag')).toBe('"2"');
  });

  it('keeps a CNAME alone at its name, both ways (409 RECORD_CONFLICT)', async () => {
    const { c, domain, records } = await liveDomain();
    await create(c.key, records, { type: 'A', name: 'host', content: '192.0.2.1' });
    const cnameOnA = await send(c.key, 'POST', records, { type: 'CNAME', name: 'host', content: 'elsewhere.example.net' });
    expect(cnameOnA.status).toBe(409);
    expect((await readJson<MessageErrorBody>(cnameOnA)).code).toBe('RECORD_CONFLICT');
    await create(c.key, records, { type: 'CNAME', name: 'alias', content: 'elsewhere.example.net' });
    for (const body of [
      { type: 'TXT', name: 'alias', content: 'hello' },
      { type: 'CNAME', name: 'alias', content: 'other.example.net' },
      { type: 'MX', name: 'ALIAS', content: 'mail.example.net', priority: 1 },
    ]) {
      const res = await send(c.key, 'POST', records, body);
      expect(res.status).toBe(409);
      expect((await readJson<MessageErrorBody>(res)).code).toBe('RECORD_CONFLICT');
    }
    const dup = await send(c.key, 'POST', records, { type: 'A', name: 'host', content: '192.0.2.1' });
    expect(dup.status).toBe(409);
    expect((await readJson<MessageErrorBody>(dup)).code).toBe('DUPLICATE');
    // Renaming the A record onto the CNAME's name conflicts too.
    const [host] = await list(c.key, records, '&name=host');
    const rename = await send(c.key, 'PATCH', `${records}/${host!.id}`, { name: 'alias' });
    expect(rename.status).toBe(409);
    expect(await a(`host.${domain}`)).toEqual(['192.0.2.1']);
    expect(await pdns.resolver().resolveCname(`alias.${domain}`)).toEqual(['elsewhere.example.net']);
  });

  it('answers 503 DNS_PROVIDER_UNAVAILABLE while PowerDNS is down, and changes nothing locally', async () => {
    const { c, domain, records } = await liveDomain();
    const rec = await create(c.key, records, { type: 'A', name: 'down', content: '192.0.2.1' });
    await pdns.stop();
    try {
      const created = await send(c.key, 'POST', records, { type: 'A', name: 'down', content: '192.0.2.2' });
      expect(created.status).toBe(503);
      expect(await readJson<MessageErrorBody>(created)).toMatchObject({ code: 'DNS_PROVIDER_UNAVAILABLE' });
      expect((await send(c.key, 'PATCH', `${records}/${rec.id}`, { content: '192.0.2.3' })).status).toBe(503);
      expect((await send(c.key, 'DELETE', `${records}/${rec.id}`)).status).toBe(503);
      const batch = await send(c.key, 'POST', `${records}/batch`, { operations: [{ op: 'create', record: { type: 'TXT', name: 'x', content: 'y' } }] });
      expect(batch.status).toBe(503);
    } finally {
      await pdns.start();
    }
    expect(await list(c.key, records)).toEqual([expect.objectContaining({ id: rec.id, content: '192.0.2.1', version: 1 })]);
    expect(await a(`down.${domain}`)).toEqual(['192.0.2.1']);
    // And it works again once the provider is back.
    await create(c.key, records, { type: 'A', name: 'down', content: '192.0.2.2' });
    expect(await a(`down.${domain}`)).toEqual(['192.0.2.1', '192.0.2.2']);
  });

  it('applies a batch atomically at PowerDNS and here', async () => {
    const { c, domain, records } = await liveDomain();
    const old = await create(c.key, records, { type: 'A', name: 'old', content: '192.0.2.1' });
    const keep = await create(c.key, records, { type: 'A', name: 'keep', content: '192.0.2.5' });
    const res = await send(c.key, 'POST', `${records}/batch`, {
      operations: [
        { op: 'create', record: { type: 'A', name: 'new', content: '192.0.2.2' } },
        { op: 'create', record: { type: 'MX', name: '@', content: 'mx.example.net', priority: 10 } },
        { op: 'update', id: keep.id, changes: { content: '192.0.2.6' }, if_match: 1 },
        { op: 'delete', id: old.id, if_match: '"1"' },
      ],
    });
    expect(res.status).toBe(200);
    const body = await readJson<{ results: { op: string; record?: RecordBody; id?: string }[] }>(res);
    expect(body.results.map((r) => r.op)).toEqual(['create', 'create', 'update', 'delete']);
    expect(body.results[2]!.record).toMatchObject({ id: keep.id, content: '192.0.2.6', version: 2 });
    expect(body.results[3]).toEqual({ op: 'delete', id: old.id });
    expect(await a(`new.${domain}`)).toEqual(['192.0.2.2']);
    expect(await a(`keep.${domain}`)).toEqual(['192.0.2.6']);
    expect(await a(`old.${domain}`)).toBe('ENOTFOUND');
    expect(await pdns.resolver().resolveMx(domain)).toEqual([{ exchange: 'mx.example.net', priority: 10 }]);
  });

  it('changes nothing, here or at PowerDNS, when one batch entry is invalid (422 at body.operations.N)', async () => {
    const { c, domain, records } = await liveDomain();
    const keep = await create(c.key, records, { type: 'A', name: 'keep', content: '192.0.2.5' });
    const before = await list(c.key, records);
    const operations = [
      { op: 'create', record: { type: 'A', name: 'new', content: '192.0.2.2' } },
      { op: 'update', id: keep.id, changes: { content: '192.0.2.6' } },
      { op: 'create', record: { type: 'MX', name: '@', content: 'mx.example.net' } },
      { op: 'delete', id: 'rec_doesnotexist' },
      { op: 'create', record: { type: 'AAAA', name: 'v6', content: '192.0.2.1' } },
    ];
    const res = await send(c.key, 'POST', `${records}/batch`, { operations });
    expect(res.status).toBe(422);
    expect((await readJson<FieldErrorBody>(res)).detail).toEqual([
      { loc: ['body', 'operations', '3', 'id'], msg: 'No such record on this domain', type: 'record_not_found' },
    ]);
    operations.splice(3, 1);
    const semantic = await send(c.key, 'POST', `${records}/batch`, { operations });
    expect(semantic.status).toBe(422);
    expect((await readJson<FieldErrorBody>(semantic)).detail.map((e) => e.loc)).toEqual([
      ['body', 'operations', '2', 'record', 'priority'],
      ['body', 'operations', '3', 'record', 'content'],
    ]);
    const shape = await send(c.key, 'POST', `${records}/batch`, {
      operations: [{ op: 'create', record: { type: 'A', name: 'x', content: '192.0.2.1' } }, { op: 'create', record: { type: 'A', name: 'x', content: '192.0.2.2', ttl: 5 } }],
    });
    expect(shape.status).toBe(422);
    expect((await readJson<FieldErrorBody>(shape)).detail.map((e) => e.loc)).toEqual([['body', 'operations', '1', 'record', 'ttl']]);
    const stale = await send(c.key, 'POST', `${records}/batch`, {
      operations: [{ op: 'create', record: { type: 'A', name: 'x', content: '192.0.2.1' } }, { op: 'delete', id: keep.id, if_match: 7 }],
    });
    expect(stale.status).toBe(409);
    expect(await readJson<MessageErrorBody>(stale)).toMatchObject({ code: 'VERSION_MISMATCH', detail: expect.stringMatching(/^Operation 1:/) });
    const conflict = await send(c.key, 'POST', `${records}/batch`, {
      operations: [{ op: 'create', record: { type: 'A', name: 'x', content: '192.0.2.1' } }, { op: 'create', record: { type: 'CNAME', name: 'x', content: 'y.example.net' } }],
    });
    expect(conflict.status).toBe(409);
    expect((await readJson<MessageErrorBody>(conflict)).code).toBe('RECORD_CONFLICT');

    expect(await list(c.key, records)).toEqual(before);
    expect(await a(`keep.${domain}`)).toEqual(['192.0.2.5']);
    expect(await a(`new.${domain}`)).toBe('ENOTFOUND');
    expect(await a(`x.${domain}`)).toBe('ENOTFOUND');
    await expect(pdns.resolver().resolveMx(domain)).rejects.toMatchObject({ code: 'ENODATA' });
  });

  it('keeps every record when 10 creates for one name run concurrently', async () => {
    const c = await dnsCustomer(app, 'live', 2);
    const domain = await insertActiveDomain(app, c);
    const records = `/api/v1/orgs/${c.org.id}/domains/${domain}/records`;
    await create(c.key, records, { type: 'TXT', name: 'www', content: 'first' });
    const ips = Array.from({ length: 10 }, (_, i) => `192.0.2.${100 + i}`);
    const responses = await Promise.all(ips.map((ip, i) => send(c.keys[i % 2]!, 'POST', records, { type: 'A', name: 'www', content: ip })));
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 201));
    expect((await list(c.key, records, '&type=A&name=www')).map((r) => r.content).sort()).toEqual([...ips].sort());
    expect(await a(`www.${domain}`)).toEqual([...ips].sort());
    expect(await pdns.resolver().resolveTxt(`www.${domain}`)).toEqual([['first']]);
  });

  it('refuses edits on a domain that is not active, and hides other orgs’ and test-mode domains', async () => {
    const c = await dnsCustomer(app, 'live');
    const registering = await insertActiveDomain(app, c, { status: 'registering' });
    const res = await send(c.key, 'POST', `/api/v1/orgs/${c.org.id}/domains/${registering}/records`, { type: 'A', name: 'www', content: '192.0.2.1' });
    expect(res.status).toBe(409);
    expect((await readJson<MessageErrorBody>(res)).code).toBe('DOMAIN_STATE_CONFLICT');
    expect((await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${registering}/records`, { headers: bearer(c.key) })).status).toBe(200);

    const testDomain = await insertActiveDomain(app, { org: c.org, livemode: false });
    const other = await liveDomain();
    for (const domain of [testDomain, other.domain, 'nope.com']) {
      const path = `/api/v1/orgs/${c.org.id}/domains/${encodeURIComponent(domain)}/records`;
      expect((await send(c.key, 'POST', path, { type: 'A', name: 'www', content: '192.0.2.1' })).status).toBe(404);
      expect((await app.fetch(path, { headers: bearer(c.key) })).status).toBe(404);
    }
    // A name that is not a domain name fails the path schema: 422 on path.domain, before any look-up
    // (docs/api-guide.md, Conventions), and reveals nothing either.
    const malformed = `/api/v1/orgs/${c.org.id}/domains/${encodeURIComponent('not a domain')}/records`;
    expect((await send(c.key, 'POST', malformed, { type: 'A', name: 'www', content: '192.0.2.1' })).status).toBe(422);
    expect((await app.fetch(malformed, { headers: bearer(c.key) })).status).toBe(422);
    // Another org's record id under one's own domain is 404 as well.
    const theirs = await create(other.c.key, other.records, { type: 'A', name: 'www', content: '192.0.2.1' });
    const mine = await insertActiveDomain(app, c);
    expect((await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${mine}/records/${theirs.id}`, { headers: bearer(c.key) })).status).toBe(404);
    expect((await send(c.key, 'DELETE', `/api/v1/orgs/${c.org.id}/domains/${mine}/records/${theirs.id}`)).status).toBe(404);
  });
});

describe('live mode without a DNS provider configured', () => {
  it('answers 503 DNS_PROVIDER_UNAVAILABLE and stores nothing', async () => {
    const bare = await startTestApp();
    try {
      const c = await dnsCustomer(bare, 'live');
      const domain = await insertActiveDomain(bare, c);
      const records = `/api/v1/orgs/${c.org.id}/domains/${domain}/records`;
      const res = await bare.fetch(records, { method: 'POST', headers: jsonHeaders(c.key), body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.1' }) });
      expect(res.status).toBe(503);
      expect(await readJson<MessageErrorBody>(res)).toMatchObject({ code: 'DNS_PROVIDER_UNAVAILABLE', detail: expect.stringContaining('DNS_PROVIDER_URL') });
      expect((await readJson<{ data: unknown[] }>(await bare.fetch(records, { headers: bearer(c.key) }))).data).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
