import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { startTestApp, sharedWorkflowBundle, type TestApp } from '../../../test/support/testApp.js';
import { bearer } from '../../../test/support/actors.js';
import { customerFactory, type OperationBody } from '../../../test/support/customers.js';
import { readJson } from '../../../test/support/http.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { randomBase62 } from '../../ids.js';
import { insertPendingRegistration } from '../../../test/support/factories.js';
import { ensureTestSchedules } from '../../../test/support/schedules.js';
import { ensureSchedules, scheduleId as scheduleIdOf } from '../../worker/schedules.js';
import type { ReconcileOperationsSummary as ReconcileSummary } from './strandedOperations.contract.js';
import { encryptedDataConverter } from '../../temporal/payloadCodec.js';
import { recordHistory } from '../../../test/support/histories.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
});
afterAll(async () => app?.close());

const PRICE = 1299;

/**
 * What an api killed right after its transaction leaves: domain, operation and reservation written,
 * no workflow started, no answer sent. `ageSeconds` back-dates it.
 */
async function strandedRegistration(c: { org: { id: string }; contactId: string }, ageSeconds: number) {
  const operation = await insertPendingRegistration(app.deps, { orgId: c.org.id, livemode: false, contactId: c.contactId, amount: PRICE, ageSeconds });
  return { operationId: operation.id, workflowId: operation.workflowId, name: operation.domain };
}

async function reconcile(): Promise<{ summary: ReconcileSummary; workflowId: string }> {
  const workflowId = `reconcile-test-${randomBase62(8)}`;
  const summary = (await app.deps.temporal.client.workflow.execute('reconcileOperationsWorkflow', {
    workflowId,
    taskQueue: app.deps.config.temporal.taskQueue,
    args: [{ graceMs: 2_000, maxStartAgeMs: 3_600_000, limit: 1_000 }],
  })) as ReconcileSummary;
  return { summary, workflowId };
}

describe('the operation reconciler', () => {
  it('starts a recent stranded operation, abandons an old one with its hold released, and a second run changes nothing', { timeout: 90_000 }, async () => {
    const f = customerFactory(app);
    const c = await f.customer(5_000);
    const recent = await strandedRegistration(c, 30);
    const old = await strandedRegistration(c, 2 * 3_600);
    const fresh = await strandedRegistration(c, -60); // within the grace (however slow this run): the api may still be starting it
    expect(await f.balance(c)).toMatchObject({ available: 5_000 - 3 * PRICE, reserved: 3 * PRICE });

    const first = await reconcile();
    expect(first.summary.started).toContain(recent.operationId);
    expect(first.summary.abandoned).toContain(old.operationId);
    for (const list of Object.values(first.summary).filter(Array.isArray)) expect(list).not.toContain(fresh.operationId);

    const opAt = async (id: string) => readJson<OperationBody>(await app.fetch(`/api/v1/orgs/${c.org.id}/operations/${id}`, { headers: bearer(c.key) }));
    expect(await f.pollUntilFinished(c, `/api/v1/orgs/${c.org.id}/operations/${recent.operationId}`)).toMatchObject({ status: 'succeeded' });
    expect(await opAt(old.operationId)).toMatchObject({ status: 'failed', error: expect.objectContaining({ code: 'OPERATION_ABANDONED' }) });
    expect(await listAuditEventsForTarget(app.deps.db, 'operation', old.operationId)).toEqual([expect.objectContaining({ action: 'operation.abandoned' })]);
    // The old one's name is free again.
    const { rows } = await app.deps.db.query<{ status: string }>('SELECT status FROM domains WHERE name = $1', [old.name]);
    expect(rows).toEqual([{ status: 'failed' }]);

    const second = await reconcile();
    for (const id of [recent.operationId, old.operationId]) {
      for (const list of Object.values(second.summary).filter(Array.isArray)) expect(list).not.toContain(id);
    }
    // One capture (the started one), one release (the abandoned one), the fresh one still held.
    expect(await f.balance(c)).toMatchObject({ available: 5_000 - 2 * PRICE, reserved: PRICE });
    const ledger = await app.deps.db.query<{ type: string; operationId: string }>(
      `SELECT type, operation_id AS "operationId" FROM billing_transactions WHERE org_id = $1 AND operation_id IS NOT NULL ORDER BY seq`,
      [c.org.id],
    );
    expect(ledger.rows.filter((r) => r.type === 'capture')).toEqual([{ type: 'capture', operationId: recent.operationId }]);
    expect(ledger.rows.filter((r) => r.type === 'release')).toEqual([{ type: 'release', operationId: old.operationId }]);

    // An operator reads the run in the Temporal UI: the workflow's result lists what it did.
    const history = await app.deps.temporal.client.workflow.getHandle(first.workflowId).fetchHistory();
    await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) }, history, first.workflowId)).resolves.toBeUndefined();
    await recordHistory(app, first.workflowId, 'reconcile-operations');
  });

  it('is scheduled per task queue, with the grace from the configuration; ensuring twice keeps one', async () => {
    const { client } = app.deps.temporal;
    const ensured = await ensureTestSchedules(client, app.deps.config);
    await ensureSchedules(client, app.deps.config);
    const scheduleId = scheduleIdOf('operation-reconciler', app.deps.config);
    const description = await client.schedule.getHandle(scheduleId).describe();
    try {
      expect(description.spec.intervals).toMatchObject([{ every: 60_000 }]);
      expect(description.policies.overlap).toBe('SKIP');
      expect(description.action).toMatchObject({
        workflowType: 'reconcileOperationsWorkflow',
        workflowId: scheduleId,
        args: [expect.objectContaining({ graceMs: 120_000 })],
      });
      const ids: string[] = [];
      for await (const schedule of client.schedule.list()) ids.push(schedule.scheduleId);
      expect(ids.filter((id) => id === scheduleId)).toHaveLength(1);
    } finally {
      // Schedules outlive the test's task queue; this one has nothing left to sweep.
      await ensured.remove();
    }
  });
});
