/**
 * Every workflow the worker runs is exported from here; the worker bundles this file.
 * Workflow code is deterministic: no Node built-ins, no I/O, only `@temporalio/workflow` and
 * types from `activities/` (enforced by ESLint). Side effects live in `activities/`.
 */
export { purgeIdempotencyKeysWorkflow } from './maintenance.js';
export { reconcileOperationsWorkflow } from './reconciler.js';
export { registerDomainWorkflow } from './registerDomain.js';
export { renewDomainWorkflow } from './renewDomain.js';
export { transferDomainWorkflow } from './transferDomain.js';
export { leakScanWorkflow, revokeLeakedKeyWorkflow } from './leaks.js';
export { syncRegistrarContactWorkflow } from './contacts.js';
export { registrarReconcileWorkflow } from './reconcile.js';
