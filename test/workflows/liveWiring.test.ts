/**
 * Live registrations wired all the way to a DNSimple-shaped registrar (test/support/fakeDnsimple.ts):
 * the registrant's registrar contact is created once and reused, contact changes reach the
 * registrar, name servers are delegated, and terms above one year are a registration plus a renewal
 * charged as one operation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedWorkflowBundle, startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, createOrg, jsonHeaders, sessionToken, uniqueEmail } from '../support/actors.js';
import { readJson } from '../support/http.js';
import { FakeDnsimple, registrarEnv } from '../support/fakeDnsimple.js';
import type { OperationBody } from '../support/customers.js';
import { topUp } from '../../src/features/billing/ledger.js';
import { listAuditEventsForTarget } from '../../src/audit/auditEvents.js';
import { findOperation } from '../../src/features/domains/operations.repository.js';
import { Worker } from '@temporalio/worker';
import { WorkflowNotFoundError } from '@temporalio/client';
import { encryptedDataConverter } from '../../src/temporal/payloadCodec.js';
import { recordHistory } from '../support/histories.js';
import { modeOf } from '../../src/db/modeScope.js';

let dnsimple: FakeDnsimple;
let app: TestApp;
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
  app = await startTestApp({
    worker: true,
    env: registrarEnv(dnsimple),
  });
});
afterAll(async () => {
  await app?.close();
  await dnsimple?.close();
});

/** A signed-in owner (sessions act in live mode), a live balance credited as an operator would, and a contact. */
async function liveCustomer(balance: number) {
  const email = uniqueEmail('wired');
  const token = await sessionToken(app, email);
  const org = await createOrg(app, token);
  await topUp({ db: app.deps.db, orgId: org.id, livemode: true, amount: balance, actor: { actorUserId: null, actorKeyId: null }, requestId: null });
  const res = await app.fetch(`/api/v1/orgs/${org.id}/contacts`, {
    method: 'POST',
    headers: jsonHeaders(token),
    body: JSON.stringify({ first_name: 'Grace', last_name: 'Hopper', email, phone: '+12025550123', address1: '1 Navy Way', city: 'Arlington', state: 'VA', postal_code: '22202', country: 'US' }),
  });
  expect(res.status).toBe(201);
  return { token, org, email, contactId: (await readJson<{ id: string }>(res)).id };
}

type Customer = Awaited<ReturnType<typeof liveCustomer>>;

async function register(c: Customer, body: Record<string, unknown>): Promise<OperationBody> {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, {
    method: 'POST',
    headers: { ...jsonHeaders(c.token), 'idempotency-key': `wired-${String(body.name)}` },
    body: JSON.stringify({ registrant_contact_id: c.contactId, ...body }),
  });
  expect(res.status).toBe(202);
  const location = res.headers.get('location')!;
  for (let i = 0; i < 300; i += 1) {
    const op = await readJson<OperationBody>(await app.fetch(location, { headers: bearer(c.token) }));
    if (op.status !== 'pending' && op.status !== 'running') return op;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('operation did not finish');
}

/** The workflow's recorded history replays on the current code (no nondeterminism). */
async function replays(workflowId: string, recordAs?: string): Promise<void> {
  if (recordAs) await recordHistory(app, workflowId, recordAs);
  const history = await app.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) }, history, workflowId)).resolves.toBeUndefined();
}

