/**
 * The workflow bundle's one entry: every workflow the worker runs, re-exported from its feature's
 * `*.workflow.ts`. Workflow code is deterministic: no Node built-ins, no I/O; values only from
 * `@temporalio/workflow`, other `*.workflow.ts` files and the `*.contract.ts` files, types from
 * anywhere (eslint.config.js). Side effects live in each feature's activities (docs/architecture.md).
 */
import type { Workflows } from '../src/workflows.js';
import { purgeIdempotencyKeysWorkflow } from '../src/features/housekeeping/purgeIdempotencyKeys.workflow.js';
import { reconcileOperationsWorkflow } from '../src/features/strandedOperations/strandedOperations.workflow.js';
import { registerDomainWorkflow } from '../src/flows/registerDomain/registerDomain.workflow.js';
import { renewDomainWorkflow } from '../src/flows/renewDomain/renewDomain.workflow.js';
import { transferDomainWorkflow } from '../src/flows/transferDomain/transferDomain.workflow.js';
import { leakScanWorkflow, revokeLeakedKeyWorkflow } from '../src/features/leaks/leaks.workflow.js';
import { syncRegistrarContactWorkflow } from '../src/features/contacts/syncRegistrarContact.workflow.js';
import { registrarReconcileWorkflow } from '../src/features/registrarDrift/registrarDrift.workflow.js';
import { deliverWebhookWorkflow, dispatchEventsWorkflow, purgeEventsWorkflow } from '../src/features/webhooks/webhooks.workflow.js';
import { deliverEndpointWebhooksWorkflow } from '../src/features/webhooks/endpointQueue.workflow.js';
import { domainLifecycleWorkflow } from '../src/features/lifecycle/domainLifecycle.workflow.js';
import { disableDnssecWorkflow, enableDnssecWorkflow } from '../src/features/dns/dnssec.workflow.js';
import { purgeAuditEventsWorkflow } from '../src/features/audit/purgeAuditEvents.workflow.js';

export {
  purgeIdempotencyKeysWorkflow,
  reconcileOperationsWorkflow,
  registerDomainWorkflow,
  renewDomainWorkflow,
  transferDomainWorkflow,
  leakScanWorkflow,
  revokeLeakedKeyWorkflow,
  syncRegistrarContactWorkflow,
  registrarReconcileWorkflow,
  deliverWebhookWorkflow,
  deliverEndpointWebhooksWorkflow,
  dispatchEventsWorkflow,
  purgeEventsWorkflow,
  domainLifecycleWorkflow,
  enableDnssecWorkflow,
  disableDnssecWorkflow,
  purgeAuditEventsWorkflow,
};

// Compile-time only: each workflow is exported under the name the contract starts it by, with the
// contract's signature, and the contract names no workflow that is not exported here.
type Exported = {
  purgeIdempotencyKeysWorkflow: typeof purgeIdempotencyKeysWorkflow;
  reconcileOperationsWorkflow: typeof reconcileOperationsWorkflow;
  registerDomainWorkflow: typeof registerDomainWorkflow;
  renewDomainWorkflow: typeof renewDomainWorkflow;
  transferDomainWorkflow: typeof transferDomainWorkflow;
  leakScanWorkflow: typeof leakScanWorkflow;
  revokeLeakedKeyWorkflow: typeof revokeLeakedKeyWorkflow;
  syncRegistrarContactWorkflow: typeof syncRegistrarContactWorkflow;
  registrarReconcileWorkflow: typeof registrarReconcileWorkflow;
  deliverWebhookWorkflow: typeof deliverWebhookWorkflow;
  deliverEndpointWebhooksWorkflow: typeof deliverEndpointWebhooksWorkflow;
  dispatchEventsWorkflow: typeof dispatchEventsWorkflow;
  purgeEventsWorkflow: typeof purgeEventsWorkflow;
  domainLifecycleWorkflow: typeof domainLifecycleWorkflow;
  enableDnssecWorkflow: typeof enableDnssecWorkflow;
  disableDnssecWorkflow: typeof disableDnssecWorkflow;
  purgeAuditEventsWorkflow: typeof purgeAuditEventsWorkflow;
};
export type WorkflowsImplemented = Exported extends Workflows ? (Workflows extends Exported ? true : never) : never;
export const workflowsImplemented: WorkflowsImplemented = true;
