import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ensureTestSchedules } from '../support/schedules.js';
import { Worker } from '@temporalio/worker';
import { startTestApp, sharedWorkflowBundle, type TestApp } from '../support/testApp.js';
import { sessionToken, uniqueEmail } from '../support/actors.js';
import { ensureSchedules, scheduleId } from '../../src/worker/schedules.js';
import { randomBase62 } from '../../src/ids.js';
import { encryptedDataConverter } from '../../src/temporal/payloadCodec.js';
import { recordHistory } from '../support/histories.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ worker: true });
});
afterAll(async () => app?.close());

async function insertIdempotencyRow(userId: string, key: string, expiresIn: string): Promise<void> {
  await app.deps.db.query(
    `INSERT INTO idempotency_keys (user_id, livemode, key, credential, request_hash, method, path, state, locked_until, expires_at)
     VALUES ($1, true, $2, 'session:test', '\\x00', 'POST', '/x', 'completed', now(), now() + $3::interval)`,
    [userId, key, expiresIn],
  );
}

describe('idempotency purge', () => {
  it('the purge workflow deletes expired records and keeps live ones; its history replays deterministically', async () => {
    await sessionToken(app, uniqueEmail('purge'));
    const { rows } = await app.deps.db.query<{ id: string }>('SELECT id FROM users LIMIT 1');
    const userId = rows[0]!.id;
    const [expired, fresh] = [`old-${randomBase62(6)}`, `new-${randomBase62(6)}`];
    await insertIdempotencyRow(userId, expired, '-1 hour');
    await insertIdempotencyRow(userId, fresh, '23 hours');

    const workflowId = `idempotency-purge-test-${randomBase62(6)}`;
    const result = await app.deps.temporal.client.workflow.execute('purgeIdempotencyKeysWorkflow', {
      workflowId,
      taskQueue: app.deps.config.temporal.taskQueue,
      args: [],
    });
    expect((result as { purged: number }).purged).toBeGreaterThanOrEqual(1);
    const left = await app.deps.db.query<{ key: string }>('SELECT key FROM idempotency_keys WHERE key = ANY($1)', [[expired, fresh]]);
    expect(left.rows.map((r) => r.key)).toEqual([fresh]);

    const history = await app.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) }, history, workflowId)).resolves.toBeUndefined();
    await recordHistory(app, workflowId, 'purge-idempotency-keys');
  });

  it('is scheduled hourly with overlap SKIP, and ensuring the schedule twice keeps one', async () => {
    const { client } = app.deps.temporal;
    const purgeSchedule = scheduleId('idempotency-purge', app.deps.config);
    const ensured = await ensureTestSchedules(client, app.deps.config);
    onTestFinished(ensured.remove);
    await ensureSchedules(client, app.deps.config);
    const description = await client.schedule.getHandle(purgeSchedule).describe();
    expect(description.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.action).toMatchObject({ workflowType: 'purgeIdempotencyKeysWorkflow' });
    const ids: string[] = [];
    for await (const schedule of client.schedule.list()) ids.push(schedule.scheduleId);
    expect(ids.filter((id) => id === purgeSchedule)).toHaveLength(1);
  });
});

describe('audit purge', () => {
  it('the purge workflow deletes audit entries older than a year and keeps younger ones; its history replays', async () => {
    const insert = (age: string) =>
      app.deps.db
        .query<{ id: string }>(
          `INSERT INTO audit_events (id, action, target_type, target_id, livemode, created_at)
           VALUES ($1, 'org.created', 'organization', 'org_x', true, now() - $2::interval) RETURNING id`,
          [`evt_audit_${randomBase62(10)}`, age],
        )
        .then((r) => r.rows[0]!.id);
    const [old, young] = [await insert('366 days'), await insert('364 days')];

    const workflowId = `audit-purge-test-${randomBase62(6)}`;
    const result = await app.deps.temporal.client.workflow.execute('purgeAuditEventsWorkflow', { workflowId, taskQueue: app.deps.config.temporal.taskQueue, args: [] });
    expect((result as { purged: number }).purged).toBeGreaterThanOrEqual(1);
    const left = await app.deps.db.query<{ id: string }>('SELECT id FROM audit_events WHERE id = ANY($1)', [[old, young]]);
    expect(left.rows.map((r) => r.id)).toEqual([young]);

    const history = await app.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) }, history, workflowId)).resolves.toBeUndefined();
    await recordHistory(app, workflowId, 'purge-audit-events');
  });
});
