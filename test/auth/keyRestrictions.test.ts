import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createKey, jsonHeaders } from '../support/actors.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../support/http.js';
import { DNS_SCOPES, dnsCustomer, insertActiveDomain, type Customer } from '../support/domains.js';
import { creditBalance, insertContact } from '../support/factories.js';
import { operationWorkflowId } from '../support/histories.js';

// `proxied` believes X-Forwarded-For from 127.0.0.1 (its test client plays the proxy, as by default
// in test/support/testApp.ts); `direct` believes none.
let proxied: TestApp;
let direct: TestApp;
beforeAll(async () => {
  [proxied, direct] = await Promise.all([startTestApp(), startTestApp({ env: { TRUST_PROXY: '' } })]);
});
afterAll(async () => {
  await proxied?.close();
  await direct?.close();
});

const code = async (res: Response) => (await readJson<MessageErrorBody>(res)).code;

async function keyFor(app: TestApp, c: Customer, body: Record<string, unknown>, token = c.session) {
  return createKey(app, token, { name: 'restricted', scopes: [...DNS_SCOPES, 'keys:read', 'keys:write'], mode: 'test', ...body });
}

describe('allowed_ips', () => {
  it('takes the client from X-Forwarded-For behind a trusted proxy: the first untrusted hop from the right', async () => {
    const c = await dnsCustomer(proxied, 'test');
    const v6 = await keyFor(proxied, c, { allowed_ips: ['2001:db8::/32', '198.51.100.7'] });
    const me = (key: string, forwardedFor?: string) =>
      proxied.fetch('/api/v1/me', { headers: { ...bearer(key), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) } });
    expect((await me(v6.key, '2001:db8:1::5')).status).toBe(200);
    expect((await me(v6.key, '198.51.100.7')).status).toBe(200);
    // A client cannot claim an allowed address by writing it further left than the proxy's own entry.
    const spoofed = await me(v6.key, '198.51.100.7, 203.0.113.9');
    expect(spoofed.status).toBe(403);
    expect(await readJson<MessageErrorBody>(spoofed)).toMatchObject({ code: 'IP_NOT_ALLOWED', detail: expect.stringContaining('203.0.113.9') });
    // Hops that are proxies of ours are skipped.
    expect((await me(v6.key, '2001:db8::9, 127.0.0.1')).status).toBe(200);
    expect(await code(await me(v6.key))).toBe('IP_NOT_ALLOWED');
  });

  it('ignores X-Forwarded-For when no proxy is trusted: the socket address decides', async () => {
    const c = await dnsCustomer(direct, 'test');
    const elsewhere = await keyFor(direct, c, { allowed_ips: ['10.0.0.0/8'] });
    const res = await direct.fetch('/api/v1/me', { headers: { ...bearer(elsewhere.key), 'x-forwarded-for': '10.1.2.3' } });
    expect(res.status).toBe(403);
    expect(await readJson<MessageErrorBody>(res)).toMatchObject({ code: 'IP_NOT_ALLOWED', detail: expect.stringContaining('127.0.0.1') });
    const loopback = await keyFor(direct, c, { allowed_ips: ['127.0.0.0/8'] });
    expect((await direct.fetch('/api/v1/me', { headers: bearer(loopback.key) })).status).toBe(200);
  });

  it('refuses what is not a CIDR, and shows the lists in canonical form', async () => {
    const c = await dnsCustomer(direct, 'test');
    const bad = await direct.fetch('/api/v1/me/api-keys', {
      method: 'POST',
      headers: jsonHeaders(c.session),
      body: JSON.stringify({ name: 'x', scopes: ['dns:read'], allowed_ips: ['10.0.0.0/8', 'not-an-ip', '10.0.0.0/33'], allowed_domains: ['*.'] }),
    });
    expect(bad.status).toBe(422);
    expect((await readJson<FieldErrorBody>(bad)).detail.map((e) => e.loc.join('.'))).toEqual(['body.allowed_ips.1', 'body.allowed_ips.2', 'body.allowed_domains.0']);
    const key = await keyFor(direct, c, { allowed_ips: ['10.1.2.3/8', '2001:DB8:0::1'], allowed_domains: ['Bücher.DE', '*.Example.COM'] });
    const list = await readJson<{ data: { id: string; allowed_ips: string[]; allowed_domains: string[] }[] }>(
      await direct.fetch('/api/v1/me/api-keys', { headers: bearer(c.session) }),
    );
    expect(list.data.find((k) => k.id === key.id)).toMatchObject({
      allowed_ips: ['10.0.0.0/8', '2001:db8::1/128'],
      allowed_domains: ['xn--bcher-kva.de', '*.example.com'],
    });
  });
});