async function balanceOf(c: Customer) {
  return readJson<{ available: number; reserved: number }>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/balance`, { headers: bearer(c.token) }));
}

async function ledgerOf(c: Customer) {
  return readJson<{ data: { type: string; amount: number; operation_id: string | null }[] }>(
    await app.fetch(`/api/v1/orgs/${c.org.id}/billing/transactions?limit=100`, { headers: bearer(c.token) }),
  );
}

const contactPosts = () => dnsimple.requestsTo('POST', '/contacts').length;
const registrantOf = (name: string) => dnsimple.requestsTo('POST', `/registrar/domains/${name}/registrations`).map((r) => (r.body as { registrant_id: number }).registrant_id);

describe('the registrant at the registrar', () => {
  it('is created once for two registrations with the same contact, even at once, and never leaves the API', async () => {
    const c = await liveCustomer(10_000);
    const before = contactPosts();
    const [a, b, later] = [`first-${Date.now()}.com`, `second-${Date.now()}.com`, `later-${Date.now()}.com`];
    const both = await Promise.all([register(c, { name: a }), register(c, { name: b })]);
    expect(both.map((op) => op.status)).toEqual(['succeeded', 'succeeded']);
    expect((await register(c, { name: later })).status).toBe('succeeded');
    expect(contactPosts() - before).toBe(1);
    expect(registrantOf(a)).toEqual(registrantOf(b));
    expect(registrantOf(later)).toEqual(registrantOf(a));

    const shown = await readJson<Record<string, unknown>>(await app.fetch(`/api/v1/orgs/${c.org.id}/contacts/${c.contactId}`, { headers: bearer(c.token) }));
    expect(Object.keys(shown).sort()).toEqual(
      ['address1', 'address2', 'city', 'country', 'created_at', 'email', 'first_name', 'id', 'last_name', 'organization', 'phone', 'postal_code', 'state', 'updated_at', 'version'],
    );
  });

  it('is reused by a transfer', async () => {
    const c = await liveCustomer(10_000);
    const [registered, incoming] = [`owned-${Date.now()}.com`, `incoming-${Date.now()}.net`];
    expect((await register(c, { name: registered })).status).toBe('succeeded');
    const before = contactPosts();
    dnsimple.setDomain(incoming, { available: false });
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/transfers`, {
      method: 'POST',
      headers: { ...jsonHeaders(c.token), 'idempotency-key': `wired-transfer-${incoming}` },
      body: JSON.stringify({ name: incoming, auth_code: 'EPP-7', registrant_contact_id: c.contactId }),
    });
    expect(res.status).toBe(202);
    await expect.poll(() => dnsimple.requestsTo('POST', `/registrar/domains/${incoming}/transfers`).length, { timeout: 10_000 }).toBe(1);
    const transfer = dnsimple.requestsTo('POST', `/registrar/domains/${incoming}/transfers`)[0]!;
    expect((transfer.body as { registrant_id: number }).registrant_id).toBe(registrantOf(registered)[0]);
    expect(contactPosts()).toBe(before);
  });

  it('is created once across retried attempts of the registration', async () => {
    const c = await liveCustomer(5_000);
    const before = contactPosts();
    const name = `retried-${Date.now()}.com`;
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/registrations$`), times: 2 }, { status: 503, headers: { 'retry-after': '1' } });
    expect((await register(c, { name })).status).toBe('succeeded');
    expect(registrantOf(name)).toHaveLength(3);
    expect(new Set(registrantOf(name)).size).toBe(1);
    expect(contactPosts() - before).toBe(1);
  });

  it('is updated at the registrar when the contact changes; a refusal keeps our change and is reported', async () => {
    const c = await liveCustomer(5_000);
    const name = `patched-${Date.now()}.com`;
    expect((await register(c, { name })).status).toBe('succeeded');
    const upstreamId = registrantOf(name)[0]!;

    const patch = (body: Record<string, unknown>) =>
      app.fetch(`/api/v1/orgs/${c.org.id}/contacts/${c.contactId}`, { method: 'PATCH', headers: jsonHeaders(c.token), body: JSON.stringify(body) });
    expect((await patch({ city: 'Annapolis', postal_code: '21401' })).status).toBe(200);
    await expect.poll(() => dnsimple.contact(upstreamId)?.city, { timeout: 15_000 }).toBe('Annapolis');
    expect(dnsimple.requestsTo('PATCH', `/contacts/${upstreamId}`).at(-1)!.body).toMatchObject({ city: 'Annapolis', postal_code: '21401' });
    await replays(`contact-sync:${c.contactId}:v2`, 'contact-sync-synced');

    dnsimple.fail({ method: 'PATCH', path: new RegExp(`/contacts/${upstreamId}$`) }, { status: 400, body: { message: 'Validation failed', errors: { phone: ['is invalid'] } } });
    const refused = await patch({ city: 'Baltimore' });
    expect(refused.status).toBe(200);
    await expect
      .poll(async () => (await listAuditEventsForTarget(app.deps.db, 'contact', c.contactId)).map((e) => e.action), { timeout: 15_000 })
      .toContain('contact.registrar_sync_failed');
    await replays(`contact-sync:${c.contactId}:v3`, 'contact-sync-refused');
    expect(dnsimple.contact(upstreamId)?.city).toBe('Annapolis');
    const ours = await readJson<{ city: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/contacts/${c.contactId}`, { headers: bearer(c.token) }));
    expect(ours.city).toBe('Baltimore');

    // The next registration using the contact sends the change the registrar refused before.
    const next = `after-refusal-${Date.now()}.com`;
    expect((await register(c, { name: next })).status).toBe('succeeded');
    expect(dnsimple.contact(upstreamId)?.city).toBe('Baltimore');
    expect(registrantOf(next)).toEqual([upstreamId]);
  });

  it('a contact never used for a registration is not sent to the registrar when it changes', async () => {
    const c = await liveCustomer(1_000);
    const before = dnsimple.requests.length;
    const res = await app.fetch(`/api/v1/orgs/${c.org.id}/contacts/${c.contactId}`, { method: 'PATCH', headers: jsonHeaders(c.token), body: '{"city":"Norfolk"}' });
    expect(res.status).toBe(200);
    // The PATCH has been answered, so the workflow that would send this version has been started or
    // never will be; once it has ended (or was never started), what the registrar received is final.
    const { rows } = await app.deps.db.query<{ version: number }>('SELECT version FROM contacts WHERE id = $1', [c.contactId]);
    const sync = app.deps.temporal.client.workflow.getHandle(`contact-sync:${c.contactId}:v${rows[0]!.version}`);
    await sync.result().catch((err: unknown) => {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    });
    expect(dnsimple.requests.slice(before).filter((r) => r.path.includes('/contacts'))).toEqual([]);
  });
});

