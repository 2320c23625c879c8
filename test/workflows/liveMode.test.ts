import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson, type MessageErrorBody } from '../support/http.js';
import { FakeDnsimple } from '../support/fakeDnsimple.js';
import type { OperationBody } from '../support/customers.js';
import { startPowerDns, type PowerDns } from '../support/powerdns.js';
import { creditLiveBalance } from '../support/billing.js';

let dnsimple: FakeDnsimple;
let powerdns: PowerDns;
let app: TestApp;
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
  powerdns = await startPowerDns();
  app = await startTestApp({
    worker: true,
    env: {
      REGISTRAR_URL: dnsimple.url,
      REGISTRAR_ACCOUNT: dnsimple.accountId,
      REGISTRAR_TOKEN: dnsimple.token,
      DNS_PROVIDER_URL: powerdns.apiUrl,
      DNS_PROVIDER_TOKEN: powerdns.apiKey,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await dnsimple?.close();
  await powerdns?.close();
});

/** A signed-in owner (sessions act in live mode) with a live balance and a registrant contact. */
async function liveCustomer(balance: number) {
  const email = uniqueEmail('live');
  const token = await sessionToken(app, email);
  const org = await createOrg(app, token);
  await creditLiveBalance(app, org.id, balance);
  const contact = await readJson<{ id: string }>(
    await app.fetch(`/api/v1/orgs/${org.id}/contacts`, {
      method: 'POST',
      headers: jsonHeaders(token),
      body: JSON.stringify({ first_name: 'Grace', last_name: 'Hopper', email, phone: '+12025550123', address1: '1 Navy Way', city: 'Arlington', state: 'VA', postal_code: '22202', country: 'US' }),
    }),
  );
  return { token, org, contactId: contact.id };
}

async function finish(token: string, location: string): Promise<OperationBody> {
  // Live mode polls the registrar on hours-long timers; DNSimple's fake answers at once, so the workflow finishes quickly.
  for (let i = 0; i < 200; i += 1) {
    const op = await readJson<OperationBody>(await app.fetch(location, { headers: bearer(token) }));
    if (op.status !== 'pending' && op.status !== 'running') return op;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('operation did not finish');
}

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
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/transfers`)[0]!.body).toMatchObject({ auth_code: 'EPP-42' });
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
});
