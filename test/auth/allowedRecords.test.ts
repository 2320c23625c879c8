import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, jsonHeaders } from '../support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../support/http.js';
import { DNS_SCOPES, dnsCustomer, insertActiveDomain, type Customer } from '../support/domains.js';

/**
 * A key restricted to `allowed_records` (docs/api-guide.md, Certificates): it changes only matching
 * records, by every route that writes records, reads only the domains its patterns name, and calls
 * nothing else. Test mode: the checks come before any DNS provider would be asked.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

interface RecordBody {
  id: string;
  type: string;
  name: string;
  content: string;
}

const code = async (res: Response) => (await readJson<MessageErrorBody>(res)).code;
const CHALLENGE = 'gfj9Xq8Oc-7xkN3d0s2KqxW3YYmUQ0Ey8MvNOZqbTzM';

async function setUp(): Promise<{ c: Customer; key: string; named: string; other: string; call: (token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response> }> {
  const c = await dnsCustomer(app, 'test');
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const named = await insertActiveDomain(app, c, { name: `certs-${stamp}.com` });
  const other = await insertActiveDomain(app, c, { name: `other-${stamp}.com` });
  const { key } = await createKey(app, c.session, {
    name: 'certificates',
    // Wider scopes than the preset's: the restriction, not the scopes, must refuse the rest.
    scopes: [...DNS_SCOPES, 'keys:write', 'orgs:read'],
    mode: 'test',
    allowed_records: [`_acme-challenge.${named}:TXT`, `_acme-challenge.*.${named}:TXT`],
  });
  const call = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.fetch(`/api/v1/orgs/${c.org.id}${path}`, {
      method,
      headers: { ...jsonHeaders(token), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return { c, key, named, other, call };
}

async function names(call: Awaited<ReturnType<typeof setUp>>['call'], token: string, domain: string): Promise<string[]> {
  const page = await readJson<{ data: RecordBody[] }>(await call(token, 'GET', `/domains/${domain}/records?limit=100`));
  return page.data.map((r) => `${r.name} ${r.type} ${r.content}`).sort();
}

describe('allowed_records', () => {
  it('are validated with a reason per entry, shown canonical in the key list, and needed by the certificates preset', async () => {
    const c = await dnsCustomer(app, 'test');
    const bad = await app.fetch('/api/v1/me/api-keys', {
      method: 'POST',
      headers: jsonHeaders(c.session),
      body: JSON.stringify({ name: 'x', scopes: ['dns:write'], allowed_records: ['_acme-challenge.example.com:TXT', 'example.com', '*.*.example.com:TXT', 'x.example.com:TEXT'] }),
    });
    expect(bad.status).toBe(422);
    expect((await readJson<FieldErrorBody>(bad)).detail.map((e) => `${e.loc.join('.')}: ${e.msg}`)).toEqual([
      'body.allowed_records.1: Must be <name>:<TYPE>, e.g. _acme-challenge.example.com:TXT',
      'body.allowed_records.2: Only one label may be "*"',
      expect.stringMatching(/^body\.allowed_records\.3: "TEXT" is not a record type; one of A, AAAA/),
    ]);
    const bare = await app.fetch('/api/v1/me/api-keys', { method: 'POST', headers: jsonHeaders(c.session), body: JSON.stringify({ name: 'certs', preset: 'certificates' }) });
    expect(bare.status).toBe(422);
    expect((await readJson<FieldErrorBody>(bare)).detail.map((e) => e.loc.join('.'))).toEqual(['body.allowed_records']);

    const created = await createKey(app, c.session, { name: 'certs', preset: 'certificates', mode: 'test', allowed_records: ['_ACME-Challenge.Bücher.DE.:txt'] });
    expect(created).toMatchObject({ scopes: ['dns:read', 'dns:write'], allowed_records: ['_acme-challenge.xn--bcher-kva.de:TXT'] });
    const list = await readJson<{ data: { id: string; allowed_records: string[] }[] }>(await app.fetch('/api/v1/me/api-keys', { headers: bearer(c.session) }));
    expect(list.data.find((k) => k.id === created.id)?.allowed_records).toEqual(['_acme-challenge.xn--bcher-kva.de:TXT']);
    const presets = await readJson<{ data: { id: string; scopes: string[] }[] }>(await app.fetch('/api/v1/me/api-keys/presets', { headers: bearer(c.session) }));
    expect(presets.data).toContainEqual({ id: 'certificates', scopes: ['dns:read', 'dns:write'] });
  });

  it('lets the key change only matching records, by one-record, batch and zone-file writes; the rest 403 and nothing changes', async () => {
    const { c, key, named, call } = await setUp();
    const records = `/domains/${named}/records`;
    const www = await readJson<RecordBody>(await call(c.key, 'POST', records, { type: 'A', name: 'www', content: '192.0.2.1' }));
    const spf = await readJson<RecordBody>(await call(c.key, 'POST', records, { type: 'TXT', name: '@', content: 'v=spf1 -all' }));

    const apex = await call(key, 'POST', records, { type: 'TXT', name: '_acme-challenge', content: CHALLENGE });
    expect(apex.status).toBe(201);
    const challenge = await readJson<RecordBody>(apex);
    expect((await call(key, 'POST', records, { type: 'TXT', name: '_acme-challenge.shop', content: CHALLENGE })).status).toBe(201);
    expect((await call(key, 'PATCH', `${records}/${challenge.id}`, { content: 'another-digest' })).status).toBe(200);
    const before = await names(call, c.key, named);

    const refused = [
      await call(key, 'POST', records, { type: 'A', name: '_acme-challenge', content: '192.0.2.9' }),
      await call(key, 'POST', records, { type: 'TXT', name: 'www', content: CHALLENGE }),
      await call(key, 'PATCH', `${records}/${www.id}`, { content: '192.0.2.2' }),
      await call(key, 'DELETE', `${records}/${spf.id}`),
      // Renaming its own record out of the patterns.
      await call(key, 'PATCH', `${records}/${challenge.id}`, { name: 'www' }),
      await call(key, 'POST', `${records}/batch`, {
        operations: [
          { op: 'create', record: { type: 'TXT', name: '_acme-challenge', content: 'third' } },
          { op: 'delete', id: www.id },
        ],
      }),
      await call(key, 'POST', `/domains/${named}/zone`, `_acme-challenge 60 IN TXT "fourth"\nmail 300 IN A 192.0.2.25\n`, { 'content-type': 'text/dns' }),
      // Replacing would delete the records the file does not hold.
      await call(key, 'POST', `/domains/${named}/zone?mode=replace`, `_acme-challenge 60 IN TXT "fourth"\n`, { 'content-type': 'text/dns' }),
    ];
    expect(await Promise.all(refused.map(code))).toEqual(Array(refused.length).fill('RECORD_NOT_ALLOWED'));
    expect(await names(call, c.key, named)).toEqual(before);

    const imported = await call(key, 'POST', `/domains/${named}/zone`, `_acme-challenge 60 IN TXT "fourth"\n`, { 'content-type': 'text/dns' });
    expect(imported.status).toBe(200);
    expect((await call(key, 'DELETE', `${records}/${challenge.id}`)).status).toBe(204);
    expect(await names(call, c.key, named)).toEqual(
      [`@ TXT v=spf1 -all`, `_acme-challenge TXT fourth`, `_acme-challenge.shop TXT ${CHALLENGE}`, 'www A 192.0.2.1'].sort(),
    );
  });

  it('reads only the domains its patterns name, and calls nothing but the record routes', async () => {
    const { c, key, named, other, call } = await setUp();
    expect((await call(key, 'GET', `/domains/${named}/records`)).status).toBe(200);
    expect((await call(key, 'GET', `/domains/${named}/zone`)).status).toBe(200);
    const refused = [
      await call(key, 'GET', `/domains/${other}/records`),
      await call(key, 'GET', `/domains/${other}/zone`),
      await call(key, 'POST', `/domains/${other}/records`, { type: 'TXT', name: '_acme-challenge', content: CHALLENGE }),
      await call(key, 'GET', '/domains'),
      await call(key, 'GET', `/domains/${named}`),
      await call(key, 'GET', `/domains/${named}/dnssec`),
      await call(key, 'GET', '/billing/balance'),
      await call(key, 'GET', ''),
      await app.fetch('/api/v1/me/api-keys', { method: 'POST', headers: jsonHeaders(key), body: JSON.stringify({ name: 'child', scopes: ['dns:read'] }) }),
    ];
    expect(await Promise.all(refused.map(code))).toEqual(Array(refused.length).fill('RECORD_NOT_ALLOWED'));
    // It may still say who it is.
    expect((await app.fetch('/api/v1/me', { headers: bearer(key) })).status).toBe(200);
    // The owner's session lifts the restriction, and the key can do what its scopes allow again.
    const keys = await readJson<{ data: { id: string; name: string }[] }>(await app.fetch('/api/v1/me/api-keys', { headers: bearer(c.session) }));
    const id = keys.data.find((k) => k.name === 'certificates')!.id;
    const lifted = await app.fetch(`/api/v1/me/api-keys/${id}`, { method: 'PATCH', headers: jsonHeaders(c.session), body: '{"allowed_records":[]}' });
    expect(await readJson<{ allowed_records: string[] }>(lifted)).toMatchObject({ allowed_records: [] });
    await expect.poll(async () => (await call(key, 'GET', `/domains/${other}/records`)).status, { timeout: 5_000 }).toBe(200);
  });
});
