/**
 * The long paths of the paid workflows, run in seconds: every duration a workflow waits is an
 * input (src/workflows.ts), set short here through the configuration (timeouts, poll and
 * settle delays) or the workflow input (retries). Live mode against the DNSimple double, so a
 * transfer can stay pending and the registrar's side can be checked; test mode for the synthetic
 * registrar's `-flaky` names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { bearer, jsonHeaders } from '../support/actors.js';
import { readJson } from '../support/http.js';
import { FakeDnsimple, registrarEnv } from '../support/fakeDnsimple.js';
import type { OperationBody } from '../support/customers.js';
import { GRACE_HOPPER } from '../support/liveCustomers.js';
import { insertCustomer, insertPendingRegistration, type FactoryCustomer } from '../support/factories.js';
import { operationWorkflowId, recordHistory } from '../support/histories.js';
import { abandonOperation } from '../../src/features/domains/beginOperation.js';
import { findContact, updateContact } from '../../src/features/contacts/contacts.repository.js';
import { listAuditEventsForTarget } from '../../src/audit/auditEvents.js';
import { startWorkflow } from '../../src/workflows.js';
import { startOperationWorkflow } from '../../src/features/domains/operationWorkflows.js';
import { modeOf } from '../../src/db/modeScope.js';

let dnsimple: FakeDnsimple;
let app: TestApp;
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
  app = await startTestApp({
    worker: true,
    env: {
      ...registrarEnv(dnsimple),
      // Longer than the answer the cancel-during-submit test holds back (1 s), so that answer arrives.
      REGISTRAR_PAID_TIMEOUT: '3s',
      REGISTRAR_TRANSFER_TIMEOUT: '1500ms',
      REGISTRAR_TRANSFER_POLL_INTERVAL: '200ms',
      REGISTRAR_POLL_INTERVAL: '200ms',
      REGISTRAR_SETTLE_DELAY: '200ms',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await dnsimple?.close();
});

const SCOPES = ['domains:read', 'domains:write', 'billing:read'];

const customer = (mode: 'live' | 'test', balance: number) =>
  insertCustomer(app.deps, { scopes: SCOPES, mode, balance, ...(mode === 'live' ? { contact: GRACE_HOPPER } : {}) });

async function finished(c: FactoryCustomer, operationId: string): Promise<OperationBody> {
  const location = `/api/v1/orgs/${c.org.id}/operations/${operationId}`;
  for (let i = 0; i < 300; i += 1) {
    const op = await readJson<OperationBody>(await app.fetch(location, { headers: bearer(c.key) }));
    if (op.status !== 'pending' && op.status !== 'running') return op;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`operation ${operationId} did not finish`);
}

async function balanceOf(c: FactoryCustomer) {
  return readJson<{ available: number; reserved: number }>(await app.fetch(`/api/v1/orgs/${c.org.id}/billing/balance`, { headers: bearer(c.key) }));
}

/** The ledger entries of one operation, oldest first, as the customer reads them. */
async function ledgerOf(c: FactoryCustomer, operationId: string): Promise<string[]> {
  const page = await readJson<{ data: { type: string; operation_id: string | null }[] }>(
    await app.fetch(`/api/v1/orgs/${c.org.id}/billing/transactions?limit=100`, { headers: bearer(c.key) }),
  );
  return page.data.filter((e) => e.operation_id === operationId).map((e) => e.type).reverse();
}

/** The domain's status in the customer's list (a failed domain frees its name, so only the list shows it). */
async function domainStatus(c: FactoryCustomer, name: string): Promise<string | undefined> {
  const list = await readJson<{ data: { name: string; status: string }[] }>(await app.fetch(`/api/v1/orgs/${c.org.id}/domains`, { headers: bearer(c.key) }));
  return list.data.find((d) => d.name === name)?.status;
}

const transfer = (c: FactoryCustomer, name: string) =>
  app.fetch(`/api/v1/orgs/${c.org.id}/domains/transfers`, {
    method: 'POST',
    headers: { ...jsonHeaders(c.key), 'idempotency-key': `transfer-${name}` },
    body: JSON.stringify({ name, auth_code: 'EPP-42', registrant_contact_id: c.contactId }),
  });

/** Cancellations DNSimple received for the domain's transfer (`DELETE …/transfers/{id}`). */
const transferCancels = (name: string) => dnsimple.requests.filter((r) => r.method === 'DELETE' && r.path.includes(`/registrar/domains/${name}/transfers/`));

/** A transfer that stays `transferring` at the registrar for as long as the test needs. */
async function withSlowTransfers<T>(work: () => Promise<T>): Promise<T> {
  const usual = dnsimple.transferMs;
  dnsimple.transferMs = 60_000;
  try {
    return await work();
  } finally {
    dnsimple.transferMs = usual;
  }
}