describe('allowed_domains', () => {
  it('refuses every route that acts on a domain outside the list with 403 DOMAIN_NOT_ALLOWED', async () => {
    const c = await dnsCustomer(direct, 'test');
    const stamp = Date.now();
    const mine = await insertActiveDomain(direct, c, { name: `mine-${stamp}.com` });
    const wild = await insertActiveDomain(direct, c, { name: `wild-${stamp}.net` });
    const other = await insertActiveDomain(direct, c, { name: `other-${stamp}.com` });
    const { key } = await keyFor(direct, c, { allowed_domains: [mine, '*.net'] });
    const topUp = await direct.fetch(`/api/v1/orgs/${c.org.id}/billing/top-ups`, { method: 'POST', headers: jsonHeaders(key), body: '{"amount":10000}' });
    expect(topUp.status).toBe(201);
    const contact = `ct_missing`;
    const org = `/api/v1/orgs/${c.org.id}`;
    const call = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
      direct.fetch(`${org}${path}`, { method, headers: { ...jsonHeaders(key), ...extra }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const record = { type: 'TXT', name: '@', content: 'hello' };

    const refused = [
      await call('POST', '/domains', { name: `new-${stamp}.com`, registrant_contact_id: contact }),
      await call('POST', '/domains', { name: `new-${stamp}.com`, registrant_contact_id: contact }, { 'dry-run': 'true' }),
      await call('POST', '/domains/transfers', { name: `in-${stamp}.org`, auth_code: 'x', registrant_contact_id: contact }),
      await call('POST', `/domains/${other}/renew`, {}),
      await call('PATCH', `/domains/${other}`, { auto_renew: true }),
      await call('GET', `/domains/${other}/auth-code`),
      await call('GET', `/domains/${other}/records`),
      await call('POST', `/domains/${other}/records`, record),
      await call('GET', `/domains/${other.toUpperCase()}`),
    ];
    expect(await Promise.all(refused.map(code))).toEqual(Array(refused.length).fill('DOMAIN_NOT_ALLOWED'));

    expect((await call('POST', `/domains/${mine}/renew`, {}, { 'dry-run': 'true' })).status).toBe(200);
    expect((await call('PATCH', `/domains/${mine}`, { auto_renew: true })).status).toBe(200);
    expect((await call('POST', `/domains/${wild}/records`, record)).status).toBe(201);
    expect((await call('GET', `/domains/${wild}/records`)).status).toBe(200);
    // Allowed by the list, refused for its own reason.
    expect(await code(await call('POST', '/domains', { name: `sub.wild-${stamp}.net`, registrant_contact_id: contact }))).not.toBe('DOMAIN_NOT_ALLOWED');
  });

  it("refuses polling or cancelling another domain's operation, and asks its workflow nothing", async () => {
    // `direct` runs no worker: a transfer stays pending, so only this test's requests can touch it.
    const c = await dnsCustomer(direct, 'test');
    await creditBalance(direct.deps, { orgId: c.org.id, livemode: false, amount: 10_000 });
    const contact = await insertContact(direct.deps, { orgId: c.org.id, livemode: false });
    const stamp = Date.now();
    const { key } = await keyFor(direct, c, { allowed_domains: ['*.net'] });
    const transfer = async (token: string, name: string) => {
      const res = await direct.fetch(`/api/v1/orgs/${c.org.id}/domains/transfers`, {
        method: 'POST',
        headers: { ...jsonHeaders(token), 'x-mode': 'test' },
        body: JSON.stringify({ name, auth_code: 'EPP-secret-123', registrant_contact_id: contact }),
      });
      expect(res.status).toBe(202);
      return (await readJson<{ id: string }>(res)).id;
    };
    const operations = `/api/v1/orgs/${c.org.id}/operations`;
    const cancel = (token: string, id: string) => direct.fetch(`${operations}/${id}/cancel`, { method: 'POST', headers: bearer(token) });

    const others = await transfer(c.session, `theirs-${stamp}.com`);
    expect(await code(await cancel(key, others))).toBe('DOMAIN_NOT_ALLOWED');
    expect(await code(await direct.fetch(`${operations}/${others}`, { headers: bearer(key) }))).toBe('DOMAIN_NOT_ALLOWED');
    const history = await direct.deps.temporal.client.workflow.getHandle(await operationWorkflowId(direct, others)).fetchHistory();
    expect(history.events?.filter((e) => e.workflowExecutionSignaledEventAttributes)).toEqual([]);
    const unrestricted = await direct.fetch(`${operations}/${others}`, { headers: { ...bearer(c.session), 'x-mode': 'test' } });
    expect(await readJson<{ status: string }>(unrestricted)).toMatchObject({ status: 'pending' });

    // Its own domains' operations it polls and cancels as before.
    const own = await transfer(key, `ours-${stamp}.net`);
    expect((await direct.fetch(`${operations}/${own}`, { headers: bearer(key) })).status).toBe(200);
    expect((await cancel(key, own)).status).toBe(202);
  });

  it('lets a restricted key create or change keys only as narrow as itself', async () => {
    const c = await dnsCustomer(direct, 'test');
    const parent = await keyFor(direct, c, { allowed_ips: ['127.0.0.0/8'], allowed_domains: ['*.com'] });
    const create = (body: Record<string, unknown>) =>
      direct.fetch('/api/v1/me/api-keys', { method: 'POST', headers: jsonHeaders(parent.key), body: JSON.stringify({ name: 'child', scopes: ['dns:read'], ...body }) });
    expect((await create({})).status).toBe(403);
    expect((await create({ allowed_ips: ['127.0.0.1'], allowed_domains: ['*.org'] })).status).toBe(403);
    expect((await create({ allowed_ips: ['10.0.0.0/8'], allowed_domains: ['a.com'] })).status).toBe(403);
    expect((await create({ allowed_ips: ['127.0.0.1'], allowed_domains: ['a.com', '*.shop.com'] })).status).toBe(201);
    const widen = await direct.fetch(`/api/v1/me/api-keys/${parent.id}`, { method: 'PATCH', headers: jsonHeaders(parent.key), body: '{"allowed_domains":[]}' });
    expect(widen.status).toBe(403);
    // The owner's session lifts it, and every process drops its cached copy of the key.
    const lifted = await direct.fetch(`/api/v1/me/api-keys/${parent.id}`, { method: 'PATCH', headers: jsonHeaders(c.session), body: '{"allowed_ips":["10.0.0.0/8"]}' });
    expect(lifted.status).toBe(200);
    await expect.poll(async () => (await direct.fetch('/api/v1/me', { headers: bearer(parent.key) })).status, { timeout: 5_000 }).toBe(403);
  });
});
