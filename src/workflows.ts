/**
 * Every workflow the worker runs, by its registered name (the exported function's name;
 * workflows/index.ts checks that each implementation matches), and `startWorkflow`, which
 * type-checks a start's name and input against it. Each feature's `*.contract.ts` holds its
 * workflows' inputs, results and signals (docs/architecture.md).
 */
import type { Client, WorkflowHandleWithFirstExecutionRunId, WorkflowStartOptions } from '@temporalio/client';
import type { DisableDnssecInput, DnssecResult, EnableDnssecInput } from './features/dns/dnssec.contract.js';
import type { SyncRegistrarContactInput } from './features/contacts/contacts.contract.js';
import type { OperationWorkflowInputs, RegisterDomainInput, RegistrationResult, RenewDomainInput, TransferDomainInput, TransferResult } from './features/domains/operations.contract.js';
import type { LeakScanInput, LeakScanSummary, LeakedKeyInput, LeakedKeyResult } from './features/leaks/leaks.contract.js';
import type { DomainLifecycleInput, DomainLifecycleResult } from './features/lifecycle/domainLifecycle.contract.js';
import type { RegistrarReconcileInput, RegistrarReconcileSummary } from './features/registrarDrift/registrarDrift.contract.js';
import type { ReconcileOperationsInput, ReconcileOperationsSummary } from './features/strandedOperations/strandedOperations.contract.js';
import type { DeliverWebhookInput, DeliverWebhookResult, DispatchEventsInput, EndpointQueueInput, EndpointQueueResult } from './features/webhooks/webhooks.contract.js';
import type { ScheduledRunInput } from './temporal/retries.contract.js';

/**
 * The signature of every workflow the worker runs, by its registered name (the exported function's
 * name; workflows/index.ts checks that each implementation matches). Starts go through
 * `startWorkflow` (below), so the name and the arguments are both type-checked.
 */
export interface Workflows {
  registerDomainWorkflow(input: RegisterDomainInput): Promise<RegistrationResult>;
  renewDomainWorkflow(input: RenewDomainInput): Promise<RegistrationResult>;
  transferDomainWorkflow(input: TransferDomainInput): Promise<TransferResult>;
  syncRegistrarContactWorkflow(input: SyncRegistrarContactInput): Promise<{ status: string }>;
  revokeLeakedKeyWorkflow(input: LeakedKeyInput): Promise<LeakedKeyResult>;
  leakScanWorkflow(input?: LeakScanInput): Promise<LeakScanSummary>;
  reconcileOperationsWorkflow(input: ReconcileOperationsInput): Promise<ReconcileOperationsSummary>;
  registrarReconcileWorkflow(input?: RegistrarReconcileInput): Promise<RegistrarReconcileSummary>;
  purgeIdempotencyKeysWorkflow(input?: ScheduledRunInput): Promise<{ purged: number }>;
  deliverWebhookWorkflow(input: DeliverWebhookInput): Promise<DeliverWebhookResult>;
  deliverEndpointWebhooksWorkflow(input: EndpointQueueInput): Promise<EndpointQueueResult>;
  dispatchEventsWorkflow(input: DispatchEventsInput): Promise<never>;
  purgeEventsWorkflow(input?: ScheduledRunInput): Promise<{ purged: number }>;
  purgeAuditEventsWorkflow(input?: ScheduledRunInput): Promise<{ purged: number }>;
  domainLifecycleWorkflow(input: DomainLifecycleInput): Promise<DomainLifecycleResult>;
  enableDnssecWorkflow(input: EnableDnssecInput): Promise<DnssecResult>;
  disableDnssecWorkflow(input: DisableDnssecInput): Promise<DnssecResult>;
}

/** The workflow each operation type runs. */
export const OPERATION_WORKFLOWS = {
  'domain.register': 'registerDomainWorkflow',
  'domain.transfer': 'transferDomainWorkflow',
  'domain.renew': 'renewDomainWorkflow',
  'dnssec.enable': 'enableDnssecWorkflow',
  'dnssec.disable': 'disableDnssecWorkflow',
} as const satisfies { [T in keyof OperationWorkflowInputs]: keyof Workflows };

/**
 * Starts a workflow by its registered name, the name and arguments checked against its signature in
 * src/workflows.ts (the api never loads workflow code, so it cannot pass the function itself).
 */
export function startWorkflow<N extends keyof Workflows>(
  client: Client,
  workflowType: N,
  options: WorkflowStartOptions<Workflows[N]>,
): Promise<WorkflowHandleWithFirstExecutionRunId<Workflows[N]>> {
  return client.workflow.start<Workflows[N]>(workflowType, options);
}
