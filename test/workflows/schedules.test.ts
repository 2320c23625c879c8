import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { startTestApp, testConfig, type TestApp } from '../support/testApp.js';
import { ensureSchedules, OWNER_MEMO_KEY, scheduleId, type ScheduleName } from '../../src/worker/schedules.js';
import type { Config } from '../../src/config.js';

const NAMES: ScheduleName[] = ['idempotency-purge', 'leak-scan', 'operation-reconciler', 'registrar-reconcile', 'events-purge', 'audit-purge'];

let app: TestApp;
let other: Config;
const created: string[] = [];
beforeAll(async () => {
  app = await startTestApp();
  // A second deployment: same namespace, its own task queue.
  other = await testConfig();
});
afterAll(async () => {
  for (const id of created) await app?.deps.temporal.client.schedule.getHandle(id).delete().catch(() => undefined);
  await app?.close();
});

describe('schedules belong to their deployment', () => {
  it('two deployments sharing a namespace each keep their own schedules pointing at their own task queue', async () => {
    const { client } = app.deps.temporal;
    const mine = app.deps.config;
    expect(other.temporal.namespace).toBe(mine.temporal.namespace);
    expect(other.temporal.taskQueue).not.toBe(mine.temporal.taskQueue);

    const first = await ensureSchedules(client, mine);
    created.push(...first);
    const second = await ensureSchedules(client, other);
    created.push(...second);
    // A restart of the first deployment after the second started must not take anything back.
    expect(await ensureSchedules(client, mine)).toEqual(first);

    expect(first).toEqual(NAMES.map((name) => scheduleId(name, mine)));
    expect(second).toEqual(NAMES.map((name) => scheduleId(name, other)));
    for (const [config, ids] of [[mine, first], [other, second]] as const) {
      for (const id of ids) {
        const description = await client.schedule.getHandle(id).describe();
        expect(description.action).toMatchObject({ taskQueue: config.temporal.taskQueue, workflowId: id });
        expect(description.memo).toMatchObject({ [OWNER_MEMO_KEY]: config.temporal.taskQueue });
      }
    }
  });

  it('leaves a schedule whose memo names another owner untouched', async () => {
    const { client } = app.deps.temporal;
    const config = await testConfig();
    const id = scheduleId('leak-scan', config);
    await client.schedule.create({
      scheduleId: id,
      spec: { intervals: [{ every: '1d' }] },
      action: { type: 'startWorkflow', workflowType: 'leakScanWorkflow', workflowId: id, taskQueue: 'someone-else', args: [] },
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL },
      memo: { [OWNER_MEMO_KEY]: 'someone-else' },
    });
    created.push(id);

    const ensured = await ensureSchedules(client, config);
    created.push(...ensured);
    expect(ensured).toEqual(NAMES.filter((name) => name !== 'leak-scan').map((name) => scheduleId(name, config)));
    const description = await client.schedule.getHandle(id).describe();
    expect(description.action).toMatchObject({ taskQueue: 'someone-else' });
    expect(description.spec.intervals).toMatchObject([{ every: 86_400_000 }]);
    expect(description.policies.overlap).toBe('ALLOW_ALL');
  });
});