describe('a live registration', () => {
  it('delegates to the name servers asked for', async () => {
    const c = await liveCustomer(5_000);
    const name = `delegated-${Date.now()}.com`;
    const nameservers = ['ns1.example.net', 'ns2.example.net'];
    expect((await register(c, { name, nameservers })).status).toBe('succeeded');
    expect(dnsimple.requestsTo('PUT', `/registrar/domains/${name}/delegation`).map((r) => r.body)).toEqual([nameservers]);
    expect(dnsimple.domain(name).delegation).toEqual(nameservers);
  });

  it('for three years is a registration and a two-year renewal, reserved and captured once', async () => {
    const c = await liveCustomer(10_000);
    const name = `three-years-${Date.now()}.com`;
    const done = await register(c, { name, years: 3 });
    expect(done.status).toBe('succeeded');
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/registrations`)).toHaveLength(1);
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/renewals`).map((r) => (r.body as { period: number }).period)).toEqual([2]);

    const domain = await readJson<{ expires_at: string; status: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.token) }));
    expect(domain.status).toBe('active');
    expect(domain.expires_at).toBe(dnsimple.domain(name).expiresAt!.replace('Z', '.000Z'));
    const years = (Date.parse(domain.expires_at) - Date.now()) / (365.25 * 86_400_000);
    expect(years).toBeGreaterThan(2.9);
    expect(years).toBeLessThan(3.1);

    const entries = (await ledgerOf(c)).data.filter((e) => e.operation_id === done.id);
    expect(entries.map((e) => e.type).sort()).toEqual(['capture', 'reservation']);
    expect(entries[0]!.amount).toBe(entries[1]!.amount);
    expect(await balanceOf(c)).toMatchObject({ available: 10_000 - entries[0]!.amount, reserved: 0 });
    await replays((await findOperation(app.deps.db, modeOf(true), c.org.id, done.id))!.workflowId, 'register-live-three-years');
  });

  it('for three years whose renewal answer is lost (made, then 502) renews once, read back instead of re-sent', async () => {
    const c = await liveCustomer(10_000);
    const name = `lost-renewal-${Date.now()}.com`;
    // The double renews, then answers as nginx does when the upstream dies (fixtures/v2/api/badgateway.http).
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/renewals$`) }, { afterEffect: 502 });
    const done = await register(c, { name, years: 3 });
    expect(done.status).toBe('succeeded');
    expect(dnsimple.requestsTo('POST', `/registrar/domains/${name}/renewals`)).toHaveLength(1);
    expect(dnsimple.charges(name)).toEqual({ registrations: 1, renewals: 1, transfers: 0 });
    const domain = await readJson<{ expires_at: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.token) }));
    expect(domain.expires_at).toBe(dnsimple.domain(name).expiresAt!.replace('Z', '.000Z'));
    expect(dnsimple.domain(name).autoRenew).toBe(false);
    const entries = (await ledgerOf(c)).data.filter((e) => e.operation_id === done.id);
    expect(entries.map((e) => e.type).sort()).toEqual(['capture', 'reservation']);
  });

  it('whose renewal is refused after the registration keeps the registration, charges one year and releases the rest', async () => {
    const c = await liveCustomer(10_000);
    const name = `renewal-refused-${Date.now()}.com`;
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/renewals$`) }, { status: 400, body: { message: `${name} may not be renewed at this time`, errors: {} } });
    const done = await register(c, { name, years: 3, nameservers: ['ns1.example.org', 'ns2.example.org'] });
    expect(done).toMatchObject({ status: 'failed', error: { code: 'PARTIALLY_REGISTERED' } });
    expect(done.error!.detail).toContain('may not be renewed');

    const domain = await readJson<{ status: string; expires_at: string; id: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.token) }));
    expect(domain.status).toBe('active');
    expect(domain.expires_at).toBe(dnsimple.domain(name).expiresAt!.replace('Z', '.000Z'));
    expect(dnsimple.domain(name).delegation).toEqual(['ns1.example.org', 'ns2.example.org']);

    const entries = (await ledgerOf(c)).data.filter((e) => e.operation_id === done.id);
    const sum = (type: string) => entries.filter((e) => e.type === type).reduce((n, e) => n + e.amount, 0);
    const reserved = sum('reservation');
    expect(sum('capture')).toBe(reserved / 3);
    expect(sum('release')).toBe((reserved * 2) / 3);
    expect(await balanceOf(c)).toMatchObject({ available: 10_000 - reserved / 3, reserved: 0 });
    await replays((await findOperation(app.deps.db, modeOf(true), c.org.id, done.id))!.workflowId, 'register-live-partially-registered');
  });
});
