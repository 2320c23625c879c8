import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';
import { FakeDnsimple, registrarEnv } from '../support/fakeDnsimple.js';
import { liveCustomers, type LiveCustomer, type LiveCustomers } from '../support/liveCustomers.js';
import type { ContactFields } from '../../src/features/contacts/contacts.repository.js';
import { startPowerDns, type PowerDns } from '../support/powerdns.js';

let dnsimple: FakeDnsimple;
let powerdns: PowerDns;
let app: TestApp;
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
  powerdns = await startPowerDns();
  app = await startTestApp({
    worker: true,
    env: {
      ...registrarEnv(dnsimple),
      DNS_PROVIDER_URL: powerdns.apiUrl,
      DNS_PROVIDER_TOKEN: powerdns.apiKey,
    },
  });
  live = liveCustomers(app);
});
afterAll(async () => {
  await app?.close();
  await dnsimple?.close();
  await powerdns?.close();
});

let live: LiveCustomers;
const liveCustomer = (balance: number, contact: Partial<ContactFields> = {}) => live.customer(balance, contact);
const balanceOf = (c: LiveCustomer) => live.balanceOf(c);
const post = (c: LiveCustomer, path: string, key: string, body: unknown) => live.post(c, path, key, body);
const finish = (token: string, location: string) => live.finish(token, location);