describe('a live transfer', () => {
  it('still pending at its timeout is cancelled at the registrar and ends failed TRANSFER_TIMED_OUT, its funds released', async () => {
    const c = await customer('live', 5_000);
    const name = `slow-${Date.now()}.net`;
    dnsimple.setDomain(name, { available: false });
    const done = await withSlowTransfers(async () => {
      const res = await transfer(c, name);
      expect(res.status).toBe(202);
      return finished(c, (await readJson<OperationBody>(res)).id);
    });
    expect(done).toMatchObject({ status: 'failed', error: { code: 'TRANSFER_TIMED_OUT', detail: 'The transfer did not complete in time and was cancelled' } });
    expect(transferCancels(name)).toHaveLength(1);
    expect(dnsimple.charges(name).transfers).toBe(0);
    expect(await balanceOf(c)).toMatchObject({ available: 5_000, reserved: 0 });
    expect(await ledgerOf(c, done.id)).toEqual(['reservation', 'release']);
    expect(await domainStatus(c, name)).toBe('failed');
    await recordHistory(app, await operationWorkflowId(app, done.id), 'transfer-timed-out');
  });

  it('cancelled while its submission is still waiting for the registrar is cancelled there once it answers, its funds released', async () => {
    const c = await customer('live', 5_000);
    const name = `second-thoughts-${Date.now()}.net`;
    dnsimple.setDomain(name, { available: false });
    // DNSimple takes the transfer at once but answers a second later.
    dnsimple.fail({ method: 'POST', path: new RegExp(`${name}/transfers$`) }, { delayMs: 1_000 });
    const done = await withSlowTransfers(async () => {
      const res = await transfer(c, name);
      const op = await readJson<OperationBody>(res);
      await expect.poll(() => dnsimple.requestsTo('POST', `/registrar/domains/${name}/transfers`).length, { timeout: 10_000 }).toBe(1);
      const cancel = await app.fetch(`/api/v1/orgs/${c.org.id}/operations/${op.id}/cancel`, { method: 'POST', headers: bearer(c.key) });
      expect(cancel.status).toBe(202);
      return finished(c, op.id);
    });
    expect(done).toMatchObject({ status: 'cancelled', error: { code: 'TRANSFER_CANCELLED' } });
    expect(transferCancels(name)).toHaveLength(1);
    expect(dnsimple.charges(name).transfers).toBe(0);
    expect(await balanceOf(c)).toMatchObject({ available: 5_000, reserved: 0 });
    expect(await ledgerOf(c, done.id)).toEqual(['reservation', 'release']);
    await recordHistory(app, await operationWorkflowId(app, done.id), 'transfer-cancelled-during-submit');
  });
});

