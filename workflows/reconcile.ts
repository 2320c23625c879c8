import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { RegistrarReconcileInput, RegistrarReconcileSummary } from './contract.js';

// One attempt pages through the whole list, heartbeating its place; retried on registrar faults.
const reconciler = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10, nonRetryableErrorTypes: ['REGISTRAR_REJECTED', 'RECONCILE_TOO_LARGE'] },
});

/**
 * Run by the `registrar-reconcile:<task queue>` schedule: reports where the registrar account and
 * our live domains disagree. Reports only: it never changes a domain or moves money.
 */
export async function registrarReconcileWorkflow(input: RegistrarReconcileInput = {}): Promise<RegistrarReconcileSummary> {
  return reconciler.reconcileRegistrarDomains({ perPage: input.perPage ?? 100, maxPages: input.maxPages ?? 1_000 });
}
