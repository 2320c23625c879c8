import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config.js';
import { SCHEDULED_RETRIES } from '../temporal/retries.contract.js';
import type { Workflows } from '../workflows.js';

/** What each schedule does; its id adds the task queue that owns it (`scheduleId`). */
export type ScheduleName = 'idempotency-purge' | 'leak-scan' | 'operation-reconciler' | 'registrar-reconcile' | 'events-purge' | 'audit-purge';

/**
 * Named after the task queue: two deployments (or test runs) sharing a namespace each run their own
 * schedules and never replace each other's. The scheduled workflows take the same id.
 */
export function scheduleId(name: ScheduleName, config: Pick<Config, 'temporal'>): string {
  return `${name}:${config.temporal.taskQueue}`;
}

/** Past this age an operation without a workflow is abandoned, not started: its customer has moved on. */
export const RECONCILE_MAX_START_AGE_MS = 60 * 60_000;
/** Operations handled per reconciler run; the next run takes the rest. */
export const RECONCILE_BATCH = 200;

interface ScheduleDefinition {
  name: ScheduleName;
  /** A duration string (`1h`) or milliseconds. */
  every: `${number}${'ms' | 's' | 'm' | 'h' | 'd'}` | number;
  workflowType: keyof typeof SCHEDULED_RETRIES & keyof Workflows;
  /** The workflow's input; its `retry` is added (SCHEDULED_RETRIES). */
  input?: Record<string, unknown>;
  memo: string;
}

function definitions(config: Config): ScheduleDefinition[] {
  return [
    {
      name: 'idempotency-purge',
      every: '1h',
      workflowType: 'purgeIdempotencyKeysWorkflow',
      memo: 'Deletes Idempotency-Key records older than 24 hours',
    },
    {
      name: 'leak-scan',
      every: config.leakScanIntervalMs,
      workflowType: 'leakScanWorkflow',
      memo: 'Searches GitHub code search for live API keys; each active one found is revoked and its owner e-mailed',
    },
    {
      name: 'operation-reconciler',
      every: config.operationReconciler.intervalMs,
      workflowType: 'reconcileOperationsWorkflow',
      input: { graceMs: config.operationReconciler.graceMs, maxStartAgeMs: RECONCILE_MAX_START_AGE_MS, limit: RECONCILE_BATCH },
      memo: 'Starts (or, past an hour, abandons with the reservation released) operations left pending with no workflow; the result lists them',
    },
    {
      name: 'registrar-reconcile',
      every: config.registrarReconcileIntervalMs,
      workflowType: 'registrarReconcileWorkflow',
      memo: 'Compares our live domains with the registrar account and reports drift (log, audit); changes nothing',
    },
    {
      name: 'events-purge',
      every: '1h',
      workflowType: 'purgeEventsWorkflow',
      memo: 'Deletes events (and their webhook delivery attempts) older than 30 days',
    },
    {
      name: 'audit-purge',
      every: '1d',
      workflowType: 'purgeAuditEventsWorkflow',
      memo: 'Deletes audit log entries older than a year',
    },
  ];
}

/** The memo key naming the task queue (deployment) that created a schedule and alone may update it. */
export const OWNER_MEMO_KEY = 'ownerTaskQueue';

/**
 * Creates this deployment's schedules, or brings them up to date, so a worker restart is idempotent.
 * A schedule whose memo names another task queue as owner is left alone and not in the result.
 * Overlap SKIP: a run still going when the next is due means the next is skipped.
 */
export async function ensureSchedules(client: Client, config: Config): Promise<string[]> {
  const { taskQueue } = config.temporal;
  const ensured: string[] = [];
  for (const def of definitions(config)) {
    const id = scheduleId(def.name, config);
    const options = {
      spec: { intervals: [{ every: def.every }] },
      action: {
        type: 'startWorkflow' as const,
        workflowType: def.workflowType,
        workflowId: id,
        taskQueue,
        args: [{ ...def.input, retry: SCHEDULED_RETRIES[def.workflowType] }],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    };
    try {
      await client.schedule.create({ scheduleId: id, ...options, memo: { description: def.memo, [OWNER_MEMO_KEY]: taskQueue } });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      const handle = client.schedule.getHandle(id);
      // Schedules made before owners were recorded name none; their id already carries our task queue.
      const owner = (await handle.describe()).memo?.[OWNER_MEMO_KEY];
      if (owner !== undefined && owner !== taskQueue) continue;
      // Temporal sets a memo only at creation; an update keeps the owner.
      await handle.update((previous) => ({ ...previous, ...options }));
    }
    ensured.push(id);
  }
  return ensured;
}
