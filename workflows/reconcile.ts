import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { SCHEDULED_RETRIES, type RegistrarReconcileInput, type RegistrarReconcileSummary } from './contract.js';
import { retryPolicy } from './shared.js';

/**
 * Run by the `registrar-reconcile:<task queue>` schedule: reports where the registrar account and
 * our live domains disagree. Reports only: it never changes a domain or moves money.
 */
export async function registrarReconcileWorkflow(input: RegistrarReconcileInput = {}): Promise<RegistrarReconcileSummary> {
  // One attempt pages through the whole list, heartbeating its place; retried on registrar faults.
  const reconciler = proxyActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '2 minutes',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.registrarReconcileWorkflow, ['REGISTRAR_REJECTED', 'RECONCILE_TOO_LARGE']),
  });
  return reconciler.reconcileRegistrarDomains({ perPage: input.perPage ?? 100, maxPages: input.maxPages ?? 1_000 });
}
