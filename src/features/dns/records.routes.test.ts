import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { dnsCustomer, registerTestDomain, type Customer } from '../../../test/support/domains.js';
import { bearer, createKey, jsonHeaders } from '../../../test/support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';

/**
 * Test mode: the domain is registered through the real workflow (synthetic registrar), and the app's
 * DNS provider URL points at a server that counts requests and fails them all: test keys must never
 * reach it.
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

let providerRequests = 0;
const provider = http.createServer((_req, res) => {
  providerRequests += 1;
  res.writeHead(500).end('{"error": "test mode must not call the DNS provider"}');
});
let app: TestApp;
let c: Customer;
let records: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  app = await startTestApp({ worker: true, env: { DNS_PROVIDER_URL: providerUrl, DNS_PROVIDER_TOKEN: 'unused' } });
  c = await dnsCustomer(app, 'test');
  records = `/api/v1/orgs/${c.org.id}/domains/${await registerTestDomain(app, c)}/records`;
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => provider.close(resolve));
});

const post = (body: unknown, key = c.key) => app.fetch(records, { method: 'POST', headers: jsonHeaders(key), body: JSON.stringify(body) });

describe('DNS records in test mode', () => {
  it('creates, reads, updates and deletes without contacting the DNS provider', async () => {
    const res = await post({ type: 'A', name: 'WWW', content: '192.0.2.1' });
    expect(res.status).toBe(201);
    const rec = await readJson<RecordBody>(res);
    expect(rec).toMatchObject({ type: 'A', name: 'www', content: '192.0.2.1', ttl: 3600, priority: null, version: 1 });
    expect(res.headers.get('etag')).toBe('"1"');
    expect(res.headers.get('location')).toBe(`${records}/${rec.id}`);

    const got = await app.fetch(`${records}/${rec.id}`, { headers: bearer(c.key) });
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe('"1"');
    expect(await readJson<RecordBody>(got)).toEqual(rec);

    const patched = await app.fetch(`${records}/${rec.id}`, { method: 'PATCH', headers: { ...jsonHeaders(c.key), 'if-match': '"1"' }, body: JSON.stringify({ ttl: 600 }) });
    expect(patched.status).toBe(200);
    expect(await readJson<RecordBody>(patched)).toMatchObject({ ttl: 600, version: 2 });
    const stale = await app.fetch(`${records}/${rec.id}`, { method: 'PATCH', headers: { ...jsonHeaders(c.key), 'if-match': '"1"' }, body: JSON.stringify({ ttl: 900 }) });
    expect(stale.status).toBe(409);
    expect((await readJson<MessageErrorBody>(stale)).code).toBe('VERSION_MISMATCH');
    const typeChange = await app.fetch(`${records}/${rec.id}`, { method: 'PATCH', headers: jsonHeaders(c.key), body: JSON.stringify({ type: 'AAAA' }) });
    expect(typeChange.status).toBe(422);
    const empty = await app.fetch(`${records}/${rec.id}`, { method: 'PATCH', headers: jsonHeaders(c.key), body: '{}' });
    expect(empty.status).toBe(422);

    const batch = await app.fetch(`${records}/batch`, {
      method: 'POST',
      headers: jsonHeaders(c.key),
      body: JSON.stringify({ operations: [{ op: 'create', record: { type: 'TXT', name: '@', content: 'hello' } }, { op: 'delete', id: rec.id, if_match: '"2"' }] }),
    });
    expect(batch.status).toBe(200);
    expect((await app.fetch(`${records}/${rec.id}`, { headers: bearer(c.key) })).status).toBe(404);
    expect(providerRequests).toBe(0);
  });

  it('lists with type and name filters, newest first, page by page', async () => {
    for (let i = 0; i < 5; i += 1) expect((await post({ type: 'A', name: 'list', content: `192.0.2.${i + 1}` })).status).toBe(201);
    expect((await post({ type: 'TXT', name: 'list', content: 'note' })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?type=A&name=LIST&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await readJson<{ data: RecordBody[]; next_cursor: string | null }>(await app.fetch(`${records}${query}`, { headers: bearer(c.key) }));
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((r) => r.content));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['192.0.2.5', '192.0.2.4', '192.0.2.3', '192.0.2.2', '192.0.2.1']);
    const txt = await readJson<{ data: RecordBody[] }>(await app.fetch(`${records}?type=TXT&name=list`, { headers: bearer(c.key) }));
    expect(txt.data.map((r) => r.content)).toEqual(['note']);
    const badType = await app.fetch(`${records}?type=SPF`, { headers: bearer(c.key) });
    expect(badType.status).toBe(422);
    expect((await readJson<FieldErrorBody>(badType)).detail[0]!.loc).toEqual(['query', 'type']);
  });

  it('needs dns:read to read and dns:write to change', async () => {
    const reader = (await createKey(app, c.session, { name: 'reader', scopes: ['dns:read'], mode: 'test' })).key;
    const none = (await createKey(app, c.session, { name: 'none', scopes: ['domains:read'], mode: 'test' })).key;
    expect((await app.fetch(records, { headers: bearer(reader) })).status).toBe(200);
    const denied = await post({ type: 'A', name: 'x', content: '192.0.2.1' }, reader);
    expect(denied.status).toBe(403);
    expect(await readJson<MessageErrorBody>(denied)).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    expect((await app.fetch(records, { headers: bearer(none) })).status).toBe(403);
    // A live key of the same org does not see the test-mode domain.
    const live = (await createKey(app, c.session, { name: 'live', scopes: ['dns:read'], mode: 'live' })).key;
    expect((await app.fetch(records, { headers: bearer(live) })).status).toBe(404);
  });
});

type Case = [string, Record<string, unknown>, string[]?];

describe('validation per type, over the API', () => {
  const good: Case[] = [
    ['A', { type: 'A', name: 'v-a', content: '198.51.100.7' }],
    ['AAAA', { type: 'AAAA', name: 'v-aaaa', content: '2001:DB8:0:0::7' }],
    ['CNAME', { type: 'CNAME', name: 'v-cname', content: 'target.example.net.' }],
    ['MX', { type: 'MX', name: 'v-mx', content: 'mx1.example.net', priority: 0 }],
    ['MX max priority', { type: 'MX', name: 'v-mx', content: 'mx2.example.net', priority: 65535 }],
    ['TXT long', { type: 'TXT', name: 'v-txt', content: 'k=' + 'x'.repeat(600) }],
    ['NS', { type: 'NS', name: 'v-ns', content: 'ns1.example.org' }],
    ['SRV', { type: 'SRV', name: '_xmpp._tcp', content: '0 5222 xmpp.example.net', priority: 5 }],
    ['CAA issue', { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"' }],
    ['CAA issuewild', { type: 'CAA', name: '@', content: '0 issuewild ";"' }],
    ['CAA iodef', { type: 'CAA', name: '@', content: '0 iodef "mailto:caa@example.com"' }],
    ['wildcard', { type: 'A', name: '*.v-wild', content: '198.51.100.8' }],
    ['TTL bounds', { type: 'A', name: 'v-ttl', content: '198.51.100.9', ttl: 60 }],
    ['ALIAS at the apex', { type: 'ALIAS', name: '', content: 'lb.example.net.' }],
    ['HTTPS', { type: 'HTTPS', name: 'v-https', content: '1 . alpn=h2,h3 port=8443' }],
    ['SVCB alias mode', { type: 'SVCB', name: '_dns.v-svcb', content: '0 dns.example.net' }],
    ['TLSA', { type: 'TLSA', name: '_443._tcp.v-tlsa', content: `3 1 1 ${'a1'.repeat(32)}` }],
    ['SSHFP', { type: 'SSHFP', name: 'v-sshfp', content: `4 2 ${'b2'.repeat(32)}` }],
    ['NAPTR', { type: 'NAPTR', name: 'v-naptr', content: '100 10 "S" "SIP+D2U" "" _sip._udp.example.net' }],
    ['PTR', { type: 'PTR', name: 'v-ptr', content: 'host.example.net' }],
  ];
  it.each(good)('accepts %s', async (_label, body) => {
    const res = await post(body);
    expect(res.status, await res.clone().text()).toBe(201);
  });

  it('stores content normalised', async () => {
    const aaaa = await readJson<RecordBody>(await post({ type: 'AAAA', name: 'norm', content: '2001:DB8::A' }));
    expect(aaaa.content).toBe('2001:db8::a');
    const caa = await readJson<RecordBody>(await post({ type: 'CAA', name: 'norm', content: '0 ISSUE letsencrypt.org' }));
    expect(caa.content).toBe('0 issue "letsencrypt.org"');
    const mx = await readJson<RecordBody>(await post({ type: 'MX', name: 'norm', content: 'MX.Example.NET.', priority: 10 }));
    expect(mx).toMatchObject({ content: 'mx.example.net', priority: 10 });
  });

  const bad: Case[] = [
    ['A with an IPv6 address', { type: 'A', name: 'x', content: '2001:db8::1' }, ['body', 'content']],
    ['A out of range', { type: 'A', name: 'x', content: '10.0.0.300' }, ['body', 'content']],
    ['AAAA with an IPv4 address', { type: 'AAAA', name: 'x', content: '10.0.0.1' }, ['body', 'content']],
    ['CNAME to an address', { type: 'CNAME', name: 'x', content: '10.0.0.1' }, ['body', 'content']],
    ['CNAME at the apex', { type: 'CNAME', name: '@', content: 'target.example.net' }, ['body', 'name']],
    ['MX without priority', { type: 'MX', name: 'x', content: 'mx.example.net' }, ['body', 'priority']],
    ['MX priority too high', { type: 'MX', name: 'x', content: 'mx.example.net', priority: 65536 }, ['body', 'priority']],
    ['MX to an address', { type: 'MX', name: 'x', content: '10.0.0.1', priority: 1 }, ['body', 'content']],
    ['TXT too long', { type: 'TXT', name: 'x', content: 'x'.repeat(2049) }, ['body', 'content']],
    ['TXT with a newline', { type: 'TXT', name: 'x', content: 'a\nb' }, ['body', 'content']],
    ['NS at the apex', { type: 'NS', name: '@', content: 'ns1.example.net' }, ['body', 'name']],
    ['NS to an address', { type: 'NS', name: 'sub', content: '10.0.0.1' }, ['body', 'content']],
    ['SRV without priority', { type: 'SRV', name: '_sip._tcp', content: '1 5060 sip.example.net' }, ['body', 'priority']],
    ['SRV missing the port', { type: 'SRV', name: '_sip._tcp', content: '1 sip.example.net', priority: 1 }, ['body', 'content']],
    ['SRV badly named', { type: 'SRV', name: 'sip', content: '1 5060 sip.example.net', priority: 1 }, ['body', 'name']],
    ['CAA unknown tag', { type: 'CAA', name: '@', content: '0 policy "x"' }, ['body', 'content']],
    ['CAA without flags', { type: 'CAA', name: '@', content: 'issue "letsencrypt.org"' }, ['body', 'content']],
    ['priority on A', { type: 'A', name: 'x', content: '10.0.0.1', priority: 1 }, ['body', 'priority']],
    ['TTL too low', { type: 'A', name: 'x', content: '10.0.0.1', ttl: 59 }, ['body', 'ttl']],
    ['TTL too high', { type: 'A', name: 'x', content: '10.0.0.1', ttl: 86401 }, ['body', 'ttl']],
    ['unknown type', { type: 'SPF', name: 'x', content: 'v=spf1 -all' }, ['body', 'type']],
    ['ALIAS off the apex', { type: 'ALIAS', name: 'www', content: 'lb.example.net' }, ['body', 'name']],
    ['HTTPS with a port out of range', { type: 'HTTPS', name: '@', content: '1 . port=70000' }, ['body', 'content']],
    ['HTTPS with a priority apart', { type: 'HTTPS', name: '@', content: '1 . alpn=h2', priority: 1 }, ['body', 'priority']],
    ['TLSA with a short digest', { type: 'TLSA', name: '_443._tcp', content: '3 1 1 abcd' }, ['body', 'content']],
    ['SSHFP with an unknown algorithm', { type: 'SSHFP', name: 'x', content: `5 2 ${'b2'.repeat(32)}` }, ['body', 'content']],
    ['NAPTR with a regexp and a replacement', { type: 'NAPTR', name: 'x', content: '1 1 "U" "E2U+sip" "!^.*$!sip:a@example.net!" x.example.net' }, ['body', 'content']],
    ['PTR to an address', { type: 'PTR', name: 'x', content: '192.0.2.1' }, ['body', 'content']],
    ['DS at the apex', { type: 'DS', name: '@', content: `1 13 2 ${'c3'.repeat(32)}` }, ['body', 'name']],
    ['absolute name', { type: 'A', name: 'www.example.com.', content: '10.0.0.1' }, ['body', 'name']],
    ['name with a space', { type: 'A', name: 'a b', content: '10.0.0.1' }, ['body', 'name']],
    ['unknown field', { type: 'A', name: 'x', content: '10.0.0.1', weight: 3 }, ['body']],
  ];
  it.each(bad)('refuses %s with a field error', async (_label, body, loc) => {
    const res = await post(body);
    expect(res.status).toBe(422);
    const detail = (await readJson<FieldErrorBody>(res)).detail;
    expect(detail.map((e) => e.loc)).toEqual([loc]);
  });

  it('keeps a DS beside the NS records of its child: created together, and the NS cannot go first', async () => {
    const ds = { type: 'DS', name: 'v-child', content: `2371 13 2 ${'c3'.repeat(32)}` };
    const alone = await post(ds);
    expect(alone.status).toBe(409);
    expect(await readJson<MessageErrorBody>(alone)).toMatchObject({ code: 'RECORD_CONFLICT', detail: expect.stringContaining('needs NS records') });
    const batch = await app.fetch(`${records}/batch`, {
      method: 'POST',
      headers: jsonHeaders(c.key),
      body: JSON.stringify({ operations: [{ op: 'create', record: { type: 'NS', name: 'v-child', content: 'ns1.example.net' } }, { op: 'create', record: ds }] }),
    });
    expect(batch.status).toBe(200);
    const [ns] = (await readJson<{ results: { record: RecordBody }[] }>(batch)).results.map((r) => r.record);
    const deleteNs = await app.fetch(`${records}/${ns!.id}`, { method: 'DELETE', headers: bearer(c.key) });
    expect(deleteNs.status).toBe(409);
    expect((await readJson<MessageErrorBody>(deleteNs)).code).toBe('RECORD_CONFLICT');
  });

  it('validates an update against the record as a whole', async () => {
    const mx = await readJson<RecordBody>(await post({ type: 'MX', name: 'upd', content: 'mx.example.net', priority: 5 }));
    const noPriority = await app.fetch(`${records}/${mx.id}`, { method: 'PATCH', headers: jsonHeaders(c.key), body: JSON.stringify({ priority: null }) });
    expect(noPriority.status).toBe(422);
    expect((await readJson<FieldErrorBody>(noPriority)).detail.map((e) => e.loc)).toEqual([['body', 'priority']]);
    const address = await app.fetch(`${records}/${mx.id}`, { method: 'PATCH', headers: jsonHeaders(c.key), body: JSON.stringify({ content: '10.0.0.1' }) });
    expect((await readJson<FieldErrorBody>(address)).detail.map((e) => e.loc)).toEqual([['body', 'content']]);
    const unchanged = await readJson<RecordBody>(await app.fetch(`${records}/${mx.id}`, { headers: bearer(c.key) }));
    expect(unchanged).toMatchObject({ content: 'mx.example.net', priority: 5, version: 1 });
  });
});

describe('an empty name, and refusals in words', () => {
  it('takes an empty name as the apex on create, update and batch', async () => {
    const created = await post({ type: 'TXT', name: '', content: 'empty is the apex' });
    expect(created.status).toBe(201);
    expect(await readJson<RecordBody>(created)).toMatchObject({ name: '@', content: 'empty is the apex' });

    const www = await readJson<RecordBody>(await post({ type: 'TXT', name: 'to-apex', content: 'moved' }));
    const renamed = await app.fetch(`${records}/${www.id}`, { method: 'PATCH', headers: jsonHeaders(c.key), body: JSON.stringify({ name: '' }) });
    expect(renamed.status).toBe(200);
    expect(await readJson<RecordBody>(renamed)).toMatchObject({ name: '@', content: 'moved' });

    const batch = await app.fetch(`${records}/batch`, {
      method: 'POST',
      headers: jsonHeaders(c.key),
      body: JSON.stringify({ operations: [{ op: 'create', record: { type: 'TXT', name: '  ', content: 'batched' } }] }),
    });
    expect(batch.status).toBe(200);
    expect((await readJson<{ results: { record: RecordBody }[] }>(batch)).results[0]!.record).toMatchObject({ name: '@', content: 'batched' });
    const apex = await readJson<{ data: RecordBody[] }>(await app.fetch(`${records}?type=TXT&name=@`, { headers: bearer(c.key) }));
    expect(apex.data.map((r) => r.content)).toEqual(expect.arrayContaining(['batched', 'empty is the apex', 'moved']));
  });

  const shapes: [string, Record<string, unknown>, string][] = [
    ['empty content', { type: 'A', name: 'x', content: '' }, 'Give the record’s data, e.g. an IPv4 address for an A record.'],
    ['no content', { type: 'A', name: 'x' }, 'Give the record’s data, e.g. an IPv4 address for an A record.'],
    ['a name that is not text', { type: 'A', name: 7, content: '10.0.0.1' }, 'Give the name as text: "www", or "@" (or nothing) for the domain itself'],
    ['a name too long', { type: 'A', name: 'a'.repeat(254), content: '10.0.0.1' }, 'A name may be at most 253 characters'],
    ['a TTL below the range', { type: 'A', name: 'x', content: '10.0.0.1', ttl: 59 }, 'TTL must be a whole number of seconds, 60–86400'],
    ['a TTL as text', { type: 'A', name: 'x', content: '10.0.0.1', ttl: '3600' }, 'TTL must be a whole number of seconds, 60–86400'],
    ['a priority above the range', { type: 'MX', name: 'x', content: 'mx.example.net', priority: 65536 }, 'Priority must be a whole number, 0–65535'],
    ['an unknown type', { type: 'SPF', name: 'x', content: 'v=spf1 -all' }, 'Must be one of A, AAAA, CNAME, MX, TXT, NS, SRV, CAA, ALIAS, HTTPS, SVCB, TLSA, SSHFP, NAPTR, PTR, DS'],
  ];
  it.each(shapes)('refuses %s in words, not in the validator’s', async (_label, body, msg) => {
    const res = await post(body);
    expect(res.status).toBe(422);
    expect((await readJson<FieldErrorBody>(res)).detail.map((e) => e.msg)).toEqual([msg]);
  });
});
