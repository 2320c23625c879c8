import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ReconcileOperationsInput, ReconcileOperationsSummary } from './contract.js';

const { reconcilePendingOperations } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

/**
 * Run by the `operation-reconciler:<task queue>` schedule: starts or abandons operations left
 * pending with no workflow. Its result lists what it did, per operation id.
 */
export async function reconcileOperationsWorkflow(input: ReconcileOperationsInput): Promise<ReconcileOperationsSummary> {
  return reconcilePendingOperations(input);
}