describe('live mode against a DNSimple-shaped registrar', () => {
  it('registers through DNSimple: contact created, registration posted, domain active, captured', async () => {
    const c = await liveCustomer(5_000);
    const name = `live-${Date.now()}.com`;
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.token), 'idempotency-key': `live-${name}` },
      body: JSON.stringify({ name, years: 1, registrant_contact_id: c.contactId }),
    });
    expect(res.status).toBe(202);
    expect((await finish(c.token, res.headers.get('location')!)).status).toBe('succeeded');
    // The workflow's last step creates the zone at the DNS provider.
    const zoneStatus = async () =>
      (await fetch(`${powerdns.apiUrl}/api/v1/servers/localhost/zones/${name}.`, { headers: { 'X-API-Key': powerdns.apiKey } })).status;
    await expect.poll(zoneStatus, { timeout: 10_000 }).toBe(200);
    const contactPosts = dnsimple.requestsTo('POST', '/contacts');
    expect(contactPosts.at(-1)!.body).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', country: 'US' });
    const registrations = dnsimple.requestsTo('POST', `/registrar/domains/${name}/registrations`);
    expect(registrations).toHaveLength(1);
    expect(registrations[0]!.headers.authorization).toBe(`Bearer ${dnsimple.token}`);
    // The registrar never renews on its own: auto-renew is off upstream, and was turned off explicitly.
    expect(registrations[0]!.body).toMatchObject({ auto_renew: false });
    expect(dnsimple.requestsTo('DELETE', `/registrar/domains/${name}/auto_renewal`).length).toBeGreaterThanOrEqual(1);
    expect(dnsimple.domain(name).autoRenew).toBe(false);
    const balance = await readJson<{ available: number; reserved: number; livemode: boolean }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/billing/balance`, { headers: bearer(c.token) }),
    );
    expect(balance).toMatchObject({ available: 5_000 - 1299, reserved: 0, livemode: true });

    const renew = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}/renew`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.token), 'idempotency-key': `renew-${name}` },
      body: '{"years":1}',
    });
    expect(renew.status).toBe(200);
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/renewals`)).toHaveLength(1);
    expect(dnsimple.charges(name)).toEqual({ registrations: 1, renewals: 1, transfers: 0 });
  });

  it('retries 503s from DNSimple and still registers once', async () => {
    const c = await liveCustomer(5_000);
    const name = `retry-${Date.now()}.com`;
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/registrations$`), times: 2 }, { status: 503, headers: { 'retry-after': '1' } });
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.token), 'idempotency-key': `retry-${name}` },
      body: JSON.stringify({ name, years: 1, registrant_contact_id: c.contactId }),
    });
    expect((await finish(c.token, res.headers.get('location')!)).status).toBe('succeeded');
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/registrations`)).toHaveLength(3);
  });

  it('transfers in through DNSimple, polling until transferred', async () => {
    const c = await liveCustomer(5_000);
    const name = `incoming-${Date.now()}.net`;
    dnsimple.setDomain(name, { available: false });
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/transfers`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.token), 'idempotency-key': `transfer-${name}` },
      body: JSON.stringify({ name, auth_code: 'EPP-42', registrant_contact_id: c.contactId }),
    });
    expect(res.status).toBe(202);
    const done = await finish(c.token, res.headers.get('location')!);
    expect(done.status).toBe('succeeded');
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/transfers`)[0]!.body).toMatchObject({ auth_code: 'EPP-42', auto_renew: false });
    expect(dnsimple.requestsTo('DELETE', `/registrar/domains/${name}/auto_renewal`).length).toBeGreaterThanOrEqual(1);
  });

  it('fails with REGISTRAR_REJECTED when DNSimple refuses, and releases the funds', async () => {
    const c = await liveCustomer(5_000);
    const name = `refused-${Date.now()}.com`;
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/registrations$`) }, { status: 400, body: { message: 'The domain cannot be registered' } });
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.token), 'idempotency-key': `refused-${name}` },
      body: JSON.stringify({ name, years: 1, registrant_contact_id: c.contactId }),
    });
    const done = await finish(c.token, res.headers.get('location')!);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'REGISTRAR_REJECTED' } });
    expect(done.error!.detail).toContain('cannot be registered');
    const balance = await readJson<{ available: number; reserved: number }>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/balance`, { headers: bearer(c.token) }));
    expect(balance).toMatchObject({ available: 5_000, reserved: 0 });
    const bad = await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, { method: 'POST', headers: jsonHeaders(c.token), body: '{}' });
    expect((await readJson<MessageErrorBody>(bad)).code).toBe('VALIDATION_ERROR');
  });

  it('a registration whose answer never came is found done upstream, not sent again, and charged once', async () => {
    const c = await liveCustomer(5_000);
    const name = `lost-${Date.now()}.com`;
    // registerDomain/success.http took 11.9 s: here the answer comes after the client gave up.
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/registrations$`) }, { delayMs: 1_500 });
    const res = await post(c, `/api/v1/orgs/${c.org.id}/domains`, `lost-${name}`, { name, years: 1, registrant_contact_id: c.contactId });
    expect((await finish(c.token, res.headers.get('location')!)).status).toBe('succeeded');
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/registrations`)).toHaveLength(1);
    expect(dnsimple.charges(name).registrations).toBe(1);
    expect(await balanceOf(c)).toMatchObject({ available: 5_000 - 1299, reserved: 0 });
  });

  it('a renewal whose connection dropped after DNSimple renewed is not renewed twice', async () => {
    const c = await liveCustomer(10_000);
    const name = `dropped-${Date.now()}.com`;
    const reg = await post(c, `/api/v1/orgs/${c.org.id}/domains`, `reg-${name}`, { name, years: 1, registrant_contact_id: c.contactId });
    expect((await finish(c.token, reg.headers.get('location')!)).status).toBe('succeeded');
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/renewals$`) }, { drop: true });
    const renew = await post(c, `/api/v1/orgs/${c.org.id}/domains/${name}/renew`, `renew-${name}`, { years: 1 });
    expect([200, 202]).toContain(renew.status);
    const op = await readJson<{ operation_id?: string; id?: string }>(renew);
    const done = await finish(c.token, `/api/v1/orgs/${c.org.id}/operations/${op.operation_id ?? op.id}`);
    expect(done.status).toBe('succeeded');
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/renewals`)).toHaveLength(1);
    expect(dnsimple.charges(name)).toMatchObject({ registrations: 1, renewals: 1 });
  });

  it('a cancel that loses the race with completion ends transferred and captured', async () => {
    const c = await liveCustomer(5_000);
    const name = `race-${Date.now()}.net`;
    dnsimple.setDomain(name, { available: false });
    // cancelDomainTransfer/success.http: 202, still transferring; here the transfer completes first.
    dnsimple.transferMs = 1_000;
    dnsimple.processingMs = 5_000;
    try {
      const res = await post(c, `/api/v1/orgs/${c.org.id}/domains/transfers`, `race-${name}`, { name, auth_code: 'EPP-1', registrant_contact_id: c.contactId });
      const location = res.headers.get('location')!;
      await expect.poll(async () => (await app.fetch(`${location}/cancel`, { method: 'POST', headers: jsonHeaders(c.token) })).status, { timeout: 5_000 }).toBe(202);
      const done = await finish(c.token, location);
      expect(done).toMatchObject({ status: 'succeeded', result: { cancel_refused: true } });
      expect(dnsimple.requests.filter((r) => r.method === 'DELETE' && r.path.includes(`/${name}/transfers/`))).toHaveLength(1);
      expect(dnsimple.charges(name).transfers).toBe(1);
      expect(await balanceOf(c)).toMatchObject({ reserved: 0 });
      expect((await balanceOf(c)).available).toBeLessThan(5_000);
    } finally {
      dnsimple.transferMs = 60;
      dnsimple.processingMs = 20;
    }
  });

  it('a cancelled transfer releases the funds only once DNSimple says cancelled', async () => {
    const c = await liveCustomer(5_000);
    const name = `stop-${Date.now()}.net`;
    dnsimple.setDomain(name, { available: false });
    dnsimple.transferMs = 60_000;
    try {
      const res = await post(c, `/api/v1/orgs/${c.org.id}/domains/transfers`, `stop-${name}`, { name, auth_code: 'EPP-2', registrant_contact_id: c.contactId });
      const location = res.headers.get('location')!;
      await expect.poll(async () => (await app.fetch(`${location}/cancel`, { method: 'POST', headers: jsonHeaders(c.token) })).status, { timeout: 5_000 }).toBe(202);
      expect(await finish(c.token, location)).toMatchObject({ status: 'cancelled', error: { code: 'TRANSFER_CANCELLED' } });
      expect(dnsimple.charges(name).transfers).toBe(0);
      expect(await balanceOf(c)).toMatchObject({ available: 5_000, reserved: 0 });
    } finally {
      dnsimple.transferMs = 60;
    }
  });

  it('402 from DNSimple fails the registration as UPSTREAM_UNAVAILABLE without the upstream text, and releases the funds', async () => {
    const c = await liveCustomer(5_000);
    const name = `unpaid-${Date.now()}.com`;
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/registrations$`) }, { status: 402, body: { message: 'You have purchase invoices that need to be paid for: 12345-1010.' } });
    const res = await post(c, `/api/v1/orgs/${c.org.id}/domains`, `unpaid-${name}`, { name, years: 1, registrant_contact_id: c.contactId });
    const done = await finish(c.token, res.headers.get('location')!);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_UNAVAILABLE' } });
    expect(done.error!.detail).not.toMatch(/invoice|12345/);
    expect(await balanceOf(c)).toMatchObject({ available: 5_000, reserved: 0 });
  });

  it('refuses a live registration or transfer whose registrant has no state, naming the field, before reserving', async () => {
    const c = await liveCustomer(5_000, { state: null, country: 'GB', city: 'London', postalCode: 'SW1A 1AA' });
    const name = `nostate-${Date.now()}.com`;
    for (const [path, body] of [
      [`/api/v1/orgs/${c.org.id}/domains`, { name, years: 1, registrant_contact_id: c.contactId }],
      [`/api/v1/orgs/${c.org.id}/domains/transfers`, { name, auth_code: 'x', registrant_contact_id: c.contactId }],
    ] as const) {
      const res = await post(c, path, `nostate-${path}-${name}`, body);
      expect(res.status).toBe(422);
      const problem = await readJson<{ detail: { loc: string[]; msg: string }[] }>(res);
      expect(problem.detail[0]).toMatchObject({ loc: ['body', 'registrant_contact_id'], msg: expect.stringContaining('state') });
    }
    expect(await balanceOf(c)).toMatchObject({ available: 5_000, reserved: 0 });
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/registrations`)).toHaveLength(0);
  });

  it('renews premium names at the registrar\'s price with premium_price, and refuses 10 years live before money moves', async () => {
    const c = await liveCustomer(100_000);
    const name = `gem-${Date.now()}.com`;
    const reg = await post(c, `/api/v1/orgs/${c.org.id}/domains`, `reg-${name}`, { name, years: 1, registrant_contact_id: c.contactId });
    expect((await finish(c.token, reg.headers.get('location')!)).status).toBe('succeeded');
    const before = (await balanceOf(c)).available;

    const tooLong = await post(c, `/api/v1/orgs/${c.org.id}/domains/${name}/renew`, `ten-${name}`, { years: 10 });
    expect(tooLong.status).toBe(422);
    expect((await readJson<{ detail: { loc: string[] }[] }>(tooLong)).detail[0]!.loc).toEqual(['body', 'years']);

    // getDomainPrices/success.http: premium names quote their own renewal price.
    dnsimple.setDomain(name, { premium: true, renewalPrice: 300 });
    const renew = await post(c, `/api/v1/orgs/${c.org.id}/domains/${name}/renew`, `gem-renew-${name}`, { years: 1 });
    expect(renew.status).toBe(200);
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/renewals`).at(-1)!.body).toMatchObject({ period: 1, premium_price: '300.00' });
    expect((await balanceOf(c)).available).toBe(before - 30_000);
  });

  it('answers 503 UPSTREAM_UNAVAILABLE without DNSimple\'s text when our token lacks a scope (403) or credentials (401)', async () => {
    const c = await liveCustomer(1_000);
    try {
      for (const problem of [401, 403] as const) {
        dnsimple.accountProblem = problem;
        const res = await app.fetch(`/api/v1/domains/availability?name=scope-${Date.now()}.com`, { headers: bearer(c.token) });
        expect(res.status).toBe(503);
        const text = await res.text();
        expect(JSON.parse(text)).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
        expect(text).not.toMatch(/Scope|Authentication failed/);
      }
    } finally {
      dnsimple.accountProblem = null;
    }
  });
});

