import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { SCHEDULED_RETRIES, type ReconcileOperationsInput, type ReconcileOperationsSummary } from './contract.js';
import { retryPolicy } from './shared.js';

/**
 * Run by the `operation-reconciler:<task queue>` schedule: starts or abandons operations left
 * pending with no workflow. Its result lists what it did, per operation id.
 */
export async function reconcileOperationsWorkflow(input: ReconcileOperationsInput): Promise<ReconcileOperationsSummary> {
  const { reconcilePendingOperations } = proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.reconcileOperationsWorkflow),
  });
  return reconcilePendingOperations({ graceMs: input.graceMs, maxStartAgeMs: input.maxStartAgeMs, limit: input.limit });
}
