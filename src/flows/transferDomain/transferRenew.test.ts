import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, jsonHeaders } from '../../../test/support/actors.js';
import { customerFactory, type OperationBody } from '../../../test/support/customers.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { operationWorkflowId, recordHistory } from '../../../test/support/histories.js';

let app: TestApp;
let f: ReturnType<typeof customerFactory>;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
  f = customerFactory(app);
});
afterAll(async () => app?.close());

type Customer = Awaited<ReturnType<ReturnType<typeof customerFactory>['customer']>>;

const transfer = (c: Customer, name: string, key: string) =>
  app.fetch(`/api/v1/orgs/${c.org.id}/domains/transfers`, {
    method: 'POST',
    headers: { ...jsonHeaders(c.key), 'idempotency-key': key },
    body: JSON.stringify({ name, auth_code: 'EPP-secret-123', registrant_contact_id: c.contactId }),
  });

describe('transfers (test mode)', () => {
  it('completes within seconds: domain active, transfer price captured', async () => {
    const c = await f.customer(3_000);
    const name = `moving-${Date.now()}.net`;
    const res = await transfer(c, name, `t-${name}`);
    expect(res.status).toBe(202);
    expect(await readJson<OperationBody>(res)).toMatchObject({ type: 'domain.transfer', status: 'pending' });
    const done = await f.pollUntilFinished(c, res.headers.get('location')!);
    expect(done.status).toBe('succeeded');
    await recordHistory(app, await operationWorkflowId(app, done.id), 'transfer-completed-local-bookkeeping');
    expect(await f.balance(c)).toMatchObject({ available: 3_000 - 1499, reserved: 0 });
    const domain = await readJson<{ status: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.key) }));
    expect(domain.status).toBe('active');
  });

  it('ends failed with DOMAIN_LOCKED for a locked name and releases the funds', async () => {
    const c = await f.customer(3_000);
    const res = await transfer(c, `vault-${Date.now()}-locked.com`, 'locked');
    const done = await f.pollUntilFinished(c, res.headers.get('location')!);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'DOMAIN_LOCKED' } });
    await recordHistory(app, await operationWorkflowId(app, done.id), 'transfer-locked');
    expect(await f.balance(c)).toMatchObject({ available: 3_000, reserved: 0 });
  });

  it('cancels a pending transfer on request; finished operations cannot be cancelled', async () => {
    const c = await f.customer(3_000);
    // `-flaky` keeps the transfer pending for a few seconds (two 503s, retried), long enough to cancel.
    const res = await transfer(c, `slow-${Date.now()}-flaky.org`, 'cancel-me');
    const op = await readJson<OperationBody>(res);
    const cancel = await app.fetch(`/api/v1/orgs/${c.org.id}/operations/${op.id}/cancel`, { method: 'POST', headers: bearer(c.key) });
    expect(cancel.status).toBe(202);
    const done = await f.pollUntilFinished(c, res.headers.get('location')!);
    expect(done).toMatchObject({ status: 'cancelled', error: { code: 'TRANSFER_CANCELLED' } });
    await recordHistory(app, await operationWorkflowId(app, done.id), 'transfer-cancelled');
    expect(await f.balance(c)).toMatchObject({ available: 3_000, reserved: 0 });
    const again = await app.fetch(`/api/v1/orgs/${c.org.id}/operations/${op.id}/cancel`, { method: 'POST', headers: bearer(c.key) });
    expect(again.status).toBe(409);
    expect((await readJson<MessageErrorBody>(again)).code).toBe('OPERATION_NOT_CANCELLABLE');
  });
});

describe('renewals (test mode)', () => {
  it('answers 200 with the new expiry when done within 10 seconds, charging once per Idempotency-Key', async () => {
    const c = await f.customer(5_000);
    const name = `keep-${Date.now()}.com`;
    const reg = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `r-${name}`);
    await f.pollUntilFinished(c, reg.headers.get('location')!);
    const before = await readJson<{ expires_at: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.key) }));

    const renew = () =>
      app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}/renew`, {
        method: 'POST',
        headers: { ...jsonHeaders(c.key), 'idempotency-key': `renew-${name}` },
        body: JSON.stringify({ years: 2 }),
      });
    const res = await renew();
    expect(res.status).toBe(200);
    const renewed = await readJson<{ domain: string; expires_at: string; years: number; charged: { amount: number }; operation_id: string }>(res);
    expect(renewed).toMatchObject({ domain: name, years: 2, charged: { amount: 2 * 1299, currency: 'USD' } });
    expect(new Date(renewed.expires_at).getUTCFullYear()).toBe(new Date(before.expires_at).getUTCFullYear() + 2);
    expect((await renew()).headers.get('idempotent-replayed')).toBe('true');
    await recordHistory(app, await operationWorkflowId(app, renewed.operation_id), 'renew-succeeded-local-bookkeeping');
    expect(await f.balance(c)).toMatchObject({ available: 5_000 - 1299 - 2 * 1299, reserved: 0 });
  });

  it('refuses domains that are not active (409) or not there (404)', async () => {
    const c = await f.customer(5_000);
    // `-flaky` keeps the registration running for a few seconds.
    const name = `busy-${Date.now()}-flaky.com`;
    const reg = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `r-${name}`);
    const registering = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}/renew`, { method: 'POST', headers: bearer(c.key) });
    expect(registering.status).toBe(409);
    expect((await readJson<MessageErrorBody>(registering)).code).toBe('DOMAIN_STATE_CONFLICT');
    await f.pollUntilFinished(c, reg.headers.get('location')!);
    const missing = await app.fetch(`/api/v1/orgs/${c.org.id}/domains/nothing-here.com/renew`, { method: 'POST', headers: bearer(c.key) });
    expect(missing.status).toBe(404);
  });
});
