import { proxyActivities } from '@temporalio/workflow';
import type { RegistrarDriftActivities } from './activities.js';
import type { RegistrarReconcileInput, RegistrarReconcileSummary } from './registrarDrift.contract.js';
import { SCHEDULED_RETRIES } from '../../temporal/retries.contract.js';
import { retryPolicy } from '../../temporal/retries.workflow.js';

/**
 * Run by the `registrar-reconcile:<task queue>` schedule: reports where the registrar account and
 * our live domains disagree. Reports only: it never changes a domain or moves money.
 */
export async function registrarReconcileWorkflow(input: RegistrarReconcileInput = {}): Promise<RegistrarReconcileSummary> {
  // One attempt pages through the whole list, heartbeating its place; retried on registrar faults.
  const drift = proxyActivities<RegistrarDriftActivities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '2 minutes',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.registrarReconcileWorkflow, ['REGISTRAR_REJECTED', 'RECONCILE_TOO_LARGE']),
  });
  return drift.reconcileRegistrarDomains({ perPage: input.perPage ?? 100, maxPages: input.maxPages ?? 1_000 });
}
