import { proxyActivities } from '@temporalio/workflow';
import type { StrandedOperationActivities } from './activities.js';
import type { ReconcileOperationsInput, ReconcileOperationsSummary } from './strandedOperations.contract.js';
import { SCHEDULED_RETRIES } from '../../temporal/retries.contract.js';
import { retryPolicy } from '../../temporal/retries.workflow.js';

/**
 * Run by the `operation-reconciler:<task queue>` schedule: starts or abandons operations left
 * pending with no workflow. Its result lists what it did, per operation id.
 */
export async function reconcileOperationsWorkflow(input: ReconcileOperationsInput): Promise<ReconcileOperationsSummary> {
  const { reconcilePendingOperations } = proxyActivities<StrandedOperationActivities>({
    startToCloseTimeout: '2 minutes',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.reconcileOperationsWorkflow),
  });
  return reconcilePendingOperations({ graceMs: input.graceMs, maxStartAgeMs: input.maxStartAgeMs, limit: input.limit });
}
