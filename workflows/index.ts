/**
 * Every workflow the worker runs is exported from here; the worker bundles this file.
 * Workflow code is deterministic: no Node built-ins, no I/O, only `@temporalio/workflow`, the
 * boundary's types and signals (./contract.ts) and types from `activities/` (enforced by ESLint).
 * Side effects live in `activities/`.
 */
import type { Workflows } from './contract.js';
import { purgeIdempotencyKeysWorkflow } from './maintenance.js';
import { reconcileOperationsWorkflow } from './reconciler.js';
import { registerDomainWorkflow } from './registerDomain.js';
import { renewDomainWorkflow } from './renewDomain.js';
import { transferDomainWorkflow } from './transferDomain.js';
import { leakScanWorkflow, revokeLeakedKeyWorkflow } from './leaks.js';
import { syncRegistrarContactWorkflow } from './contacts.js';
import { registrarReconcileWorkflow } from './reconcile.js';
import { deliverWebhookWorkflow, dispatchEventsWorkflow, purgeEventsWorkflow } from './webhooks.js';
import { domainLifecycleWorkflow } from './domainLifecycle.js';

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
  dispatchEventsWorkflow,
  purgeEventsWorkflow,
  domainLifecycleWorkflow,
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
  dispatchEventsWorkflow: typeof dispatchEventsWorkflow;
  purgeEventsWorkflow: typeof purgeEventsWorkflow;
  domainLifecycleWorkflow: typeof domainLifecycleWorkflow;
};
export type WorkflowsImplemented = Exported extends Workflows ? (Workflows extends Exported ? true : never) : never;
export const workflowsImplemented: WorkflowsImplemented = true;
