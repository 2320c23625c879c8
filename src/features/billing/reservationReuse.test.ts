import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { bearer, createKey, joinOrg, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { customerFactory, SCOPES, type OperationBody } from '../../../test/support/customers.js';
import { readJson, type MessageErrorBody } from '../../../test/support/http.js';
import { release } from './ledger.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
});
afterAll(async () => app?.close());

const PRICE = 1299; // a .com for one year in the synthetic price table

/** An org (from customerFactory) plus a second member with a test key of their own. */
async function orgWithTwoMembers(balance: number) {
  const f = customerFactory(app);
  const a = await f.customer(balance);
  const emailB = uniqueEmail('member-b');
  const sessionB = await sessionToken(app, emailB);
  await joinOrg(app, a.session, a.org.id, emailB, 'member');
  const keyB = (await createKey(app, sessionB, { name: 'b tooling', scopes: SCOPES, mode: 'test' })).key;
  return { f, a, b: { ...a, key: keyB } };
}

async function ledgerOf(c: { org: { id: string }; key: string }) {
  const res = await app.fetch(`/api/v1/orgs/${c.org.id}/billing/transactions?limit=100`, { headers: bearer(c.key) });
  return (await readJson<{ data: { type: string; amount: number; operation_id: string | null }[] }>(res)).data;
}

const operationAt = async (c: { key: string }, location: string) => readJson<OperationBody>(await app.fetch(location, { headers: bearer(c.key) }));

describe('an Idempotency-Key reused by another member or another request', () => {
  it("a member's key after another member's refused request gets its own operation, reserved and charged once", { timeout: 90_000 }, async () => {
    const { f, a, b } = await orgWithTwoMembers(5_000);
    // A max_price below the price refuses A's request once it gets to writing rows.
    const held = `held-${Date.now()}.com`;
    const key = `shared-key-${Date.now()}`;
    const refused = await f.register(a, { name: held, years: 1, registrant_contact_id: a.contactId, max_price: PRICE - 1 }, key);
    expect(refused.status).toBe(409);
    expect((await readJson<MessageErrorBody>(refused)).code).toBe('PRICE_EXCEEDS_MAX');
    expect(await ledgerOf(a)).toEqual([expect.objectContaining({ type: 'top_up' })]);

    // B, same org, same key, another name at the same price.
    const other = `other-${Date.now()}.com`;
    const res = await f.register(b, { name: other, years: 1, registrant_contact_id: a.contactId }, key);
    expect(res.status).toBe(202);
    expect(await f.balance(a)).toMatchObject({ available: 5_000 - PRICE, reserved: PRICE });
    const done = await f.pollUntilFinished(b, res.headers.get('location')!);
    expect(done).toMatchObject({ status: 'succeeded', domain: other });
    expect(await f.balance(a)).toEqual(expect.objectContaining({ available: 5_000 - PRICE, reserved: 0 }));
    const ledger = await ledgerOf(a);
    expect(ledger.filter((e) => e.type === 'reservation')).toHaveLength(1);
    expect(ledger.filter((e) => e.type === 'capture')).toEqual([expect.objectContaining({ operation_id: done.id, amount: PRICE })]);
  });

  it("a member's key after another member's failed registration is a new operation, not the failed one", { timeout: 90_000 }, async () => {
    const { f, a, b } = await orgWithTwoMembers(5_000);
    const key = `after-failure-${Date.now()}`;
    const failedName = `nope-${Date.now()}-fail.com`;
    const first = await f.register(a, { name: failedName, years: 1, registrant_contact_id: a.contactId }, key);
    expect(first.status).toBe(202);
    const failed = await f.pollUntilFinished(a, first.headers.get('location')!);
    expect(failed.status).toBe('failed');

    const other = `after-${Date.now()}.com`;
    const res = await f.register(b, { name: other, years: 1, registrant_contact_id: a.contactId }, key);
    expect(res.status).toBe(202);
    const op = await f.pollUntilFinished(b, res.headers.get('location')!);
    expect(op).toMatchObject({ status: 'succeeded', domain: other });
    expect(op.id).not.toBe(failed.id);
    expect(await f.balance(a)).toMatchObject({ available: 5_000 - PRICE, reserved: 0 });
  });

  it('the same member and key with another request after the idempotency record expired is 409 IDEMPOTENCY_KEY_REUSED, nothing reserved', { timeout: 90_000 }, async () => {
    const { f, a } = await orgWithTwoMembers(5_000);
    const key = `expired-${Date.now()}`;
    const firstName = `first-${Date.now()}.com`;
    const first = await f.register(a, { name: firstName, years: 1, registrant_contact_id: a.contactId }, key);
    expect(first.status).toBe(202);
    const firstOp = await f.pollUntilFinished(a, first.headers.get('location')!);
    expect(firstOp.status).toBe('succeeded');
    // 24 hours later the idempotency record is gone (the purge deletes it).
    await app.deps.db.query('DELETE FROM idempotency_keys WHERE key = $1', [key]);

    const again = await f.register(a, { name: `second-${Date.now()}.com`, years: 1, registrant_contact_id: a.contactId }, key);
    expect(again.status).toBe(409);
    expect((await readJson<MessageErrorBody>(again)).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await f.balance(a)).toMatchObject({ available: 5_000 - PRICE, reserved: 0 });
    expect((await ledgerOf(a)).filter((e) => e.type === 'reservation')).toHaveLength(1);

    // The very same request again (its record gone too) is answered with its operation, charging nothing more.
    await app.deps.db.query('DELETE FROM idempotency_keys WHERE key = $1', [key]);
    const replay = await f.register(a, { name: firstName, years: 1, registrant_contact_id: a.contactId }, key);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(await f.balance(a)).toMatchObject({ available: 5_000 - PRICE, reserved: 0 });
  });

  it('a capture that finds its reservation released fails the operation at once, with an audit event, never retrying', { timeout: 90_000 }, async () => {
    const f = customerFactory(app);
    const c = await f.customer(3_000);
    // `-flaky`: the registrar answers 503 twice first, which leaves time to release the hold under it.
    const name = `released-${Date.now()}-flaky.com`;
    const res = await f.register(c, { name, years: 1, registrant_contact_id: c.contactId }, `released-${name}`);
    expect(res.status).toBe(202);
    const location = res.headers.get('location')!;
    await expect.poll(async () => (await operationAt(c, location)).status, { timeout: 20_000, interval: 50 }).toBe('running');
    const { id } = await operationAt(c, location);
    await release({ db: app.deps.db, operationId: id });

    await expect.poll(async () => (await operationAt(c, location)).status, { timeout: 30_000, interval: 200 }).toBe('failed');
    expect((await operationAt(c, location)).error).toMatchObject({ code: 'RESERVATION_STATE_CONFLICT' });
    const { rows } = await app.deps.db.query<{ workflowId: string }>('SELECT workflow_id AS "workflowId" FROM operations WHERE id = $1', [id]);
    const handle = app.deps.temporal.client.workflow.getHandle(rows[0]!.workflowId);
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('FAILED');
    const events = await listAuditEventsForTarget(app.deps.db, 'operation', id);
    expect(events).toEqual([expect.objectContaining({ action: 'operation.capture_conflict' })]);
    expect(await f.balance(c)).toMatchObject({ available: 3_000, reserved: 0 });
  });
});
