import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { startTestApp, sharedWorkflowBundle, type TestApp } from '../../../test/support/testApp.js';
import { bearer } from '../../../test/support/actors.js';
import { customerFactory, type OperationBody } from '../../../test/support/customers.js';
import { readJson, type FieldErrorBody, type MessageErrorBody } from '../../../test/support/http.js';
import { encryptedDataConverter } from '../../temporal/payloadCodec.js';
import { recordHistory } from '../../../test/support/histories.js';

let app: TestApp;
let customer: ReturnType<typeof customerFactory>['customer'];
let register: ReturnType<typeof customerFactory>['register'];
let balance: ReturnType<typeof customerFactory>['balance'];
let pollUntilFinished: ReturnType<typeof customerFactory>['pollUntilFinished'];
beforeAll(async () => {
  app = await startTestApp({ worker: true });
  ({ customer, register, balance, pollUntilFinished } = customerFactory(app));
});
afterAll(async () => app?.close());

/** The workflow id of a test-mode registration by the customer's user with that Idempotency-Key. */
async function registerWorkflowId(c: { org: { id: string }; session: string }, idempotencyKey: string): Promise<string> {
  const me = await readJson<{ id: string }>(await app.fetch('/api/v1/me', { headers: bearer(c.session) }));
  return `register:${c.org.id}:test:${me.id}:${idempotencyKey}`;
}

