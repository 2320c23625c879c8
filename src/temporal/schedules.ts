import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config.js';

export const IDEMPOTENCY_PURGE_SCHEDULE = 'idempotency-purge';
export const LEAK_SCAN_SCHEDULE = 'leak-scan';

/**
 * Named after the task queue: two deployments (or test runs) sharing a namespace each sweep their
 * own operations and never replace each other's schedule.
 */
export function operationReconcilerSchedule(taskQueue: string): string {
  return `operation-reconciler:${taskQueue}`;
}

/** Past this age an operation without a workflow is abandoned, not started: its customer has moved on. */
export const RECONCILE_MAX_START_AGE_MS = 60 * 60_000;
/** Operations handled per reconciler run; the next run takes the rest. */
export const RECONCILE_BATCH = 200;

/** Per task queue, so two deployments (or test runs) sharing a namespace each reconcile their own. */
export function registrarReconcileSchedule(config: Pick<Config, 'temporal'>): string {
  return `registrar-reconcile:${config.temporal.taskQueue}`;
}

interface ScheduleDefinition {
  scheduleId: string;
  /** A duration string (`1h`) or milliseconds. */
  every: `${number}${'ms' | 's' | 'm' | 'h' | 'd'}` | number;
  workflowType: string;
  workflowId: string;
  args?: unknown[];
  memo: string;
}

function definitions(config: Config): ScheduleDefinition[] {
  return [
    {
      scheduleId: IDEMPOTENCY_PURGE_SCHEDULE,
      every: '1h',
      workflowType: 'purgeIdempotencyKeysWorkflow',
      workflowId: 'idempotency-purge',
      memo: 'Deletes Idempotency-Key records older than 24 hours',
    },
    {
      scheduleId: LEAK_SCAN_SCHEDULE,
      every: config.leakScanIntervalMs,
      workflowType: 'leakScanWorkflow',
      workflowId: 'leak-scan',
      memo: 'Searches GitHub code search for live API keys; each active one found is revoked and its owner e-mailed',
    },
    {
      scheduleId: operationReconcilerSchedule(config.temporal.taskQueue),
      every: config.operationReconciler.intervalMs,
      workflowType: 'reconcileOperationsWorkflow',
      workflowId: operationReconcilerSchedule(config.temporal.taskQueue),
      args: [{ graceMs: config.operationReconciler.graceMs, maxStartAgeMs: RECONCILE_MAX_START_AGE_MS, limit: RECONCILE_BATCH }],
      memo: 'Starts (or, past an hour, abandons with the reservation released) operations left pending with no workflow; the result lists them',
    },
    {
      scheduleId: registrarReconcileSchedule(config),
      every: config.registrarReconcileIntervalMs,
      workflowType: 'registrarReconcileWorkflow',
      workflowId: registrarReconcileSchedule(config),
      memo: 'Compares our live domains with the registrar account and reports drift (log, audit); changes nothing',
    },
  ];
}

/**
 * Creates the schedules, or brings existing ones up to date, so a worker restart is idempotent.
 * Overlap SKIP: a run still going when the next is due means the next is skipped.
 */
export async function ensureSchedules(client: Client, config: Config): Promise<string[]> {
  const ensured: string[] = [];
  for (const def of definitions(config)) {
    const options = {
      spec: { intervals: [{ every: def.every }] },
      action: {
        type: 'startWorkflow' as const,
        workflowType: def.workflowType,
        workflowId: def.workflowId,
        taskQueue: config.temporal.taskQueue,
        args: def.args ?? [],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { description: def.memo },
    };
    try {
      await client.schedule.create({ scheduleId: def.scheduleId, ...options });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await client.schedule.getHandle(def.scheduleId).update((previous) => ({ ...previous, ...options }));
    }
    ensured.push(def.scheduleId);
  }
  return ensured;
}