describe('a registration', () => {
  it('whose workflow starts after the api abandoned it ends OPERATION_ABANDONED and touches nothing: no registrar call, no charge', async () => {
    const c = await customer('live', 5_000);
    const operation = await insertPendingRegistration(app.deps, { orgId: c.org.id, livemode: true, contactId: c.contactId, amount: 1_299 });
    const before = dnsimple.requests.length;
    // The api's start timed out, so it gave the operation up (beginOperation.ts); the start landed after all.
    expect(await abandonOperation(app.deps, operation, { code: 'WORKFLOW_ENGINE_UNAVAILABLE', detail: 'The work could not be started' })).toBe(true);
    await startOperationWorkflow(app.deps, operation);
    const failure = await app.deps.temporal.client.workflow.getHandle(operation.workflowId).result().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(((failure as WorkflowFailedError).cause as ApplicationFailure).type).toBe('OPERATION_ABANDONED');

    expect(await finished(c, operation.id)).toMatchObject({ status: 'failed', error: { code: 'WORKFLOW_ENGINE_UNAVAILABLE' } });
    expect(dnsimple.requests.slice(before)).toEqual([]);
    expect(await balanceOf(c)).toMatchObject({ available: 5_000, reserved: 0 });
    expect(await ledgerOf(c, operation.id)).toEqual(['reservation', 'release']);
    expect(await domainStatus(c, operation.domain)).toBe('failed');
    await recordHistory(app, operation.workflowId, 'register-abandoned');
  });

  it('whose registrar stays unavailable past its retries ends failed with the registrar\'s code, its funds released', async () => {
    const c = await customer('test', 3_000);
    // `-flaky`: the synthetic registrar answers 503 twice before it registers; one attempt is allowed here.
    const operation = await insertPendingRegistration(app.deps, {
      orgId: c.org.id,
      livemode: false,
      contactId: c.contactId,
      amount: 1_299,
      name: `outage-${Date.now()}-flaky.com`,
      input: { retries: { registrar: { initialIntervalMs: 100, maximumIntervalMs: 100, maximumAttempts: 1 } } },
    });
    await startOperationWorkflow(app.deps, operation);
    const done = await finished(c, operation.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_UNAVAILABLE' } });
    expect(await balanceOf(c)).toMatchObject({ available: 3_000, reserved: 0 });
    expect(await ledgerOf(c, operation.id)).toEqual(['reservation', 'release']);
    expect(await domainStatus(c, operation.domain)).toBe('failed');
    await recordHistory(app, operation.workflowId, 'register-retries-exhausted');
  });

  it('whose name servers cannot be set within their retries still succeeds, charged once, on the default delegation', async () => {
    const c = await customer('live', 5_000);
    const name = `undelegated-${Date.now()}.com`;
    dnsimple.fail({ method: 'PUT', path: new RegExp(`${name}/delegation$`), times: 10 }, { status: 503 });
    const operation = await insertPendingRegistration(app.deps, {
      orgId: c.org.id,
      livemode: true,
      contactId: c.contactId,
      amount: 1_299,
      name,
      input: { nameservers: ['ns1.example.org', 'ns2.example.org'], retries: { delegation: { initialIntervalMs: 100, maximumIntervalMs: 100, maximumAttempts: 3 } } },
    });
    await startOperationWorkflow(app.deps, operation);
    const done = await finished(c, operation.id);
    expect(done).toMatchObject({ status: 'succeeded', result: { domain: name, nameservers_applied: false } });
    expect(dnsimple.requestsTo('PUT', `/registrar/domains/${name}/delegation`)).toHaveLength(3);
    expect(dnsimple.charges(name).registrations).toBe(1);
    expect(await ledgerOf(c, operation.id)).toEqual(['reservation', 'capture']);
    expect(await domainStatus(c, name)).toBe('active');
    await recordHistory(app, operation.workflowId, 'register-delegation-retries-exhausted');
  });
});

describe('a live contact change', () => {
  it('that the registrar cannot take within its retries is reported to the operator, and our copy keeps it', async () => {
    const c = await customer('live', 5_000);
    // The registrar holds the contact once a registration has used it.
    const registration = await insertPendingRegistration(app.deps, { orgId: c.org.id, livemode: true, contactId: c.contactId, amount: 1_299 });
    await startOperationWorkflow(app.deps, registration);
    expect((await finished(c, registration.id)).status).toBe('succeeded');
    const upstreamId = (await findContact(app.deps.db, modeOf(true), { orgId: c.org.id, id: c.contactId }))!.registrarContactId!;
    dnsimple.fail({ method: 'PATCH', path: new RegExp(`/contacts/${upstreamId}$`), times: 10 }, { status: 503 });

    // The change as the PATCH route saves it; its sync is started here with short retries
    // (the route starts it with the production ones, about two hours of them).
    const saved = await updateContact(app.deps.db, modeOf(true), { orgId: c.org.id, id: c.contactId, expectedVersion: undefined, changes: { city: 'Annapolis' } });
    if (saved.status !== 'updated') throw new Error(`contact not updated: ${saved.status}`);
    const workflowId = `contact-sync:${c.contactId}:v${saved.contact.version}`;
    await startWorkflow(app.deps.temporal.client, 'syncRegistrarContactWorkflow', {
      workflowId,
      taskQueue: app.deps.config.temporal.taskQueue,
      args: [{ livemode: true, orgId: c.org.id, contactId: c.contactId, version: saved.contact.version, retries: { registrar: { initialIntervalMs: 100, maximumIntervalMs: 100, maximumAttempts: 3 } } }],
    });
    const failure = await app.deps.temporal.client.workflow.getHandle(workflowId).result().catch((err: unknown) => err);
    expect(((failure as WorkflowFailedError).cause as ApplicationFailure).type).toBe('UPSTREAM_UNAVAILABLE');

    expect(dnsimple.requestsTo('PATCH', `/contacts/${upstreamId}`)).toHaveLength(3);
    expect(dnsimple.contact(Number(upstreamId))?.city).toBe('Arlington');
    expect(await listAuditEventsForTarget(app.deps.db, 'contact', c.contactId)).toEqual([
      expect.objectContaining({ action: 'contact.registrar_sync_failed', data: expect.objectContaining({ version: saved.contact.version, failure: expect.objectContaining({ code: 'UPSTREAM_UNAVAILABLE' }) }) }),
    ]);
    const ours = await readJson<{ city: string }>(await app.fetch(`/api/v1/orgs/${c.org.id}/contacts/${c.contactId}`, { headers: bearer(c.session) }));
    expect(ours.city).toBe('Annapolis');
    await recordHistory(app, workflowId, 'contact-sync-retries-exhausted');
  });
});