describe('registering a domain (test mode)', () => {
  it('reserves the price, answers 202, and the workflow makes the domain active and captures once', async () => {
    const c = await customer(5_000);
    const name = `site-${Date.now()}.com`;
    const res = await register(c, { name, years: 2, registrant_contact_id: c.contactId, auto_renew: true }, `reg-${name}`);
    expect(res.status).toBe(202);
    const accepted = await readJson<OperationBody>(res);
    expect(accepted).toMatchObject({ type: 'domain.register', status: 'pending', domain: name });
    expect(res.headers.get('location')).toBe(`/api/v1/orgs/${c.org.id}/operations/${accepted.id}`);
    expect(await balance(c)).toMatchObject({ available: 5_000 - 2 * 1299, reserved: 2 * 1299 });

    const done = await pollUntilFinished(c, res.headers.get('location')!);
    expect(done.status).toBe('succeeded');
    expect(await balance(c)).toMatchObject({ available: 5_000 - 2 * 1299, reserved: 0 });
    const domain = await readJson<{ status: string; expires_at: string; auto_renew: boolean }>(
      await app.fetch(`/api/v1/orgs/${c.org.id}/domains/${name}`, { headers: bearer(c.key) }),
    );
    expect(domain).toMatchObject({ status: 'active', auto_renew: true });
    expect(new Date(domain.expires_at).getUTCFullYear()).toBe(new Date().getUTCFullYear() + 2);

    const replay = await register(c, { name, years: 2, registrant_contact_id: c.contactId, auto_renew: true }, `reg-${name}`);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const ledger = await readJson<{ data: { type: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/transactions`, { headers: bearer(c.key) }));
    expect(ledger.data.map((e) => e.type)).toEqual(['capture', 'reservation', 'top_up']);

    // Operators find it in Temporal by its search attributes.
    const query = `Domain="${name}" AND OperationType="domain.register" AND Livemode=false`;
    await expect
      .poll(async () => {
        const ids: string[] = [];
        for await (const wf of app.deps.temporal.client.workflow.list({ query })) ids.push(wf.workflowId);
        return ids;
      }, { timeout: 10_000 })
      .toEqual([await registerWorkflowId(c, `reg-${name}`)]);
    await recordHistory(app, await registerWorkflowId(c, `reg-${name}`), 'register-succeeded-local-bookkeeping');
  });

  it('retries a flaky registrar (visible in the history) and succeeds', async () => {
    const c = await customer(2_000);
    const name = `shop-${Date.now()}-flaky.com`;
    const res = await register(c, { name, years: 1, registrant_contact_id: c.contactId }, `flaky-${name}`);
    expect((await pollUntilFinished(c, res.headers.get('location')!)).status).toBe('succeeded');
    const history = await app.deps.temporal.client.workflow.getHandle(await registerWorkflowId(c, `flaky-${name}`)).fetchHistory();
    // Each 503 is retried; a retried paid attempt reads as an unknown outcome, so the workflow submits
    // again after its settle delay (src/flows/paidOperation/activities.ts): three submissions, the first two retried.
    const events = history.events ?? [];
    const submissions = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'registrarRegister');
    expect(submissions).toHaveLength(3);
    const attempts = events.flatMap((e) => (e.activityTaskStartedEventAttributes ? [Number(e.activityTaskStartedEventAttributes.attempt)] : []));
    expect(attempts.filter((n) => n === 2)).toHaveLength(2);
    await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) }, history, `flaky-${name}`)).resolves.toBeUndefined();
    await recordHistory(app, await registerWorkflowId(c, `flaky-${name}`), 'register-flaky-retried-local-bookkeeping');
  });

  it('ends failed with REGISTRAR_REJECTED and releases the funds when the registrar refuses', async () => {
    const c = await customer(2_000);
    const name = `shop-${Date.now()}-fail.com`;
    const res = await register(c, { name, years: 1, registrant_contact_id: c.contactId }, `fail-${name}`);
    const done = await pollUntilFinished(c, res.headers.get('location')!);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'REGISTRAR_REJECTED' } });
    expect(await balance(c)).toMatchObject({ available: 2_000, reserved: 0 });
    const domains = await readJson<{ data: { name: string; status: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, { headers: bearer(c.key) }));
    expect(domains.data).toEqual([expect.objectContaining({ name, status: 'failed' })]);
    // The operation reads failed before the workflow has closed: wait for its end, then look.
    const handle = app.deps.temporal.client.workflow.getHandle(await registerWorkflowId(c, `fail-${name}`));
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('FAILED');
    await recordHistory(app, await registerWorkflowId(c, `fail-${name}`), 'register-rejected-local-bookkeeping');
  });

  it('answers 402 with nothing started when the balance is short', async () => {
    const c = await customer(1_000);
    const res = await register(c, { name: `pricey-${Date.now()}.io`, years: 1, registrant_contact_id: c.contactId }, 'short');
    expect(res.status).toBe(402);
    expect((await readJson<MessageErrorBody>(res)).code).toBe('INSUFFICIENT_FUNDS');
    const ops = await readJson<{ data: unknown[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations`, { headers: bearer(c.key) }));
    expect(ops.data).toEqual([]);
    expect(await balance(c)).toMatchObject({ available: 1_000, reserved: 0 });
    await expect(app.deps.temporal.client.workflow.getHandle(await registerWorkflowId(c, 'short')).describe()).rejects.toThrow();
  });

  it('answers what it can decide at once: taken names, unknown contacts, bad names', async () => {
    const c = await customer(5_000);
    const taken = await register(c, { name: 'example-taken.com', registrant_contact_id: c.contactId }, 'taken');
    expect(taken.status).toBe(409);
    expect((await readJson<MessageErrorBody>(taken)).code).toBe('DOMAIN_NOT_AVAILABLE');
    const noContact = await register(c, { name: `x-${Date.now()}.com`, registrant_contact_id: 'ct_missing' }, 'nocontact');
    expect((await readJson<FieldErrorBody>(noContact)).detail).toEqual([
      { loc: ['body', 'registrant_contact_id'], msg: 'No such contact in this organisation', type: 'contact_not_found' },
    ]);
    const badName = await register(c, { name: 'not a domain', registrant_contact_id: c.contactId }, 'badname');
    expect((await readJson<FieldErrorBody>(badName)).detail[0]!.loc).toEqual(['body', 'name']);
  });

  it('answers a key sent again with another name 409 IDEMPOTENCY_KEY_REUSED, and a 422 sent again with its stored 422', async () => {
    // The key is bound to its first request: another name under it registers nothing and is charged nothing.
    const c = await customer(5_000);
    const name = `first-${Date.now()}.com`;
    const first = await register(c, { name, years: 1, registrant_contact_id: c.contactId }, 'one-key');
    expect(first.status).toBe(202);
    const other = await register(c, { name: `other-${name}`, years: 1, registrant_contact_id: c.contactId }, 'one-key');
    expect(other.status).toBe(409);
    expect((await readJson<MessageErrorBody>(other)).code).toBe('IDEMPOTENCY_KEY_REUSED');
    const ops = await readJson<{ data: { domain: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations`, { headers: bearer(c.key) }));
    expect(ops.data.map((op) => op.domain)).toEqual([name]);
    expect(await balance(c)).toMatchObject({ available: 5_000 - 1299 });

    const unknownContact = { name: `nocontact-${name}`, years: 1, registrant_contact_id: 'ct_missing' };
    const refused = await register(c, unknownContact, 'refused-key');
    expect(refused.status).toBe(422);
    expect(refused.headers.get('idempotent-replayed')).toBeNull();
    const again = await register(c, unknownContact, 'refused-key');
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('turns 50 concurrent identical requests into one workflow, one domain and one charge', async () => {
    // One credential (idempotent answers are bound to it), on the enterprise plan so a burst of 50
    // stays under its write pool.
    const c = await customer(5_000, 'enterprise');
    const name = `race-${Date.now()}.com`;
    const body = { name, years: 1, registrant_contact_id: c.contactId };
    const responses = await Promise.all(Array.from({ length: 50 }, () => register(c, body, `race-${name}`)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s !== 202 && s !== 409), 'only 202 or 409 IDEMPOTENCY_KEY_IN_USE').toEqual([]);
    const accepted = await Promise.all(responses.filter((r) => r.status === 202).map((r) => readJson<OperationBody>(r)));
    expect(new Set(accepted.map((op) => op.id)).size).toBe(1);
    await pollUntilFinished(c, `/api/v1/orgs/${c.org.id}/operations/${accepted[0]!.id}`);
    const ops = await readJson<{ data: unknown[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations`, { headers: bearer(c.key) }));
    expect(ops.data).toHaveLength(1);
    expect(await balance(c)).toMatchObject({ available: 5_000 - 1299, reserved: 0 });
  });
});
